"""Every decision of a logged hand, as the mover saw it.

:func:`iter_decision_points` rebuilds a hand-log record as a game object
(:meth:`sim.play.state.GameState.from_record`: the record's rules, roles, deal and the scores
it starts from, every seat the caller's), plays the recorded moves through it and stops at
each decision to yield what the deciding seat saw: the view array, the rules' turn scratch,
who decided and what was played. Decisions the log does not write are included: a knock the
mover could have made and did not (the answer ``no_knock``). The draw forced after both
players pass the upcard is no decision and is skipped.

``sim.analysis.explain`` (why did ``mc`` play that?) and ``sim.review`` (how much did each
decision cost?) both read decisions from here, so they see the same positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
)
from sim.engine.view import View
from sim.play.events import IllegalMove
from sim.play.state import GameState
from sim.records.replay import scores_before as scores_before
from strategies.moves import Move, move_of_record, move_str

#: The kinds of decision, by the engine's decision code.
KINDS = {DEC_OFFER: "take", DEC_DRAW: "draw", DEC_KNOCK: "knock", DEC_DISCARD: "discard"}
#: Stages of a hand by the cards left in the stock (31 after the deal): the first third of
#: the stock, the second, and the last.
STAGES = (("early", 21), ("middle", 11), ("late", 0))


def stage_of(stock_left: int) -> str:
    """``early`` while 21 or more cards are left in the stock, ``middle`` from 20 to 11,
    ``late`` from 10 down."""
    return next(name for name, least in STAGES if stock_left >= least)


@dataclass(frozen=True)
class DecisionPoint:
    """One decision of a logged hand.

    ``index``: the recorded move that answered it (for a declined knock, which the log does
    not write, the discard that followed); ``decision``: the engine's code (``DEC_*``) and
    ``kind`` its name (``take``, ``draw``, ``knock``, ``discard``); ``player``: the hand player
    (0 dealer, 1 non-dealer); ``seat``: the seat whose hand it is; ``decider``: the seat whose
    strategy decided (the sitter when he advises the captain); ``played``: the answer as an
    option names it (``"pass"``, ``"draw_discard"``, ``"draw_stock"``, ``"knock"``,
    ``"no_knock"`` or a card such as ``"9H"``); ``legal``: how many answers were legal;
    ``stock_left`` and ``turn``: cards left in the stock and turns completed this hand;
    ``view`` and ``after``: what the mover decided from (copies); ``pile``: the discard
    pile then, bottom first (:attr:`seen` reads the view with it).
    """

    index: int
    decision: int
    kind: str
    player: int
    seat: int
    decider: int
    played: str
    legal: int
    stock_left: int
    turn: int
    view: np.ndarray
    after: np.ndarray
    pile: tuple[int, ...] = ()

    @property
    def seen(self) -> View:
        """The view as the View a strategy is handed (cards, pile, scores as the mover saw
        them)."""
        return View.from_arrays(self.view, self.pile)

    @property
    def stage(self) -> str:
        """The stage of the hand (:func:`stage_of`)."""
        return stage_of(self.stock_left)


def iter_decision_points(record: dict[str, Any],
                         previous: dict[str, Any] | None = None) -> Iterator[DecisionPoint]:
    """Yield every decision of ``record`` in play order (see the module docstring).
    ``previous``: the same game's previous hand, for the scores (and Hollywood sheet) the
    hand starts from. Raises ValueError for a move the rules refuse or a record that stops
    before its hand is over (``replay_hand`` says more), unless a player's fault ended it
    there (``ended_by``)."""
    moves = record["moves"]
    state = GameState.from_record(record, previous)
    while state.waiting:
        i = state.moves_this_hand  # the forced draw after two passes is logged
        if i >= len(moves):
            if record.get("ended_by") is not None:  # a forfeit: its decisions end at the fault
                return
            raise ValueError(f"the record stops after {len(moves)} moves, before the hand "
                             "is over")
        answer, played = _answer(state.decision_code, moves[i])
        p, seat = state.hand_player, state.seat
        assert p is not None and seat is not None
        view, after = state.view_array.copy(), state.after.copy()
        yield DecisionPoint(
            index=i, decision=state.decision_code, kind=KINDS[state.decision_code], player=p,
            seat=state.roles[p], decider=seat, played=played, legal=len(state.legal_moves()),
            stock_left=state.stock_left, turn=state.turn, view=view, after=after,
            pile=state.discard_pile)
        try:
            state.play(answer)
        except IllegalMove as exc:
            raise ValueError(f"move {i} ({played}) is illegal: {exc.reason}") from None


def _answer(decision: int, recorded: dict[str, Any]) -> tuple[int, str]:
    """The engine move that answers ``decision`` as the recorded move says, and its name."""
    if decision == DEC_KNOCK:
        move = Move("knock" if recorded["move"] == "knock" else "no_knock")
    else:
        move = move_of_record(recorded)
    return move.code, move_str(move)
