"""Hand logs on disk: JSON Lines written atomically, read back with validation, as a DataFrame.

One line per hand, in play order, in the format of the hand log section of docs/cli.md (keys)
and docs/api.md ("Hand logs"). Lines are compact JSON with a fixed key order, so the same games
give the same bytes. Writing goes to a temporary file in the target's directory that is renamed
over the target only once everything was written and synced: a crash, an exception or Ctrl-C
never leaves a half-written log (or clobbers an older one).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "hands.jsonl"
>>> from sim.play.driver import play_games
>>> records = play_games("simple,simple,simple", games=1, seed=3, log=True).log
>>> write_log(path, records) == len(records)
True
>>> read_log(path) == records
True
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, cast

import numpy as np

from sim.engine import hand as engine_hand
from sim.engine.cards import card_str, parse_card
from sim.engine.game import (
    SITTER,
    STATE_BLOCKS,
    game_fields,
)
from sim.engine.hand import (
    DISCARD_NAME,
    END_DRAW,
    END_TURN_LIMIT,
    LOG_END_NAMES,
    LOG_MOVE_NAMES,
    hand_fields,
)
from sim.engine.rules import Rules, is_int
from sim.engine.showdown import describe_layout
from sim.engine.variants import played_by
from sim.io.files import clean_stale_temps, fsync_path, temp_path
from sim.records import limits
from sim.records.limits import shown
from sim.records.schema import (
    HandRecord,
    MoveRecord,
    ResultRecord,
)
from strategies.moves import Move, move_record

#: Top-level keys every hand record has, in the order they are written.
RECORD_KEYS: tuple[str, ...] = (
    "game", "hand", "rules", "seats", "dealer", "nondealer", "sitter", "deal", "moves",
    "result", "scores", "game_over", "game_winner",
)
DEAL_KEYS: tuple[str, ...] = ("dealer", "nondealer", "upcard", "stock")
MOVE_KEYS: tuple[str, ...] = ("seat", "move", "card")
RESULT_KEYS: tuple[str, ...] = (
    "end", "knocker", "knocker_melds", "knocker_deadwood", "defender_melds", "layoffs",
    "defender_deadwood", "winner", "points",
)
#: Names a log's ``move`` and ``result.end`` may hold (from the engine's one table of names).
MOVE_NAMES: tuple[str, ...] = LOG_MOVE_NAMES
END_NAMES: tuple[str, ...] = LOG_END_NAMES


# ---------------------------------------------------------------------------------- writing


def _ordered(d: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    """Known keys in their documented order, then any extra keys sorted (deterministic)."""
    out = {k: d[k] for k in known if k in d}
    for k in sorted(k for k in d if k not in out):
        out[k] = _sorted(d[k])
    return out


def _sorted(value: Any) -> Any:
    """Extra (undocumented) values: dictionaries at any depth get sorted keys."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    return value


