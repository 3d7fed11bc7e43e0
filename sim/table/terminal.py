"""``ginbox play`` with a ``human`` seat: a person plays at the terminal against the bots.

Each game is a :class:`sim.table.human_table.Table`; this module only prints what the table shows
and reads the person's lines (notation: :mod:`strategies.human`). ``quit``, Ctrl-C or the end
of input stop the session cleanly: the finished hands are kept (and written to ``--log``
atomically), the hand in progress is dropped, since a hand-log line is a finished, scored
hand.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

from sim.analysis.formatting import plural
from sim.engine.hand import DEC_DISCARD, DEC_DRAW, DEC_KNOCK, DEC_OFFER
from sim.engine.rules import Rules
from sim.records.log import LogWriter
from sim.table.human_table import ROLE_NAMES, ROLE_NAMES_2, Table
from strategies.human import HELP, MoveError, legal_text, view_lines

PROMPTS = {DEC_OFFER: "take the upcard (p) or pass", DEC_DRAW: "draw (d) or take the pile (p)",
           DEC_KNOCK: "discard (x CARD) or knock (k CARD)", DEC_DISCARD: "discard (x CARD)"}


def status_lines(table: Table) -> list[str]:
    """What the asked seat sees before it answers: roles, scores, its cards in melds, the
    pile, the stock, the opponent's open cards, an advisor's suggestion, the legal moves."""
    names = ROLE_NAMES if table.rules.players == 3 else ROLE_NAMES_2
    seat = table.seat
    roles = "; ".join(f"{names[r]}: {table.label(s)}" for r, s in
                      enumerate(table.roles[:table.rules.players]))
    lines = [f"-- Game {table.game + 1}, hand {table.hand + 1} -- {roles}"]
    played_for = table.played_for
    if played_for != seat:
        lines.append(f"You ({table.label(seat)}) decide for the captain "
                     f"({table.label(played_for)}): these are his cards")
    scores = ", ".join(f"{table.label(s)} {v}" for s, v in enumerate(table.scores()))
    lines.append(f"Scores: {scores} (target {table.rules.target})")
    if table.rules.players == 3:
        policy = {"captain": "the sitter does not advise",
                  "advisor": "the sitter decides for the captain",
                  "consensus": "the sitter advises the captain"}[table.rules.team_policy]
        lines[-1] += f"; {policy}"
    lines += view_lines(table.view(), *table.opponent_play())
    if table.suggestion:
        lines.append(table.suggestion)
    lines.append(f"Legal: {legal_text(table.view())}")
    return lines


def hint_lines(table: Table) -> list[str]:
    """The judge's chance of winning the game after each option, best first."""
    hints = table.hints()
    shown = ", ".join(f"{h.move} {100 * h.value:.1f}%" for h in hints)
    worlds = table.hint_samples or "the judge's"
    return [f"hint (chance of winning the game; {worlds} worlds): {shown}"]


#: Said where the session's hands meet the log: the log, replay and review count from 0.
NUMBERING = ("games and hands count from 0 there, as replay and review show them: game 1, "
             "hand 1 here is game 0, hand 0 in the log")


def play_session(rules: Rules, strategies: Sequence[str] | str, seed: int, games: int,
                 log: str | None = None, stdin: TextIO | None = None,
                 stdout: TextIO | None = None) -> int:
    """Play ``games`` games at the terminal; write the finished hands to ``log`` if given.
    Returns the exit status (0, also after ``quit``)."""
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    Table(rules, strategies, seed, 0)  # refuse bad settings before a log file is created
    if log is None:
        records, stopped = _games(rules, strategies, seed, games, inp, out, None)
        print(f"{plural(len(records), 'hand')} finished (pass --log FILE to keep them)",
              file=out)
        return 0
    with LogWriter(log) as writer:
        records, stopped = _games(rules, strategies, seed, games, inp, out, writer)
    print(f"log: {plural(writer.count, 'hand')} written to {log} ({NUMBERING})", file=out)
    return 0


def _games(rules: Rules, strategies: Sequence[str] | str, seed: int, games: int,
           inp: TextIO, out: TextIO, writer: LogWriter | None) -> tuple[list[Any], bool]:
    kept: list[Any] = []
    for game in range(games):
        table = Table(rules, strategies, seed, game)
        stopped = _play_game(table, inp, out)
        kept += table.records
        if writer is not None:
            writer.write_all(table.records)
        if stopped:
            dropped = " (the hand in progress is dropped)" if table.in_hand else ""
            print(f"quit: {plural(len(table.records), 'finished hand')} of game {game + 1} "
                  f"kept{dropped}", file=out)
            return kept, True
        scores = ", ".join(f"{table.label(s)} {v}" for s, v in enumerate(
            table.records[-1].get("final_scores", table.scores())))
        print(f"Game {game + 1} final scores: {scores}", file=out)
        if game + 1 < games and not wait_for_enter("the next game", inp, out):
            return kept, True
    return kept, False


def _read(prompt: str, inp: TextIO, out: TextIO) -> str | None:
    """The person's line after ``prompt``; None when he quits (``quit``, Ctrl-C or the end
    of input)."""
    print(f"{prompt}> ", end="", file=out, flush=True)
    try:
        line = inp.readline()
    except KeyboardInterrupt:
        line = ""
    if not line or line.strip().lower() == "quit":
        print("", file=out)
        return None
    return line


def wait_for_enter(what: str, inp: TextIO, out: TextIO) -> bool:
    """Hold the screen until the person presses Enter; False when he quits."""
    return _read(f"Enter for {what} (or quit)", inp, out) is not None


def _show_events(table: Table, shown: int, inp: TextIO, out: TextIO) -> bool:
    """Print the events from ``shown`` on, holding after a showdown until Enter when
    another hand follows; False when the person quits there."""
    events = table.events
    for i in range(shown, len(events)):
        event = events[i]
        print(("\n" if event.kind in ("hand", "showdown") else "") + event.text, file=out)
        follows = events[i + 1].kind if i + 1 < len(events) else None
        if event.kind == "showdown" and follows == "hand" and \
                not wait_for_enter("the next hand", inp, out):
            return False
    return True


def _play_game(table: Table, inp: TextIO, out: TextIO) -> bool:
    """Play one game; True when the person quit."""
    shown = 0
    while True:
        if not _show_events(table, shown, inp, out):
            return True
        shown = len(table.events)
        if table.over:
            return False
        print("\n".join(status_lines(table)), file=out)
        while True:
            line = _read(PROMPTS[table.decision], inp, out)
            if line is None:
                return True
            word = line.strip().lower()
            if word == "help":
                print(HELP, file=out)
                continue
            if word == "hint":
                print("\n".join(hint_lines(table)), file=out, flush=True)
                continue
            try:
                table.play(line)
            except MoveError as exc:
                print(exc, file=out)
                continue
            break
