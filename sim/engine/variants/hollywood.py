"""Hollywood scoring: three games scored at once (docs/rules.md, "Hollywood scoring").

Under ``scoring = "hollywood"`` a seat's n-th won hand opens its n-th game (at most 3) and
scores in every open game it has opened; a seat that has opened no game still open opens the
first open one. Each game ends at the target with a standard game's bonuses; the match ends
with the third game, won by the highest total over the three (then the most games won, then
the lowest seat). The unit the tables and logs call a game is the match.

This module is the whole variant (hook points: :mod:`sim.engine.variants.base`):

* its blocks of the engine's arrays, as :class:`~sim.engine.layout.Layout`\\ s from 0: the
  sheet in the game state (:data:`SHEET`, appended to it as ``GS_HW_*``), its game facts
  (:data:`FACTS`, ``GI_*``) and its view slots (:data:`VIEW`, ``V_*``, documented for
  strategy writers in docs/builtins.md), read by name in Python through
  :func:`sheet_fields` and :func:`view_block_fields`;
* its kernels, which ``sim.engine.game`` and ``sim.engine.view`` call on those blocks behind
  ``if rules[RI_HOLLYWOOD]``: :func:`start`, :func:`enter`, :func:`end_match`,
  :func:`fill_facts`, :func:`fill_view`, :func:`games_won`;
* its declaration :data:`HOLLYWOOD`: presets, the ``scoring`` value, the ``hollywood`` object
  of the hand log (:func:`sheet_record`, :func:`load_sheet`), its lines in a hand told in
  words, its result columns and the View's fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict

import numpy as np

from sim.engine.jit import kernel
from sim.engine.layout import Layout, Record
from sim.engine.rules_array import (
    RI_GAME_BONUS,
    RI_HAND_BONUS,
    RI_PLAYERS,
    RI_SHUTOUT_BONUS,
    RI_SHUTOUT_DOUBLING,
    RI_TARGET,
)
from sim.engine.variants.base import Variant

GAMES = 3

#: The sheet, its block of the game state; "[k, s]" is slot 3 * k + s, game k 0..2.
SHEET = Layout("SH_", [
    ("OPENED", 3),  # by seat: games the seat has opened (its next win opens one more)
    ("SCORE", 9),  # [game, seat]: hand points entered in the game
    ("HANDS_WON", 9),  # [game, seat]: hands won entered in the game (its box bonus)
    ("WINNER", 3),  # by game: the seat that won it, -1 while it is open
    ("FINAL", 9),  # [game, seat]: points plus that game's bonuses, once it has ended
])
SH_OPENED, SH_SCORE, SH_HANDS_WON, SH_WINNER, SH_FINAL = SHEET.offsets
SHEET.check(globals())

#: Its block of the game facts the views are filled from (left 0 under standard scoring);
#: roles 0 (the dealer), 1 (the non-dealer), 2 (the sitter).
FACTS = Layout("HF_", [
    ("HOLLYWOOD", 1),  # 1 under Hollywood scoring
    ("GAME_SCORE", 9),  # [game, role] at 3 * game + role
    ("GAME_OPEN", 3),
    ("OPENED", 3),  # by role
])
HF_HOLLYWOOD, HF_GAME_SCORE, HF_GAME_OPEN, HF_OPENED = FACTS.offsets
FACTS.check(globals())

#: Its block of the view (all 0 under standard scoring, where the view's plain scores are the
#: scores; under Hollywood those are the first open game's).
VIEW = Layout("HV_", [
    ("HOLLYWOOD", 1),  # 1 under Hollywood scoring
    ("GAME_SCORE_SELF", 3),  # own points in games 1, 2, 3
    ("GAME_SCORE_OPP", 3),
    ("GAME_SCORE_OTHER", 3),  # the third player's (three-handed), else 0
    ("GAME_OPEN", 3),  # 1 while game 1, 2, 3 is still being played
    ("OPENED_SELF", 1),  # games opened, 0..3: the next win scores in games up to one more
    ("OPENED_OPP", 1),
    ("OPENED_OTHER", 1),
])
(HV_HOLLYWOOD, HV_GAME_SCORE_SELF, HV_GAME_SCORE_OPP, HV_GAME_SCORE_OTHER, HV_GAME_OPEN,
 HV_OPENED_SELF, HV_OPENED_OPP, HV_OPENED_OTHER) = VIEW.offsets
VIEW.check(globals())


def sheet_fields(sheet: np.ndarray) -> Record:
    """The sheet block by name (``sheet.winner[k]``, ``sheet.score[3 * k + s]``): how Python
    code reads it without ``SH_*`` offsets."""
    return SHEET.record(sheet)


def view_block_fields(block: np.ndarray) -> Record:
    """The view's Hollywood block by name (``block.game_score_self``), for Python code."""
    return VIEW.record(block)


