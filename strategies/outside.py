"""Outside players: programs that play through ginbox's JSON-lines protocol (``agent:PATH``),
and the EAAI framework's Java players through the bridge that speaks it (``eaai:CLASS``).

The protocol ("ginbox-agent 1", docs/outside-players.md) is one JSON object a line on the
program's standard input and output: ginbox says hello and tells the events of each game; the
program answers the hello and each decision, and nothing else. One process plays one seat and
lives as long as the worker that started it (:func:`program_for` keeps it across games); a
program that failed is stopped, and the next game starts it afresh.

Everything a program can do wrong (exit, hang, flood, write what is not the protocol, answer
an illegal move) raises :class:`OutsideFault` with its reason, which the game turns into a
forfeit (``sim.play.outside``): a program's move is never replaced by another.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import selectors
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The protocol's name and version, sent in the hello and expected back.
PROTOCOL = "ginbox-agent 1"
#: Seconds a program may take over one decision (and over its hello), unless told otherwise.
DEFAULT_TIME_LIMIT = 10.0
#: The longest line a program may write (bytes, newline excluded).
MAX_LINE_BYTES = 65536
#: The kinds of outside player, by the strategy text's head (``agent:PATH``, ``eaai:CLASS``).
KINDS = ("agent", "eaai")
#: The options an outside player's text may set (``agent:PATH:time_limit=5``).
OPTIONS = ("time_limit", "classpath")
_OPTIONS_START = re.compile(r":\s*(?=[a-z_]+\s*=)")


#: Compact JSON, one encoder for every message (``json.dumps`` with options builds one a call).
_ENCODER = json.JSONEncoder(separators=(",", ":"))


class OutsideFault(Exception):
    """An outside player failed: ``reason`` says how, in one line (the hand log's
    ``ended_by.reason``); the seat is the game's to add."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _message(line: bytes) -> dict[str, Any]:
    """A program's line as a JSON object, or the fault of a line that is not one."""
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise OutsideFault(f"malformed JSON: {line[:80]!r}") from None
    if not isinstance(value, dict):
        raise OutsideFault(f"not a JSON object: {line[:80]!r}")
    return value


