"""Replay a logged hand through the rules, and tell it the way a card player would.

:func:`replay_hand` rebuilds the deck from the record's deal and feeds the recorded moves to the
very same compiled kernels that played the game (:func:`sim.engine.hand.deal`,
:func:`sim.engine.hand.advance`, :func:`sim.engine.hand.apply_move`,
:func:`sim.engine.game.end_hand`), so there is no second copy of the rules
that could drift. It then compares what the rules give with what the record says, field by
field, and reports every difference in words instead of raising: a log edited by hand, or
written by another program, can be checked line by line.

What a clean replay proves: the record is what *this* engine's kernels make of its deal and
moves (every move legal for them, the same result, scores and roles). What it does not prove:
that those kernels follow docs/rules.md. A rule bug in ``deal``, ``apply_move`` or the
showdown would be made again by the replay and pass unseen; the rules are checked
independently by the test suite, whose referee (``tests/support/referee.py``) re-plays logs in
plain Python with a brute-force oracle for deadwood and showdowns.

:func:`render_hand` (``sim.records.render``, re-exported here) prints a hand move by move, the
way a card player would tell it.

A record that cannot even be replayed (a deal that is not a 52-card deck, seats that do not
match the rules, a malformed line) raises ``ValueError``: that is bad input, not a rule question.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from sim.engine.cards import card_str, fan, parse_card, sort_for_display
from sim.engine.game import (
    GS_LEN,
    STATE_BLOCKS,
    end_hand,
    game_fields,
    start_variants,
)
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    ERROR_TEXT,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    deal,
    hand_fields,
    new_hand_buffers,
)
from sim.engine.melds import merge_runs
from sim.engine.rules import Rules
from sim.engine.variants import played_by
from sim.records.limits import shown
from sim.records.log import (
    ENDING_KEYS,
    RESULT_KEYS,
    check_record,
    endings_record,
    hand_result,
    rules_of,
    settle_declared_in,
)
from sim.records.render import render_hand
from strategies.moves import MoveTextError, move_of_record, move_str

_DECISION_TEXT = {
    DEC_OFFER: "take the upcard or pass",
    DEC_DRAW: "draw from the stock or the discard pile",
    DEC_KNOCK: "knock or not",
    DEC_DISCARD: "discard",
}
_DECK_PARTS = (("dealer", 10), ("nondealer", 10), ("upcard", 1), ("stock", 31))


@dataclass
class ReplayCheck:
    """The verdict on one logged hand.

    ``ok`` is True when the recorded moves are legal, complete, and the recorded result, scores
    and game end are those the rules give. ``differences`` says what differs, one sentence
    each (``"result.points: recorded 31, rules give 29"``). ``result`` is the result the rules
    give (None when the moves do not complete a legal hand); ``scores`` the scores after the
    hand the rules give (None when the previous scores were unknown); ``next_roles`` the roles
    of the next hand by the rotation (dealer, non-dealer, sitter). ``text`` is the rendered hand
    followed by the verdict.
    """

    game: int
    hand: int
    ok: bool
    differences: list[str]
    result: Mapping[str, Any] | None
    scores: list[int] | None
    game_over: bool | None
    game_winner: int | None
    next_roles: tuple[int, int, int | None] | None
    notes: list[str] = field(default_factory=list)
    _render: Callable[[], str] | None = field(default=None, repr=False, compare=False)
    _text: str | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> str:
        """The rendered hand and the verdict (rendered on first use: checking is cheaper)."""
        if self._text is None:
            body = self._render() if self._render is not None else ""
            self._text = body + "\n" + _verdict_text(self)
        return self._text

    @property
    def verdict(self) -> str:
        """One line: does the record agree with the rules?"""
        if self.ok:
            return f"game {self.game} hand {self.hand}: the record matches the rules"
        return (f"game {self.game} hand {self.hand}: the record differs from the rules in "
                f"{len(self.differences)} place(s)")


# ---------------------------------------------------------------------------------- helpers


def _where(record: Mapping[str, Any]) -> str:
    return f"game {record.get('game')} hand {record.get('hand')}"


def _roles(record: Mapping[str, Any], rules: Rules) -> tuple[int, int, int | None]:
    """(dealer, non-dealer, sitter) seats, checked against the rules' number of players."""
    n = rules.players
    if len(record["seats"]) != n:
        raise ValueError(f"{rules.name} rules seat {n} players but the record has "
                         f"{len(record['seats'])} seats")
    dealer, nondealer, sitter = record["dealer"], record["nondealer"], record["sitter"]
    seats = [dealer, nondealer] + ([sitter] if n == 3 else [])
    if sorted(s for s in seats if s is not None) != list(range(n)) or (
            n == 2 and sitter is not None):
        accepted = ("dealer, nondealer and sitter a permutation of seats 0, 1, 2" if n == 3
                    else "dealer and nondealer seats 0 and 1 and sitter null")
        raise ValueError(f"roles dealer={dealer}, nondealer={nondealer}, sitter={sitter} are "
                         f"not valid: expected {accepted}")
    return dealer, nondealer, sitter