# ------------------------------------------------------------------------------- compiled


@kernel
def start(sheet: np.ndarray) -> None:
    """A new match's sheet (the game state is zeroed before): every game open."""
    for k in range(GAMES):
        sheet[SH_WINNER + k] = -1


@kernel
def first_open_game(sheet: np.ndarray) -> int:
    """The first game still open (3 when all have ended): games end in order."""
    k = 0
    while k < GAMES and sheet[SH_WINNER + k] >= 0:
        k += 1
    return k


@kernel
def enter(sheet: np.ndarray, scores: np.ndarray, rules: np.ndarray, scorer: int,
          points: int) -> bool:
    """Enter a won hand's points on the sheet, ending the games it takes to the target; True
    when that ends the match (the caller then asks :func:`end_match`).

    The seat's n-th win opens its n-th game (at most 3) and scores in every open game it has
    opened; a seat that has opened no game still open (shut out of the games that ended)
    opens the first open one. ``scores`` (the game state's, by seat) sums the points entered
    over the games.
    """
    first = first_open_game(sheet)
    if first == GAMES:
        return False
    opened = max(sheet[SH_OPENED + scorer] + 1, first + 1)
    if opened > GAMES:
        opened = GAMES
    sheet[SH_OPENED + scorer] = opened
    for k in range(first, opened):
        at = SH_SCORE + 3 * k + scorer
        sheet[at] += points
        sheet[SH_HANDS_WON + 3 * k + scorer] += 1
        scores[scorer] += points
        if sheet[at] >= rules[RI_TARGET]:
            _end_game(sheet, rules, k, scorer)
    return sheet[SH_WINNER + GAMES - 1] >= 0  # games end in order: the third ends the match


@kernel
def _end_game(sheet: np.ndarray, rules: np.ndarray, k: int, winner: int) -> None:
    """Game ``k`` is won: every seat's total for it, with its bonuses (as a standard game's)."""
    sheet[SH_WINNER + k] = winner
    shutout = True
    for s in range(rules[RI_PLAYERS]):
        sheet[SH_FINAL + 3 * k + s] = (sheet[SH_SCORE + 3 * k + s] + rules[RI_HAND_BONUS]
                                       * sheet[SH_HANDS_WON + 3 * k + s])
        if s != winner and sheet[SH_SCORE + 3 * k + s] > 0:
            shutout = False
    at = SH_FINAL + 3 * k + winner
    sheet[at] += rules[RI_GAME_BONUS]
    if shutout:
        sheet[at] += rules[RI_SHUTOUT_BONUS]
        if rules[RI_SHUTOUT_DOUBLING]:
            sheet[at] *= 2


@kernel
def games_won(sheet: np.ndarray, seat: int) -> int:
    """How many of the three games ``seat`` has won (0 under standard scoring)."""
    won = 0
    for k in range(GAMES):
        if sheet[SH_WINNER + k] == seat:
            won += 1
    return won


@kernel
def all_games_ended(sheet: np.ndarray) -> bool:
    """Whether the third game, and so the match, has ended."""
    return sheet[SH_WINNER + GAMES - 1] >= 0


@kernel
def end_match(sheet: np.ndarray, scores: np.ndarray, bonuses: np.ndarray,
              rules: np.ndarray) -> int:
    """The match is over: each seat's bonuses (its total over the three games, bonuses
    included, less its ``scores``) go to ``bonuses``; returns the winner: the highest total,
    then the most games won, then (a tie on both, practically never seen) the lowest seat."""
    n = rules[RI_PLAYERS]
    for s in range(n):
        total = 0
        for k in range(GAMES):
            total += sheet[SH_FINAL + 3 * k + s]
        bonuses[s] = total - scores[s]
    best = 0
    for s in range(1, n):
        total = scores[s] + bonuses[s]
        best_total = scores[best] + bonuses[best]
        if total > best_total or (total == best_total and games_won(sheet, s)
                                  > games_won(sheet, best)):
            best = s
    return best


