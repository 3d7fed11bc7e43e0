"""The hand-log record's shape, for the type checker: one line of a hand log as typed dicts.

The format itself is documented in docs/cli.md ("The hand log") and checked on reading by
:func:`sim.records.log.check_record`; these types let mypy follow a record from
:func:`sim.records.log.hand_record`, which writes every front end's lines, to its readers.
Cards are text (``"9H"``), seats numbers; ``None`` stands for JSON's null.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from sim.engine.variants.hollywood import HollywoodRecord


class DealRecord(TypedDict):
    """The deck a hand was dealt from: each hand's ten cards, the upcard, the stock from the
    top."""

    dealer: list[str]
    nondealer: list[str]
    upcard: str
    stock: list[str]


class MoveRecord(TypedDict):
    """One move: the seat that made it, its name, and the card for a discard."""

    seat: int
    move: str
    card: NotRequired[str]


class ResultRecord(TypedDict):
    """How the hand ended: the knocker's and defender's melds and deadwood, the lay-offs, the
    winner and the points (the knocker and the counts are null in a draw)."""

    end: str
    knocker: int | None
    knocker_melds: list[list[str]]
    knocker_deadwood: int | None
    defender_melds: list[list[str]]
    layoffs: list[str]
    defender_deadwood: int | None
    winner: int | None
    points: int


class HandRecord(TypedDict):
    """One line of the hand log: a finished, scored hand and the game's state after it."""

    game: int
    hand: int
    rules: str
    seats: list[str]
    dealer: int
    nondealer: int
    sitter: int | None
    deal: DealRecord
    moves: list[MoveRecord]
    result: ResultRecord
    scores: list[int]
    game_over: bool
    game_winner: int | None
    rules_config: dict[str, Any]
    advisor: NotRequired[int]
    hollywood: NotRequired[HollywoodRecord]
    final_scores: NotRequired[list[int]]
    # how each seat ended the game's hands so far, after this one (sim.engine.game GS_KNOCKS..):
    # {"knocks": [by seat], "gins": [by seat], "knock_deadwood": [by seat, the most]}
    endings: NotRequired[dict[str, list[int]]]
    # the last line of a game a player's fault ended: {"seat": N, "reason": "..."}
    ended_by: NotRequired[dict[str, Any]]
    # a knock settled on declared melds (showdown = "eaai" with an outside player):
    # {"knocker": melds in the order laid, "defender": melds}
    declared: NotRequired[dict[str, list[list[str]]]]
    # written by the learning environments: game env_game of seed env_seed deals the same cards
    env_seed: NotRequired[int | None]
    env_game: NotRequired[int]