class Program:
    """One running outside program: its process and the two pipes, with every read bounded
    in time and length (a program that hangs or floods cannot stall the game)."""

    def __init__(self, command: Sequence[str], time_limit: float) -> None:
        self.command = list(command)
        self.time_limit = time_limit
        self.name = ""
        try:
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, bufsize=0)
        except OSError as exc:
            raise OutsideFault(f"cannot start {self.command[0]}: {exc.strerror or exc}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._pending = bytearray()  # events not yet written
        self._read = bytearray()  # what the program wrote and was not yet taken
        self._selector = selectors.DefaultSelector()  # one for the program's life: a
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)  # round trip is hot

    @property
    def alive(self) -> bool:
        """The process has not exited."""
        return self.proc.poll() is None

    def tell(self, message: Mapping[str, Any]) -> None:
        """Queue an event (written with the next :meth:`ask` or :meth:`flush`)."""
        self._pending += _ENCODER.encode(message).encode() + b"\n"

    def flush(self) -> None:
        """Write the queued events; a program that wrote anything meanwhile is at fault."""
        self._exchange(expect=False)

    def ask(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Write the queued events and ``message``, and read the program's one-line answer."""
        self.tell(message)
        return _message(self._exchange(expect=True))

    def _exchange(self, expect: bool) -> bytes:
        """Write what is queued and, when ``expect``, read one line, within the time limit."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        deadline = time.monotonic() + self.time_limit
        sel = self._selector
        if self._pending:
            sel.register(self.proc.stdin, selectors.EVENT_WRITE)
        try:
            while self._pending or (expect and b"\n" not in self._read):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise OutsideFault(f"no answer within the time limit of "
                                       f"{self.time_limit:g} s")
                for key, _ in sel.select(left):
                    if key.fileobj is self.proc.stdin:
                        self._write()
                        if not self._pending:
                            sel.unregister(self.proc.stdin)
                    else:
                        self._take(expect)
        finally:
            if self.proc.stdin in sel.get_map():
                sel.unregister(self.proc.stdin)
        if not expect:
            return b""
        line, _, rest = bytes(self._read).partition(b"\n")
        self._read = bytearray(rest)
        return line

    def _write(self) -> None:
        assert self.proc.stdin is not None
        try:
            n = os.write(self.proc.stdin.fileno(), self._pending)
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):
            raise OutsideFault(self._exited()) from None
        del self._pending[:n]

    def _take(self, expect: bool) -> None:
        assert self.proc.stdout is not None
        try:
            data = os.read(self.proc.stdout.fileno(), 65536)
        except BlockingIOError:
            return
        if not data:
            raise OutsideFault(self._exited())
        if not expect:
            raise OutsideFault(f"wrote {data[:60]!r} when no answer was asked (flooding)")
        self._read += data
        lines = self._read.split(b"\n")
        if len(lines[0]) > MAX_LINE_BYTES:
            raise OutsideFault(f"wrote a line longer than {MAX_LINE_BYTES} bytes (flooding)")
        if len(lines) > 2 or (len(lines) == 2 and lines[1]):
            raise OutsideFault("wrote more than one line for one answer (flooding)")

    def _exited(self) -> str:
        try:
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "closed its standard output"
        return f"exited with status {code}" if code >= 0 else f"was killed by signal {-code}"

    def close(self, polite: bool = True) -> None:
        """Say bye and let the program exit (a second later, kill it)."""
        if polite and self.alive:
            try:
                self.tell({"type": "bye"})
                self.flush()
            except OutsideFault:
                pass
        self._selector.close()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        try:
            self.proc.wait(timeout=1 if polite else 0.1)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def handshake(program: Program, hello: Mapping[str, Any]) -> None:
    """Say hello and check the answer names the program and speaks :data:`PROTOCOL`. The
    hello has at least :data:`DEFAULT_TIME_LIMIT` (a JVM or an interpreter starting on a busy
    machine), whatever the time limit of a decision."""
    limit, program.time_limit = program.time_limit, max(program.time_limit, DEFAULT_TIME_LIMIT)
    try:
        answer = program.ask({"type": "hello", "protocol": PROTOCOL, **hello})
    finally:
        program.time_limit = limit
    if answer.get("type") != "hello" or answer.get("protocol") != PROTOCOL:
        raise OutsideFault(f"answered the hello with {json.dumps(answer)[:120]}: expected "
                           f'{{"type": "hello", "protocol": "{PROTOCOL}", "name": ...}}')
    name = answer.get("name")
    if not isinstance(name, str) or not name.strip():
        raise OutsideFault("its hello gives no name")
    program.name = name.strip()[:80]


# One process per program and seat, for the life of the worker that started it, with the
# hello it was greeted with.
_RUNNING: dict[tuple[Any, ...], tuple[str, Program]] = {}


def program_for(command: Sequence[str], time_limit: float, hello: Mapping[str, Any]) -> Program:
    """The running program for ``command`` and ``hello``'s seat, started and greeted when
    none runs: a process lives across games, not one per game. A new hello (other rules or
    seats: the next arm of a run, the next pairing of a league) replaces the seat's process,
    so a worker keeps one process per seat of a program."""
    key = (tuple(command), time_limit, hello.get("seat"))
    greeting = json.dumps(hello, sort_keys=True)
    running = _RUNNING.pop(key, None)
    if running is not None:
        if running[0] == greeting and running[1].alive:
            _RUNNING[key] = running
            return running[1]
        running[1].close()
    program = Program(command, time_limit)
    try:
        handshake(program, hello)
    except OutsideFault:
        program.close(polite=False)
        raise
    _RUNNING[key] = (greeting, program)
    return program


def drop_program(program: Program) -> None:
    """Stop a program that failed: the next game starts it afresh."""
    for key, (_, running) in list(_RUNNING.items()):
        if running is program:
            del _RUNNING[key]
    program.close(polite=False)


@atexit.register
def close_programs() -> None:
    """Say bye to every running program and let it exit (at the worker's exit, or when a
    host wants fresh processes)."""
    while _RUNNING:
        _, (_, program) = _RUNNING.popitem()
        program.close()


# --------------------------------------------------------------------------------- the seats


def _time_limit(text: str, value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 3600:
        raise ValueError(f"time_limit={value!r} in {text!r} is not a number of seconds in "
                         "(0, 3600]")
    return seconds


@dataclass(frozen=True)
class OutsideSeat:
    """What an ``agent:PATH`` or ``eaai:CLASS`` text names: the kind, the program or class,
    and the options; :meth:`create_player` makes the seat's player (a
    ``sim.play.outside``-driven :class:`OutsidePlayer`)."""

    kind: str
    target: str
    time_limit: float = DEFAULT_TIME_LIMIT
    classpath: str | None = None  # eaai only: overrides GINBOX_EAAI_CLASSPATH
    command: tuple[str, ...] = field(default=(), compare=False)

    def create_player(self) -> OutsidePlayer:
        """A fresh player for one seat (its process is started at the first game)."""
        return OutsidePlayer(self)


def outside_seat(text: str, kind: str, rest: str, load: bool) -> OutsideSeat:
    """Parse the part after ``agent:`` or ``eaai:`` (``PATH[:key=value,...]``); with ``load``,
    check what can be checked before any game (the program is executable; the JDK, the
    classpath and the class for ``eaai``), one ``ValueError`` line each."""
    start = _OPTIONS_START.search(rest)  # a classpath has ':' in it: find the first option
    target, options = (rest[:start.start()], rest[start.end():]) if start else (rest, "")
    target = target.strip()
    if not target:
        raise ValueError(f"{kind}: names no {'program' if kind == 'agent' else 'class'} in "
                         f"{text!r}: expected {kind}:{'PATH' if kind == 'agent' else 'CLASS'}")
    values: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in options.split(","))):
        key, _, value = (s.strip() for s in pair.partition("="))
        allowed = OPTIONS if kind == "eaai" else OPTIONS[:1]
        if key not in allowed or key in values:
            raise ValueError(f"{key!r} in {text!r} is not an option of {kind}: it takes "
                             + " and ".join(allowed) + ", each once")
        values[key] = _time_limit(text, value) if key == "time_limit" else value
    seat = OutsideSeat(kind, target, **values)
    if not load:
        return seat
    if kind == "agent":
        path = Path(target)
        if not path.is_file() or not os.access(path, os.X_OK):
            raise ValueError(f"agent program {target!r} is not an executable file")
        return OutsideSeat(kind, target, seat.time_limit, None, (str(path.resolve()),))
    from strategies.eaai import bridge_command  # the JDK is looked for only when asked

    command = bridge_command(target, seat.classpath)
    return OutsideSeat(kind, target, seat.time_limit, seat.classpath, tuple(command))


class OutsidePlayer:
    """One seat's outside player: the running program it talks to for the game in hand.

    The table (``sim.play.outside.OutsideTable``) calls :meth:`start` at each game with the
    hello for its seat, :meth:`tell` for each event and :meth:`decide` for each decision.
    The four methods of the Python strategy protocol are not its way to play: it needs the
    events too, which only the table gives."""

    def __init__(self, seat: OutsideSeat) -> None:
        self.seat = seat
        self.name = f"{seat.kind}:{seat.target}"
        self.program: Program | None = None
        self.last_answer: dict[str, Any] = {}  # the last decision's answer, extras included
        self._next_id = 0

    def start(self, hello: Mapping[str, Any]) -> None:
        """Make sure the program runs and was greeted with ``hello`` (a restart if it died)."""
        command = self.seat.command or _command(self.seat)
        self.program = program_for(command, self.seat.time_limit, hello)

    def tell(self, message: Mapping[str, Any]) -> None:
        """Queue an event for the program."""
        assert self.program is not None
        self.program.tell(message)

    def flush(self) -> None:
        """Write the queued events (at the end of a hand and of a game)."""
        assert self.program is not None
        self.program.flush()

    def decide(self, message: dict[str, Any]) -> str:
        """Ask a decision (``message`` has its legal moves); the answer, checked to be one of
        them and to carry the decision's id."""
        answer = self._ask(message, "decision", "move", '"move": ...')
        self.last_answer = answer
        move = answer.get("move")
        if move not in message["legal"]:
            raise OutsideFault(f"illegal move {json.dumps(move)[:40]} at a "
                               f"{message['decision']} decision: legal are "
                               + ", ".join(message["legal"]))
        return str(move)

    def lay_out(self, message: dict[str, Any]) -> Any:
        """Ask the defender of a knock its melds (``showdown``): the ``melds`` it declares
        (told to the other players), or None when it leaves them to ginbox."""
        return self._ask(message, "showdown", "layout", '"melds": [...]').get("melds")

    def _ask(self, message: dict[str, Any], question: str, kind: str,
             fields: str) -> dict[str, Any]:
        """Send a question under the next id; the answer, checked to be of ``kind`` and to
        carry that id (a resignation or any other answer is the program's fault)."""
        assert self.program is not None
        self._next_id += 1
        message["id"] = self._next_id
        answer = _not_resigned(self.program.ask(message))
        if answer.get("type") != kind or answer.get("id") != self._next_id:
            raise OutsideFault(f"answered {question} {self._next_id} with "
                               f"{json.dumps(answer)[:120]}: expected "
                               f'{{"type": "{kind}", "id": {self._next_id}, {fields}}}')
        return answer

    def confirm(self, message: Mapping[str, Any]) -> None:
        """Tell an event the program must acknowledge (the end of a hand, where an
        event-driven player does its own end-of-hand work): ``ready``, or a resignation."""
        assert self.program is not None
        answer = _not_resigned(self.program.ask(message))
        if answer.get("type") != "ready":
            raise OutsideFault(f"answered {message.get('type')} with "
                               f'{json.dumps(answer)[:120]}: expected {{"type": "ready"}}')

    def fail(self) -> None:
        """The program failed: stop it (the next game starts it again)."""
        if self.program is not None:
            drop_program(self.program)
            self.program = None


def _not_resigned(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer``, unless the program resigns the game (``{"type": "resign", "reason"}``)."""
    if answer.get("type") == "resign":
        raise OutsideFault("resigned: " + str(answer.get("reason") or "no reason given")[:200])
    return answer


def _command(seat: OutsideSeat) -> list[str]:
    """The command of a seat parsed without loading (checked now, at its first game)."""
    return list(outside_seat(f"{seat.kind}:{seat.target}", seat.kind,
                             seat.target + (f":classpath={seat.classpath}"
                                            if seat.classpath else ""), True).command)


def java_available() -> bool:
    """Both ``java`` and ``javac`` are on the PATH (what the EAAI bridge needs)."""
    return shutil.which("java") is not None and shutil.which("javac") is not None