@kernel
def fill_facts(sheet: np.ndarray, role_seat: np.ndarray, plain_scores: np.ndarray,
               facts: np.ndarray) -> None:
    """Its game facts, by role (``role_seat``: the seat of each role, -1 for none): every
    game's scores, which games are open and how many each has opened. The plain scores by
    role (``plain_scores``: dealer, non-dealer, sitter) become those of the first open game,
    the one closest to its end, so score-aware strategies read the live race."""
    first = first_open_game(sheet)
    facts[HF_HOLLYWOOD] = 1
    for k in range(GAMES):
        facts[HF_GAME_OPEN + k] = 1 if sheet[SH_WINNER + k] < 0 else 0
    for r in range(3):
        seat = role_seat[r]
        facts[HF_OPENED + r] = sheet[SH_OPENED + seat] if seat >= 0 else 0
        for k in range(GAMES):
            facts[HF_GAME_SCORE + 3 * k + r] = (sheet[SH_SCORE + 3 * k + seat]
                                                if seat >= 0 else 0)
    if first < GAMES:
        for r in range(3):
            plain_scores[r] = facts[HF_GAME_SCORE + 3 * first + r]


@kernel
def fill_view(view: np.ndarray, facts: np.ndarray, p: int) -> None:
    """Its view slots for hand player ``p``: every game's scores, which games are open, and
    how many games each player has opened (all 0 when ``facts`` are, under standard
    scoring)."""
    o = 1 - p
    view[HV_HOLLYWOOD] = facts[HF_HOLLYWOOD]
    for k in range(GAMES):
        view[HV_GAME_SCORE_SELF + k] = facts[HF_GAME_SCORE + 3 * k + p]
        view[HV_GAME_SCORE_OPP + k] = facts[HF_GAME_SCORE + 3 * k + o]
        view[HV_GAME_SCORE_OTHER + k] = facts[HF_GAME_SCORE + 3 * k + 2]
        view[HV_GAME_OPEN + k] = facts[HF_GAME_OPEN + k]
    view[HV_OPENED_SELF] = facts[HF_OPENED + p]
    view[HV_OPENED_OPP] = facts[HF_OPENED + o]
    view[HV_OPENED_OTHER] = facts[HF_OPENED + 2]


# ------------------------------------------------------------------------------ the hand log


class HollywoodGameRecord(TypedDict):
    """One of the three games: points and hands won by seat, its winner (null while it is
    open) and, once ended, each seat's total with its bonuses."""

    scores: list[int]
    hands_won: list[int]
    winner: int | None
    final: list[int] | None


class HollywoodRecord(TypedDict):
    """The sheet after the hand: each seat's games opened, and the games."""

    opened: list[int]
    games: list[HollywoodGameRecord]


def sheet_record(sheet: np.ndarray, players: int) -> HollywoodRecord:
    """The ``hollywood`` object of a hand-log line: each seat's games opened, and per game its
    points and hands won by seat, its winner (null while open) and, once it has ended, each
    seat's total with the game's bonuses (``final``)."""
    def seats(slots: np.ndarray, at: int = 0) -> list[int]:
        return [int(v) for v in slots[at:at + players]]

    fields = sheet_fields(sheet)
    games: list[HollywoodGameRecord] = []
    for k in range(GAMES):
        winner = int(fields.winner[k])
        games.append({"scores": seats(fields.score, 3 * k),
                      "hands_won": seats(fields.hands_won, 3 * k),
                      "winner": winner if winner >= 0 else None,
                      "final": seats(fields.final, 3 * k) if winner >= 0 else None})
    return {"opened": seats(fields.opened), "games": games}


def _is_count(value: Any) -> bool:
    """A JSON integer >= 0 (bools are not integers here)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def load_sheet(value: Any, sheet: np.ndarray, players: int,
               show: Callable[[Any], str] = repr) -> None:
    """Put a record's ``hollywood`` object back on a sheet (``ValueError`` if it is not one):
    what a replay continues the next hand from. ``show`` writes a bad value in the message."""
    def ints(v: Any, where: str) -> list[int]:
        if not isinstance(v, list) or len(v) != players or not all(_is_count(x) for x in v):
            raise ValueError(f"'hollywood.{where}' is {show(v)}, not {players} integers >= 0")
        return v

    if not isinstance(value, dict) or not isinstance(value.get("games"), list) or len(
            value["games"]) != GAMES or not all(isinstance(g, dict) for g in value["games"]):
        raise ValueError(f"'hollywood' is {show(value)}, not an object with 'opened' and 3 "
                         "'games'")
    fields = sheet_fields(sheet)
    for s, v in enumerate(ints(value.get("opened"), "opened")):
        fields.opened[s] = v
    for k, game in enumerate(value["games"]):
        winner = game.get("winner")
        if winner is not None and not (_is_count(winner) and winner < players):
            raise ValueError(f"'hollywood.games[{k}].winner' is {show(winner)}, not a seat or "
                             "null")
        fields.winner[k] = -1 if winner is None else winner
        for slots, key in ((fields.score, "scores"), (fields.hands_won, "hands_won"),
                           (fields.final, "final")):
            if key == "final" and winner is None:
                continue
            for s, v in enumerate(ints(game.get(key), f"games[{k}].{key}")):
                slots[3 * k + s] = v


# --------------------------------------------------------------------------- words, results


def _score_lines(value: Any, rules: Any) -> list[str]:
    """The sheet after the hand: each game's points by seat, open or won."""
    out = [f"Hollywood sheet after the hand (target {rules.target} in each game):"]
    for k, game in enumerate(value.get("games") or []):
        points = ", ".join(f"seat {s} {v}" for s, v in enumerate(game.get("scores") or []))
        if game.get("winner") is None:
            state = "open"
        else:
            finals = ", ".join(f"seat {s} {v}" for s, v in enumerate(game.get("final") or []))
            state = f"won by seat {game['winner']}; with its bonuses {finals}"
        out.append(f"  game {k + 1}: {points} ({state})")
    return out