def canonical_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record with every key in its canonical order (what :func:`dumps_record` writes)."""
    out = _ordered(record, RECORD_KEYS)
    if isinstance(out.get("deal"), dict):
        out["deal"] = _ordered(out["deal"], DEAL_KEYS)
    if isinstance(out.get("moves"), list):
        out["moves"] = [_ordered(m, MOVE_KEYS) if isinstance(m, dict) else m
                        for m in out["moves"]]
    if isinstance(out.get("result"), dict):
        out["result"] = _ordered(out["result"], RESULT_KEYS)
    return out


def _json_default(obj: Any) -> Any:
    """numpy scalars and arrays sneak into records built by hand; write them as plain JSON."""
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"a hand record holds {type(obj).__name__} {shown(obj)}, which JSON cannot "
                    "store")


def dumps_record(record: Mapping[str, Any]) -> str:
    """One log line (without the newline): compact JSON, canonical key order."""
    return json.dumps(canonical_record(record), separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False, default=_json_default)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class LogWriter:
    """Stream hand records to a JSON Lines file that appears only when complete.

    Use as a context manager; records go to a temporary file next to ``path``, which replaces
    ``path`` on a clean exit and is deleted if the block raises. Memory use does not grow with
    the number of records, so it suits logs of any length::

        with LogWriter("hands.jsonl") as log:
            for records in batches:
                log.write_all(records)

    What ``path`` may be: a new or an existing regular file (it keeps its permission bits); a
    symbolic link, written through (the file it points at is replaced, the link stays); a
    device, FIFO or socket (``/dev/null``, ``/dev/stdout``, a pipe), written into directly,
    since there is no file to replace. A read-only file is refused (``PermissionError``)
    whoever runs, never replaced; so is a directory. The temporary is named
    as :func:`sim.io.files.temp_path` names them; a writer starting on ``path`` deletes
    those of processes that no longer run (a kill -9 cannot clean up after itself).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.count = 0
        self._tmp: Path | None = None
        self._target: Path | None = None  # the regular file the temporary replaces
        self._file: Any = None

    def __enter__(self) -> LogWriter:
        try:
            st: os.stat_result | None = os.stat(self.path)  # through symbolic links
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(self.path))
        if st is not None and not stat.S_ISREG(st.st_mode):
            self._file = open(self.path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
            return self
        target = Path(os.path.realpath(self.path))
        if st is not None:
            mode = stat.S_IMODE(st.st_mode)
            if not mode & 0o222 or not os.access(target, os.W_OK):
                raise PermissionError(errno.EACCES, f"the file is read-only (mode {mode:04o}); "
                                      "make it writable or choose another file", str(self.path))
        else:
            mode = 0o666 & ~_umask()  # what open() would give a new file
        clean_stale_temps(target)
        tmp = temp_path(target)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._tmp, self._target = tmp, target
        try:
            os.fchmod(fd, mode)
            self._file = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        except BaseException:
            os.close(fd)
            self._abort()
            raise
        return self

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one hand record."""
        if self._file is None:
            raise ValueError("LogWriter.write outside its 'with' block")
        line = dumps_record(record)  # serialise first: a bad record writes nothing
        self._file.write(line + "\n")
        self.count += 1

    def write_all(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Append several hand records."""
        for record in records:
            self.write(record)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None:
            self._commit()
        else:
            self._abort()

    def _commit(self) -> None:
        assert self._file is not None
        try:
            self._file.flush()
            if self._tmp is not None:
                os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            if self._tmp is not None and self._target is not None:
                os.replace(self._tmp, self._target)
                self._tmp = None
                fsync_path(self._target.parent)
        except BaseException:
            self._abort()
            raise

    def _abort(self) -> None:
        """Close and delete the temporary; a close that fails (a full disk fails again while
        flushing) must not keep the delete from happening."""
        try:
            if self._file is not None:
                file, self._file = self._file, None
                try:
                    file.close()
                except OSError:
                    pass
        finally:
            if self._tmp is not None:
                self._tmp.unlink(missing_ok=True)
                self._tmp = None


def check_log_target(path: str | os.PathLike[str]) -> None:
    """Raise the ``OSError`` a :class:`LogWriter` on ``path`` would raise on entering, writing
    nothing: for a caller that writes its log long after it was given the name (a learning
    environment), so a bad name fails at once. A regular target is probed by creating and
    deleting the writer's temporary; a device or FIFO only by its permissions (opening a FIFO
    would wait for a reader)."""
    try:
        st: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISDIR(st.st_mode) and not stat.S_ISREG(st.st_mode):
        if not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return
    LogWriter(path).__enter__()._abort()


def write_log(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any]]) -> int:
    """Write hand records to ``path`` atomically; return how many lines were written."""
    with LogWriter(path) as writer:
        writer.write_all(records)
    return writer.count


# --------------------------------------------------------------------------------- building