def deck_of(record: Mapping[str, Any]) -> np.ndarray:
    """The 52 card codes in deal order: dealer 10, non-dealer 10, upcard, stock 31."""
    d = record["deal"]
    codes: list[int] = []
    for key, size in _DECK_PARTS:
        cards = [d[key]] if key == "upcard" else d[key]
        if len(cards) != size:
            raise ValueError(f"deal.{key} holds {len(cards)} cards, expected {size}")
        codes.extend(parse_card(c) for c in cards)
    seen: dict[int, int] = {}
    for c in codes:
        seen[c] = seen.get(c, 0) + 1
    twice = [card_str(c) for c in sorted(seen) if seen[c] > 1]
    if twice:
        missing = [card_str(c) for c in sort_for_display(_ALL_CARDS) if c not in seen]
        raise ValueError("the deal is not a 52-card deck: " + " ".join(twice)
                         + " dealt more than once, " + (" ".join(missing) or "nothing")
                         + " missing")
    return np.array(codes, np.int64)


_ALL_CARDS = [s * 16 + r for s in range(4) for r in range(13)]


def check_hand_record(record: Any) -> None:
    """What one hand-log line must hold on its own before it can be replayed, ``ValueError``
    saying what is wrong: its structure (:func:`sim.records.log.check_record`), rules that
    load, roles that fit them and a 52-card deal. A reader passes it to
    :func:`sim.records.log.iter_log`, so a malformed line is named by file and line."""
    _read_hand(record)


def _read_hand(record: Any) -> tuple[Rules, tuple[int, int, int | None], np.ndarray]:
    """A well-formed record's rules, roles (dealer, non-dealer, sitter) and deck."""
    check_record(record)
    rules = rules_of(record)
    return rules, _roles(record, rules), deck_of(record)


def _norm_melds(melds: Any) -> Any:
    """Melds compared as sets of cards, with touching runs joined (3+3 = a run of 6)."""
    try:
        masks = [sum(1 << parse_card(c) for c in meld) for meld in melds]
        return sorted(merge_runs(masks))
    except (ValueError, TypeError):
        return melds


def _norm(key: str, value: Any) -> Any:
    if key in ("knocker_melds", "defender_melds"):
        return _norm_melds(value)
    if key == "layoffs":
        try:
            return sorted(parse_card(c) for c in value)
        except (ValueError, TypeError):
            return value
    return value