def _game_over_line(record: Mapping[str, Any], winner: str) -> str:
    totals = record.get("final_scores") or []
    return (f"Match over: all three games have ended; {winner} wins the match on the total, "
            "bonuses included (" + ", ".join(f"seat {s} {v}" for s, v in enumerate(totals))
            + ").")


def _summary_lines(table: Any, games: int, width: int) -> list[str]:
    """Per match, by seat: games of the three won and points (bonuses included)."""
    lines = ["Hollywood scoring: a game above is a match of three games; per match:"]
    for row in table.itertuples():
        lines.append(f"{row.seat:>4}  {row.strategy:<{width}}  games won "
                     f"{row.hollywood_games_won / max(games, 1):.2f} of 3, points "
                     f"{row.final_points / max(games, 1):,.1f} (bonuses included)")
    return lines


def _view_fields(view: np.ndarray) -> dict[str, Any]:
    """The View's Hollywood fields from its view block (none under standard scoring)."""
    seen = view_block_fields(view)
    if not seen.hollywood:
        return {}

    def three(slots: np.ndarray) -> tuple[int, ...]:
        return tuple(int(v) for v in slots)

    return {
        "hollywood": True, "game_scores": three(seen.game_score_self),
        "opponent_game_scores": three(seen.game_score_opp),
        "other_game_scores": three(seen.game_score_other),
        "games_open": tuple(bool(v) for v in seen.game_open),
        "games_opened": int(seen.opened_self),
        "opponent_games_opened": int(seen.opened_opp),
        "other_games_opened": int(seen.opened_other),
    }


def _view_array(view: Any, block: np.ndarray) -> None:
    """Its view block from a View (left 0 under standard scoring, as the engine leaves it)."""
    if not view.hollywood:
        return
    fields = view_block_fields(block)
    fields.hollywood = 1
    fields.game_score_self = view.game_scores[:GAMES]
    fields.game_score_opp = view.opponent_game_scores[:GAMES]
    fields.game_score_other = view.other_game_scores[:GAMES]
    fields.game_open = [int(v) for v in view.games_open[:GAMES]]
    fields.opened_self = view.games_opened
    fields.opened_opp = view.opponent_games_opened
    fields.opened_other = view.other_games_opened


#: Hollywood's fields and its bonuses per game (docs/rules.md, "Hollywood scoring"): 100 per
#: game, 20 per hand won in it, a shutout doubling the game's total.
FIELDS: dict[str, Any] = {
    "hand_bonus": 20,
    "game_bonus": 100,
    "shutout_bonus": 0,
    "scoring": "hollywood",
    "shutout_doubling": True,
}

HOLLYWOOD = Variant(
    name="hollywood",
    played=lambda rules: rules.scoring == "hollywood",
    rules_slots={"HOLLYWOOD": lambda rules: int(rules.scoring == "hollywood")},
    # classic play scored Hollywood, and the ruling for three players (docs/rules.md)
    presets={"hollywood": ("classic", FIELDS), "three-handed-hollywood": (None, FIELDS)},
    field_values={"scoring": ("hollywood",)},
    later_defaults={"scoring": "standard"},
    record_key="hollywood",
    write_record=sheet_record,
    read_record=load_sheet,
    replays_final_scores=True,
    score_lines=_score_lines,
    game_over_line=_game_over_line,
    # games of the match won, by seat (1 for the winner of a standard game)
    game_columns=tuple(f"games_won_{s}" for s in range(3)),
    summary_columns=(("hollywood_games_won", "games_won"), ("final_points", "final")),
    summary_lines=_summary_lines,
    view_fields=_view_fields,
    view_array=_view_array,
)