def hand_record(rules: Rules, seat_names: Sequence[str], game: int, hand: int,
                roles: Sequence[int], *, dealt: np.ndarray, hs: np.ndarray, moves: np.ndarray,
                gs: np.ndarray) -> HandRecord:
    """One line of the hand log from a finished, scored hand (format: docs/cli.md, "The hand
    log"): ``roles`` are the seats of the box (dealer), captain and sitter during the hand,
    ``dealt`` the deck it was dealt from, ``gs`` the game state after ``end_hand``. The
    arrays are keyword-only: four int64 buffers are easy to pass in the wrong order. Written
    here, beside the readers, for every front end (``sim.play.state.GameState``, the
    learning environments of ``sim.env``), so all of them write the same bytes."""
    hand_seat = list(roles[:2])
    game_state = game_fields(gs)
    move_list: list[MoveRecord] = []
    for player, move in moves[: int(hand_fields(hs).n_moves)]:
        seat = hand_seat[int(player)]
        move_list.append(cast(MoveRecord, move_record(seat, Move.of_code(int(move)))))
    record: HandRecord = {
        "game": game,
        "hand": hand,
        "rules": rules.name,
        "seats": list(seat_names),
        "dealer": int(roles[0]),
        "nondealer": int(roles[1]),
        "sitter": int(roles[SITTER]) if rules.players == 3 else None,
        "deal": {
            "dealer": [card_str(int(c)) for c in dealt[0:10]],
            "nondealer": [card_str(int(c)) for c in dealt[10:20]],
            "upcard": card_str(int(dealt[20])),
            "stock": [card_str(int(c)) for c in dealt[21:]],
        },
        "moves": move_list,
        "result": hand_result(hs, hand_seat),
        "scores": [int(v) for v in game_state.score[:rules.players]],
        "game_over": bool(game_state.over),
        "game_winner": int(game_state.winner) if game_state.over else None,
        "rules_config": rules.to_dict(),
        "endings": endings_record(gs, rules.players),
    }
    if rules.team_policy == "advisor" and rules.players == 3:
        record["advisor"] = int(roles[SITTER])
    for variant in played_by(rules):  # each variant's object, after the game's facts
        if variant.record_key is not None and variant.write_record is not None:
            cast(dict[str, Any], record)[variant.record_key] = variant.write_record(
                gs[STATE_BLOCKS[variant.name]], rules.players)
    if game_state.over:  # hand points plus end-of-game bonuses (classic scoring)
        record["final_scores"] = [int(v) for v in (game_state.score + game_state.bonus)[
            :rules.players]]
    return record


#: The keys of a record's ``endings``, each a list by seat (``GS_KNOCKS``, ``GS_GINS``,
#: ``GS_KNOCK_DEADWOOD`` of the game state after the hand).
ENDING_KEYS: tuple[str, ...] = ("knocks", "gins", "knock_deadwood")


def endings_record(gs: np.ndarray, players: int) -> dict[str, list[int]]:
    """How each seat ended the game's hands so far: hands ended by his knock with deadwood, by
    his gin, and the most deadwood he knocked with; what the views of the next hand show."""
    game = game_fields(gs)
    return {key: [int(v) for v in getattr(game, key)[:players]] for key in ENDING_KEYS}


def hand_result(hs: np.ndarray, hand_seat: Sequence[int]) -> ResultRecord:
    """The ``result`` object of a hand-log line from a finished hand state.

    ``hand_seat`` maps hand players (0 the dealer, 1 the non-dealer) to seats.
    """
    hand = hand_fields(hs)
    end = int(hand.end)
    name = engine_hand.END_NAMES[end]
    if end == END_DRAW or end == END_TURN_LIMIT:
        return {"end": name, "knocker": None, "knocker_melds": [], "knocker_deadwood": None,
                "defender_melds": [], "layoffs": [], "defender_deadwood": None,
                "winner": None, "points": 0}
    k_melds, d_melds, layoffs, _, _ = describe_layout(
        int(hand.knocker_hand), int(hand.defender_hand),
        [int(j) for j in hand.knocker_melds[:int(hand.n_knocker_melds)]],
        [int(j) for j in hand.defender_melds[:int(hand.n_defender_melds)]],
        int(hand.layoffs),
    )
    return {
        "end": name,
        "knocker": hand_seat[int(hand.knocker)],
        "knocker_melds": k_melds,
        "knocker_deadwood": int(hand.knocker_deadwood),
        "defender_melds": d_melds,
        "layoffs": layoffs,
        "defender_deadwood": int(hand.defender_deadwood),
        "winner": hand_seat[int(hand.winner)],
        "points": int(hand.points),
    }


def settle_declared_in(hs: np.ndarray, knocker_melds: Sequence[Sequence[str]],
                       defender_melds: Sequence[Sequence[str]]) -> int:
    """Settle the knock that ended hand state ``hs`` the EAAI framework's way on declared
    melds (card texts, the knocker's in the order he laid them): what a front end with
    outside players does under ``showdown = "eaai"`` and what the replay of its log line
    (``declared``) does again. Returns :func:`sim.engine.hand.settle_declared_hand`'s outcome."""
    def masks(melds: Sequence[Sequence[str]]) -> np.ndarray:
        out = [sum(1 << parse_card(c) for c in meld) for meld in melds]
        return np.array(out + [0], np.int64)  # never empty: a compiled call's array

    return int(engine_hand.settle_declared_hand(hs, masks(knocker_melds), len(knocker_melds),
                                                masks(defender_melds), len(defender_melds)))