def _fmt(value: Any) -> str:
    """A value as it reads in a difference message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        if value and all(isinstance(v, list) for v in value):
            return " | ".join(" ".join(map(str, m)) for m in value) or "none"
        return "[" + " ".join(map(str, value)) + "]" if value else "none"
    return str(value)


def _move_text(i: int, m: dict[str, Any]) -> str:
    try:
        text = move_str(move_of_record(m), "spelled")
    except MoveTextError:  # told as logged
        card = f" {m['card']}" if m.get("move") == "discard" else ""
        text = f"{m.get('move')}{card}"
    return f"move {i + 1} (seat {m.get('seat')} {text})"


# ---------------------------------------------------------------------------------- replay


def _play_moves(record: Mapping[str, Any], rules_array: np.ndarray, deck: np.ndarray,
                hand_seat: Sequence[int]) -> tuple[np.ndarray | None, list[str]]:
    """Feed the recorded moves to the hand kernels; the final state (None if incomplete; a
    hand cut short by a forfeit must be incomplete, and gives its state where it stopped)."""
    cut_short = record["result"]["end"] == FORFEIT
    recorded = record["moves"]
    hs, pile, after, moves = new_hand_buffers(len(recorded) + 4)
    diffs: list[str] = []
    deal(hs, pile, deck, rules_array)
    hand = hand_fields(hs)
    i = 0
    while True:
        n_before = int(hand.n_moves)
        decision = advance(hs, pile, deck, after, moves)
        if int(hand.n_moves) > n_before:  # the kernel played a forced move itself
            seat = hand_seat[int(moves[n_before, 0])]
            forced = int(moves[n_before, 1])
            assert forced == MOVE_DRAW_STOCK
            m = recorded[i] if i < len(recorded) else None
            if m is None or m["seat"] != seat or m["move"] != "draw_stock":
                got = _move_text(i, m) if m is not None else f"move {i + 1} missing"
                diffs.append(f"{got}: both players passed the upcard, so the rules make seat "
                             f"{seat} draw from the stock")
                return None, diffs
            i += 1
        if decision == DEC_OVER:
            if cut_short:
                diffs.append("result.end: recorded forfeit, but the recorded moves end the hand")
                return None, diffs
            break
        seat = hand_seat[int(hand.to_move)]
        if decision == DEC_KNOCK:
            m = recorded[i] if i < len(recorded) else None
            knocks = m is not None and m["move"] == "knock" and m["seat"] == seat
            move = MOVE_KNOCK if knocks else MOVE_NO_KNOCK
            err = apply_move(hs, pile, deck, after, moves, move)
            assert err == OK, ERROR_TEXT[err]
            if knocks:
                i += 1
            continue
        if i >= len(recorded) and cut_short:
            return hs, diffs
        if i >= len(recorded):
            diffs.append(f"moves: the record ends after {len(recorded)} moves but the hand "
                         f"is not over: seat {seat} must {_DECISION_TEXT[decision]}")
            return None, diffs
        m = recorded[i]
        if m["seat"] != seat:
            diffs.append(f"{_move_text(i, m)}: it is seat {seat}'s turn to "
                         f"{_DECISION_TEXT[decision]}")
            return None, diffs
        move = move_of_record(m).code
        err = apply_move(hs, pile, deck, after, moves, move)
        if err != OK:
            diffs.append(f"{_move_text(i, m)} is illegal: {ERROR_TEXT[err]} (seat {seat} "
                         f"must {_DECISION_TEXT[decision]})")
            return None, diffs
        i += 1
    if i < len(recorded):
        diffs.append(f"moves: the hand ended after move {i} but the record has "
                     f"{len(recorded) - i} more, from {_move_text(i, recorded[i])}")
    return hs, diffs


def _replay(record: Mapping[str, Any], previous: Mapping[str, Any] | None,
            expected_roles: tuple[int, int, int | None] | None,
            previous_over: bool) -> ReplayCheck:
    where = _where(record)
    try:
        rules, (dealer, nondealer, sitter), deck = _read_hand(record)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    n = rules.players
    hand_seat = (dealer, nondealer)
    rules_array = rules.to_array()
    diffs: list[str] = []
    notes: list[str] = []
    if previous_over:
        diffs.append("hand: the game was already over after the previous hand")
    if expected_roles is not None and expected_roles != (dealer, nondealer, sitter):
        names = ("dealer", "nondealer", "sitter")[:n]
        got = ", ".join(f"{k} {v}" for k, v in zip(names, (dealer, nondealer, sitter),
                                                     strict=False))
        want = ", ".join(f"{k} {v}" for k, v in zip(names, expected_roles, strict=False))
        diffs.append(f"roles: recorded {got}; the rotation after the previous hand gives {want}")

    prev_scores: list[int] | None = None
    if previous is not None:
        if previous.get("game") != record["game"] or previous.get("hand") != record["hand"] - 1:
            raise ValueError(f"{where}: the previous record is {_where(previous)}, expected "
                             f"game {record['game']} hand {record['hand'] - 1}")
        prev_scores = list(previous["scores"])
        if len(prev_scores) != n:
            raise ValueError(f"{where}: the previous hand's scores {prev_scores} do not have "
                             f"{n} entries")
    elif record["hand"] == 0:
        prev_scores = [0] * n
    else:
        notes.append("scores not checked: the previous hand of this game was not given")

    hs, move_diffs = _play_moves(record, rules_array, deck, hand_seat)
    diffs.extend(move_diffs)
    declared = record.get("declared")
    if hs is not None and declared is not None:  # settled on the melds the players declared
        if hand_fields(hs).knocker < 0:
            diffs.append("declared: melds are recorded, but the hand did not end with a knock")
        elif settle_declared_in(hs, declared["knocker"], declared["defender"]) < 0:
            diffs.append("declared: melds the EAAI framework refuses (a forfeit, not a result)")
    result = scores = game_winner = next_roles = None
    game_over = None
    ended_by = record.get("ended_by")
    cut_short = ended_by is not None and record["result"]["end"] == FORFEIT
    if ended_by is not None:
        diffs.extend(_forfeit_differences(record, prev_scores))
    if cut_short:  # nothing to score: the hand stopped at the fault
        result, scores = cast(Mapping[str, Any], record["result"]), prev_scores
    elif hs is None:
        diffs.append("result: not checked, the recorded moves do not make a complete legal hand")
    else:
        result = cast(Mapping[str, Any], hand_result(hs, hand_seat))  # read by key name
        recorded = record["result"]
        for key in RESULT_KEYS:
            if _norm(key, recorded[key]) != _norm(key, result[key]):
                diffs.append(f"result.{key}: recorded {_fmt(recorded[key])}, "
                             f"rules give {_fmt(result[key])}")
        gs = game_state_before(record, previous, prev_scores or [0] * n)
        end_hand(gs, hs, rules_array)
        after_hand = game_fields(gs)
        roles = [int(r) for r in after_hand.role_seat]
        next_roles = (roles[0], roles[1], roles[2] if n == 3 else None)
        if prev_scores is not None:
            scores = [int(v) for v in after_hand.score[:n]]
            game_over = bool(after_hand.over)
            game_winner = int(after_hand.winner) if game_over else None
            compared: list[tuple[str, Any, Any]] = [("scores", record["scores"], scores),
                        ("game_over", record["game_over"], game_over),
                        ("game_winner", record["game_winner"], game_winner)]
            if record.get("endings") is not None and (
                    previous is None or previous.get("endings") is not None):
                compared.append(("endings", record["endings"], endings_record(gs, n)))
            for variant in played_by(rules):  # each variant's object in the record
                if variant.record_key is not None and variant.write_record is not None:
                    compared.append((variant.record_key, record.get(variant.record_key),
                                     variant.write_record(gs[STATE_BLOCKS[variant.name]], n)))
                if variant.replays_final_scores:
                    finals = [int(v) for v in (after_hand.score + after_hand.bonus)[:n]]
                    compared.append(("final_scores", record.get("final_scores"),
                                     finals if game_over else None))
            if ended_by is not None:  # the fault ended the game: checked above
                compared = [c for c in compared if c[0] not in ("game_over", "game_winner",
                                                                "final_scores")]
            for key, got, want in compared:
                if got != want:
                    diffs.append(f"{key}: recorded {_fmt(got)}, rules give {_fmt(want)}")
    if ended_by is not None:  # the game ends here, won by the seat the record names
        game_over, game_winner, next_roles = True, record["game_winner"], None
    check = ReplayCheck(
        game=record["game"], hand=record["hand"], ok=not diffs, differences=diffs,
        result=result, scores=scores, game_over=game_over, game_winner=game_winner,
        next_roles=next_roles, notes=notes,
        _render=lambda: render_hand(record, previous=previous, next_roles=next_roles),
    )
    return check


#: The ``result.end`` of a hand a player's fault cut short (docs/outside-players.md).
FORFEIT = "forfeit"


def _forfeit_differences(record: Mapping[str, Any], prev_scores: list[int] | None) -> list[str]:
    """What is wrong with a game's last line that ``ended_by`` a fault: the game must be over
    and won by another seat; a hand cut short keeps the scores and has an empty result."""
    diffs = []
    offender = record["ended_by"]["seat"]
    if record["game_over"] is not True:
        diffs.append("game_over: a game ended by a fault (ended_by) must be over")
    winner = record["game_winner"]
    if winner is None or winner == offender or not 0 <= winner < len(record["seats"]):
        diffs.append(f"game_winner: recorded {_fmt(winner)}, expected a seat other than the "
                     f"offender {offender}")
    if record["result"]["end"] == FORFEIT:
        empty: dict[str, Any] = {"knocker": None, "knocker_melds": [], "knocker_deadwood": None,
                 "defender_melds": [], "layoffs": [], "defender_deadwood": None,
                 "winner": None, "points": 0}
        for key, want in empty.items():
            if record["result"][key] != want:
                diffs.append(f"result.{key}: recorded {_fmt(record['result'][key])}, a "
                             f"forfeit gives {_fmt(want)}")
        if prev_scores is not None and list(record["scores"]) != prev_scores:
            diffs.append(f"scores: recorded {_fmt(record['scores'])}, a forfeit keeps "
                         f"{_fmt(prev_scores)}")
    return diffs


def game_state_before(record: Mapping[str, Any], previous: Mapping[str, Any] | None,
                      scores: Sequence[int]) -> np.ndarray:
    """The game state at the start of a logged hand: its roles, ``scores`` (each seat's,
    before the hand), the hand number and, under Hollywood scoring, the sheet the previous
    hand left (``ValueError`` when that record's sheet is not one). The replay scores the hand
    on it; a review fills each view's game facts from it (``sim.engine.game.fill_game_info``)."""
    rules = rules_of(record)
    n = rules.players
    gs = np.zeros(GS_LEN, np.int64)
    game = game_fields(gs)
    game.role_seat = [-1 if seat is None else seat
                      for seat in (record["dealer"], record["nondealer"], record["sitter"])]
    game.score[:len(scores)] = scores
    game.hands = record["hand"]
    game.winner = -1
    endings = endings_before(record, previous)
    if endings is not None:
        for key in ENDING_KEYS:
            getattr(game, key)[:n] = endings[key]
    start_variants(gs)
    for variant in played_by(rules):  # each variant's object the previous hand left
        if previous is not None and variant.record_key is not None and (
                variant.read_record is not None):
            try:
                variant.read_record(previous.get(variant.record_key),
                                    gs[STATE_BLOCKS[variant.name]], n, shown)
            except ValueError as exc:
                raise ValueError(f"{_where(record)}: the previous hand's {exc}") from None
    return gs


def _verdict_text(check: ReplayCheck) -> str:
    lines = []
    if check.ok:
        lines.append("Check: the recorded moves are legal and the recorded result, scores and "
                     "game end are the ones the rules give.")
    else:
        lines.append("Check: THE RECORD DIFFERS FROM THE RULES:")
        lines.extend(f"  - {d}" for d in check.differences)
    lines.extend(f"  ({note})" for note in check.notes)
    return "\n".join(lines)


def replay_hand(record: Mapping[str, Any],
                previous: Mapping[str, Any] | None = None) -> ReplayCheck:
    """Re-run one logged hand through the rules and compare.

    ``previous`` is the record of the same game's previous hand, whose scores the hand's
    scores build on; hand 0 starts from zero. Without it (for a later hand) the scores and
    game end are not checked, which the check's ``notes`` say.
    """
    return _replay(record, previous, None, False)


def replay_game(records: Sequence[dict[str, Any]]) -> list[ReplayCheck]:
    """Check every hand of one game in order, chaining scores and the role rotation.

    The records must be the game's hands 0, 1, 2, ... in order, all under the same rules
    (``ValueError`` otherwise).
    Besides each hand on its own, a hand is flagged when its roles are not the rotation after
    the previous hand, or when the game was already over.
    """
    if not records:
        return []
    game = records[0].get("game")
    hands = [r.get("hand") for r in records]
    if any(r.get("game") != game for r in records) or hands != list(range(len(records))):
        raise ValueError(f"game {game}: expected its hands 0, 1, 2, ... in order, got hands "
                         + ", ".join(map(str, hands)))
    first = records[0]
    for r in records[1:]:
        for key in ("rules", "rules_config"):
            if r.get(key) != first.get(key):
                raise ValueError(f"game {game} hand {r.get('hand')}: the rules change mid-game "
                                 f"({key} differs from hand {first.get('hand')}'s): a game is "
                                 "played under one set of rules")
    checks: list[ReplayCheck] = []
    previous: Mapping[str, Any] | None = None
    prev_check: ReplayCheck | None = None
    for record in records:
        expected = prev_check.next_roles if prev_check is not None and prev_check.ok else None
        over = bool(previous is not None and previous.get("game_over") is True)
        check = _replay(record, previous, expected, over)
        checks.append(check)
        previous, prev_check = record, check
    return checks


def group_games(records: Iterable[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """Records by game number, in the order the games first appear, hands in file order."""
    games: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        games.setdefault(r["game"], []).append(r)
    return games


def stream_games(records: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """The records one game at a time, holding only that game: for logs of any size.

    Each game's hands must be together, as ginbox writes them; a game that comes back after
    another game raises ``ValueError`` (:func:`group_games` accepts that, at the price of
    holding the whole log).
    """
    finished: set[int] = set()
    current: list[dict[str, Any]] = []
    for r in records:
        game = r["game"]
        if current and game != current[0]["game"]:
            finished.add(current[0]["game"])
            yield current
            current = []
        if not current and game in finished:
            raise ValueError(f"game {game} hand {r.get('hand')}: game {game} already appeared "
                             "before other games; a hand log keeps each game's hands together")
        current.append(r)
    if current:
        yield current


def replay_log(records: Iterable[dict[str, Any]]) -> list[ReplayCheck]:
    """Check every hand of every game in a log (see :func:`replay_game`)."""
    return [c for recs in group_games(records).values() for c in replay_game(recs)]


def endings_before(record: Mapping[str, Any],
                   previous: Mapping[str, Any] | None) -> dict[str, list[int]] | None:
    """How each seat had ended the game's hands before a logged hand (the record's
    ``endings`` less its own hand): the previous hand's, none for hand 0; without the
    previous record, the record's own less its hand's knock or gin (the most deadwood
    knocked with is then the record's, which may be the hand's own). None when neither
    record holds them (a log written elsewhere)."""
    if record.get("hand") == 0:
        return None
    if previous is not None and previous.get("endings") is not None:
        return {key: [int(v) for v in previous["endings"][key]] for key in ENDING_KEYS}
    own = record.get("endings")
    if own is None:
        return None
    endings = {key: [int(v) for v in own[key]] for key in ENDING_KEYS}
    result = record.get("result") or {}
    knocker = result.get("knocker")
    if (isinstance(knocker, int) and 0 <= knocker < len(endings["knocks"])
            and result.get("end") in ("knock", "gin", "undercut")):
        key = "gins" if result["end"] == "gin" else "knocks"
        endings[key][int(knocker)] = max(0, endings[key][int(knocker)] - 1)
        if key == "knocks" and endings["knocks"][int(knocker)] == 0:
            endings["knock_deadwood"][int(knocker)] = 0
    return endings


def scores_before(record: Mapping[str, Any], previous: Mapping[str, Any] | None) -> list[int]:
    """Each seat's score before a logged hand: the previous hand's, zero for hand 0, and
    without the previous record the scores after the hand less the winner's points."""
    if previous is not None:
        return [int(s) for s in previous["scores"]]
    scores = [int(s) for s in record["scores"]]
    if record.get("hand") == 0:
        return [0] * len(scores)
    result = record.get("result") or {}
    if result.get("winner") is not None:
        scores[int(result["winner"])] -= int(result.get("points", 0))
    return scores


__all__ = [
    "ReplayCheck", "check_hand_record", "deck_of", "fan", "group_games", "render_hand",
    "endings_before", "replay_game", "replay_hand", "replay_log", "rules_of", "scores_before",
    "stream_games",
]
