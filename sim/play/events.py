"""What a game tells its front ends, each as a small typed value: a move played
(:class:`Played`), a hand or a game finished (:class:`HandResult`, :class:`GameResult`), a
move refused (:class:`IllegalMove`), as :class:`sim.play.state.GameState` reports them. A
move's text is the move notation's (:mod:`strategies.moves`; :func:`move_name`,
:func:`move_code`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.engine.hand import ERR_BAD_MOVE, ERROR_TEXT
from strategies.moves import MoveTextError, parse_move
from strategies.moves import move_name as notation_name


class IllegalMove(ValueError):
    """A move the engine refuses at this decision: nothing changed. ``reason`` is the engine's
    text (``sim.engine.hand.ERROR_TEXT``)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


class StrategyError(RuntimeError):
    """A strategy answered with an illegal move, raised, or took too long to decide."""


def move_name(move: int) -> str:
    """An engine move as the hand log names it: ``pass``, ``draw_discard``, ``draw_stock``,
    ``knock``, ``no_knock``, or the card of a discard (``"9H"``): the notation's ``name``
    form (:mod:`strategies.moves`)."""
    return notation_name(move)


def move_code(move: int | str) -> int:
    """The engine code of a move given as a code or as text of the move notation
    (:func:`strategies.moves.parse_move`); IllegalMove for text that is no move."""
    if isinstance(move, str):
        try:
            return parse_move(move).code
        except MoveTextError:
            raise IllegalMove(f"{move!r} is not a move: expected pass, draw_discard, "
                              "draw_stock, knock, no_knock or a card such as 9H",
                              ERROR_TEXT[ERR_BAD_MOVE]) from None
    if isinstance(move, bool) or not isinstance(move, int | np.integer):
        raise IllegalMove(f"{move!r} is not a move: expected an engine move code or its name",
                          ERROR_TEXT[ERR_BAD_MOVE])
    return int(move)


@dataclass(frozen=True)
class Played:
    """One move as it happened: ``decider`` chose it for ``player`` (hand player 0 the
    dealer, 1 the non-dealer) whose seat is ``seat``; ``decision`` is the one it answered
    (``DEC_*``), -1 for the stock draw the rules force after two passes. ``top``: the pile's
    top card before the move (-1 if none); ``drawn``: the stock card a ``draw_stock`` took
    (private to the player), else -1."""

    hand: int
    seat: int
    player: int
    decider: int
    decision: int
    move: int
    top: int
    drawn: int

    @property
    def name(self) -> str:
        """The move as the hand log names it (:func:`move_name`)."""
        return move_name(self.move)


@dataclass(frozen=True)
class HandResult:
    """A finished hand: the hand log's ``result`` object in fields (seats, not hand players),
    the roles it was played in and every seat's score after it."""

    hand: int
    roles: tuple[int, ...]  # seats of the box (dealer), captain (non-dealer), sitter
    end: str  # knock, gin, undercut, draw, turn_limit
    knocker: int | None
    winner: int | None
    points: int
    knocker_melds: list[list[str]]
    knocker_deadwood: int | None
    defender_melds: list[list[str]]
    layoffs: list[str]
    defender_deadwood: int | None
    scores: tuple[int, ...]


@dataclass(frozen=True)
class GameResult:
    """A finished game: its winner, every seat's hand points (what counts towards the target)
    and final score (with the end-of-game bonuses), and the hands played."""

    winner: int
    scores: tuple[int, ...]
    final_scores: tuple[int, ...]
    hands: int