def rules_of(record: Mapping[str, Any]) -> Rules:
    """The rules a record was played under: its ``rules_config`` if present, else the preset."""
    config = record.get("rules_config")
    if config is not None:
        if not isinstance(config, dict):
            raise ValueError(f"'rules_config' is {shown(config)}, not an object of rules fields")
        return Rules.from_dict(config)
    return Rules.preset(record["rules"])


# ---------------------------------------------------------------------------------- reading


def _opt_int(value: Any) -> bool:
    return value is None or is_int(value, numpy=False)


def _check_card(value: Any, where: str) -> None:
    if not isinstance(value, str):
        raise ValueError(f"'{where}' is {shown(value)}, not a card string such as 'KD'")
    try:
        parse_card(value)
    except ValueError as exc:
        raise ValueError(f"'{where}': {exc}") from None


def _check_cards(value: Any, where: str) -> None:
    if not isinstance(value, list):
        raise ValueError(f"'{where}' is {shown(value)}, not a list of cards")
    for i, card in enumerate(value):
        _check_card(card, f"{where}[{i}]")


def _check_melds(value: Any, where: str) -> None:
    if not isinstance(value, list):
        raise ValueError(f"'{where}' is {shown(value)}, not a list of melds")
    for i, meld in enumerate(value):
        _check_cards(meld, f"{where}[{i}]")


def check_record(record: Any) -> None:
    """Raise ``ValueError`` saying what is wrong if ``record`` is not a well-formed hand record.

    Checks the structure and card strings only; whether the hand follows the rules is
    :func:`sim.records.replay.replay_hand`'s job.
    """
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object (one hand), got {type(record).__name__}")
    missing = [k for k in RECORD_KEYS if k not in record]
    if missing:
        raise ValueError("missing key(s) " + ", ".join(repr(k) for k in missing))
    for key in ("game", "hand"):  # numbered as the engine numbers them: 64-bit, from 0
        if not is_int(record[key], numpy=False) or not 0 <= record[key] <= limits.INT_MAX:
            raise ValueError(f"'{key}' is {shown(record[key])}, not an integer "
                             f"0..{limits.INT_MAX}")
    if not isinstance(record["rules"], str):
        raise ValueError(f"'rules' is {shown(record['rules'])}, not a preset name")
    seats = record["seats"]
    if not isinstance(seats, list) or len(seats) not in (2, 3) or not all(
            isinstance(s, str) for s in seats):
        raise ValueError(f"'seats' is {shown(seats)}, not a list of 2 or 3 strategy names")
    n = len(seats)
    for key in ("dealer", "nondealer"):
        if not is_int(record[key], numpy=False) or not 0 <= record[key] < n:
            raise ValueError(f"'{key}' is {shown(record[key])}, not a seat 0..{n - 1}")
    if not _opt_int(record["sitter"]):
        raise ValueError(f"'sitter' is {shown(record['sitter'])}, not a seat or null")
    deal = record["deal"]
    if not isinstance(deal, dict):
        raise ValueError(f"'deal' is {shown(deal)}, not an object")
    missing = [k for k in DEAL_KEYS if k not in deal]
    if missing:
        raise ValueError("missing key(s) " + ", ".join(f"'deal.{k}'" for k in missing))
    _check_cards(deal["dealer"], "deal.dealer")
    _check_cards(deal["nondealer"], "deal.nondealer")
    _check_card(deal["upcard"], "deal.upcard")
    _check_cards(deal["stock"], "deal.stock")
    moves = record["moves"]
    if not isinstance(moves, list):
        raise ValueError(f"'moves' is {shown(moves)}, not a list")
    for i, move in enumerate(moves):
        if not isinstance(move, dict) or "seat" not in move or "move" not in move:
            raise ValueError(f"'moves[{i}]' is {shown(move)}, not an object with 'seat' and 'move'")
        if not is_int(move["seat"], numpy=False):
            raise ValueError(f"'moves[{i}].seat' is {shown(move['seat'])}, not a seat number")
        if move["move"] not in MOVE_NAMES:
            raise ValueError(f"'moves[{i}].move' is {shown(move['move'])}: expected one of "
                             + ", ".join(MOVE_NAMES))
        if move["move"] == DISCARD_NAME:
            if "card" not in move:
                raise ValueError(f"'moves[{i}]' is a discard without a 'card'")
            _check_card(move["card"], f"moves[{i}].card")
    result = record["result"]
    if not isinstance(result, dict):
        raise ValueError(f"'result' is {shown(result)}, not an object")
    missing = [k for k in RESULT_KEYS if k not in result]
    if missing:
        raise ValueError("missing key(s) " + ", ".join(f"'result.{k}'" for k in missing))
    ended = record.get("ended_by")  # a game a player's fault ended (docs/outside-players.md)
    if ended is not None and not (isinstance(ended, dict) and isinstance(ended.get("reason"), str)
                                  and is_int(ended.get("seat"), numpy=False)
                                  and 0 <= ended["seat"] < n):
        raise ValueError(f"'ended_by' is {shown(ended)}, not {{\"seat\": N, \"reason\": TEXT}}")
    if result["end"] not in END_NAMES and (result["end"] != "forfeit" or ended is None):
        raise ValueError(f"'result.end' is {shown(result['end'])}: expected one of "
                         + ", ".join(END_NAMES) + " (or forfeit, with ended_by)")
    for key in ("knocker", "winner", "knocker_deadwood", "defender_deadwood"):
        if not _opt_int(result[key]):
            raise ValueError(f"'result.{key}' is {shown(result[key])}, not an integer or null")
    if not is_int(result["points"], numpy=False):
        raise ValueError(f"'result.points' is {shown(result['points'])}, not an integer")
    declared = record.get("declared")  # melds a knock was settled on (showdown = "eaai")
    if declared is not None:
        if not (isinstance(declared, dict) and set(declared) == {"knocker", "defender"}):
            raise ValueError(f"'declared' is {shown(declared)}, not {{\"knocker\": MELDS, "
                             "\"defender\": MELDS}")
        _check_melds(declared["knocker"], "declared.knocker")
        _check_melds(declared["defender"], "declared.defender")
    _check_melds(result["knocker_melds"], "result.knocker_melds")
    _check_melds(result["defender_melds"], "result.defender_melds")
    _check_cards(result["layoffs"], "result.layoffs")
    scores = record["scores"]
    if not isinstance(scores, list) or len(scores) != n or not all(
            is_int(s, numpy=False) for s in scores):
        raise ValueError(f"'scores' is {shown(scores)}, not a list of {n} integers (one per seat)")
    endings = record.get("endings")  # optional: how each seat ended the hands so far
    if endings is not None and not (
            isinstance(endings, dict) and set(endings) == set(ENDING_KEYS)
            and all(isinstance(v, list) and len(v) == n
                    and all(is_int(x, numpy=False) and 0 <= x <= limits.INT_MAX for x in v)
                    for v in endings.values())):
        raise ValueError(f"'endings' is {shown(endings)}, not {{\"knocks\": [...], \"gins\": "
                         f"[...], \"knock_deadwood\": [...]}} with {n} counts each (one per seat)")
    if not isinstance(record["game_over"], bool):
        raise ValueError(f"'game_over' is {shown(record['game_over'])}, not true or false")
    if not _opt_int(record["game_winner"]):
        raise ValueError(f"'game_winner' is {shown(record['game_winner'])}, not a seat or null")


def iter_log(path: str | os.PathLike[str], max_line_bytes: int | None = None,
             check: Callable[[Any], None] | None = None) -> Iterator[dict[str, Any]]:
    """Yield the hand records of a log one by one, validating each line.

    Blank lines are skipped. A line that is not UTF-8, not JSON, not an object or not a
    well-formed hand record (:func:`check_record`, or ``check`` when given: the replay's
    fuller check of one line), a line longer than ``max_line_bytes`` (default
    :data:`sim.records.limits.MAX_LINE_BYTES`), an integer beyond 64 bits or values nested
    too deep raise ``ValueError("FILE:LINE: what is wrong")``, with long values cut short
    (:mod:`sim.records.limits`). Memory holds one line at a time. A file that cannot be
    opened raises ``OSError``.
    """
    limit = limits.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    with open(path, "rb") as f:
        lines = limits.bounded_lines(f, limit)
        for lineno in itertools.count(1):
            try:
                raw = next(lines, None)
                if raw is None:
                    return
                record = _read_line(raw, check or check_record)
            except ValueError as exc:
                raise ValueError(limits.shorten(f"{path}:{lineno}: {exc}")) from None
            if record is not None:
                yield record


def _read_line(raw: bytes, check: Callable[[Any], None]) -> dict[str, Any] | None:
    """One line's hand record, checked (None for a blank line); ValueError says why not."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text; is this a hand log?") from None
    if not text.strip():
        return None
    record = limits.parse_line(text)
    check(record)
    return record


def read_log(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All hand records of a log file, validated (see :func:`iter_log`)."""
    return list(iter_log(path))

