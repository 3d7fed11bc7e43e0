"""Every decision of a logged hand, as the mover saw it.

:func:`iter_decision_points` replays a hand-log record through the engine's own kernels
(``deal``, ``advance``, ``apply_move``; the game facts by
:func:`sim.engine.game.fill_game_info` on the state :func:`sim.records.replay.game_state_before`
rebuilds) and stops at each decision to yield what the deciding seat saw: the view array, the
rules' turn scratch, who decided and what was played. Decisions the log does not write are
included: a knock the mover could have made and did not (the answer ``no_knock``). The draw
forced after both players pass the upcard is no decision and is skipped.

``sim.analysis.explain`` (why did ``mc`` play that?) and ``sim.review`` (how much did each
decision cost?) both read decisions from here, so they see the same positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.engine.cards import parse_card
from sim.engine.game import GS_ROLE_SEAT, decider_seat, fill_game_info
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    ERROR_TEXT,
    HS_N_MOVES,
    HS_TO_MOVE,
    MOVE_CODES,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.view import GI_LEN, V_LEN, V_STOCK, V_TURN, fill_view, legal_moves
from sim.records.log import rules_of
from sim.records.replay import deck_of, game_state_before

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
    ``view`` and ``after``: what the mover decided from (copies).
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

    @property
    def stage(self) -> str:
        """The stage of the hand (:func:`stage_of`)."""
        return stage_of(self.stock_left)


def scores_before(record: dict[str, Any], previous: dict[str, Any] | None) -> list[int]:
    """Each seat's score before the hand: the previous hand's, zero for hand 0, and without
    the previous record the scores after the hand less the winner's points."""
    if previous is not None:
        return [int(s) for s in previous["scores"]]
    scores = [int(s) for s in record["scores"]]
    if record.get("hand") == 0:
        return [0] * len(scores)
    result = record.get("result") or {}
    if result.get("winner") is not None:
        scores[int(result["winner"])] -= int(result.get("points", 0))
    return scores


def iter_decision_points(record: dict[str, Any],
                         previous: dict[str, Any] | None = None) -> Iterator[DecisionPoint]:
    """Yield every decision of ``record`` in play order (see the module docstring).
    ``previous``: the same game's previous hand, for the scores (and Hollywood sheet) the
    hand starts from. Raises ValueError for a move the rules refuse or a record that stops
    before its hand is over (``replay_hand`` says more)."""
    rules = rules_of(record)
    rules_array = rules.to_array()
    moves = record["moves"]
    gs = game_state_before(record, previous, scores_before(record, previous))
    info = np.zeros(GI_LEN, np.int64)
    fill_game_info(gs, rules_array, info)
    hs, pile, after, log = new_hand_buffers(len(moves) + 4)
    deck = deck_of(record)
    deal(hs, pile, deck, rules_array)
    view = np.zeros(V_LEN, np.int64)
    legal = np.zeros(16, np.int64)
    i = 0
    while True:
        n_logged = int(hs[HS_N_MOVES])
        decision = advance(hs, pile, deck, after, log)
        i += int(hs[HS_N_MOVES]) - n_logged  # the forced draw after two passes is logged
        if decision == DEC_OVER:
            return
        if i >= len(moves):
            raise ValueError(f"the record stops after {len(moves)} moves, before the hand "
                             "is over")
        recorded = moves[i]
        if decision == DEC_KNOCK:
            answer = MOVE_KNOCK if recorded["move"] == "knock" else MOVE_NO_KNOCK
            played = "knock" if answer == MOVE_KNOCK else "no_knock"
        elif recorded["move"] == "discard":
            answer, played = parse_card(recorded["card"]), str(recorded["card"])
        else:
            answer, played = MOVE_CODES[recorded["move"]], str(recorded["move"])
        player = int(hs[HS_TO_MOVE])
        fill_view(view, hs, pile, info, decision)
        scratch = after.copy()
        n_legal = legal_moves(view, scratch, legal)
        yield DecisionPoint(
            index=i, decision=int(decision), kind=KINDS[int(decision)], player=player,
            seat=int(gs[GS_ROLE_SEAT + player]), decider=int(decider_seat(gs, rules_array, player)),
            played=played, legal=int(n_legal), stock_left=int(view[V_STOCK]),
            turn=int(view[V_TURN]), view=view.copy(), after=after.copy())
        err = apply_move(hs, pile, deck, after, log, answer)
        if err != OK:
            raise ValueError(f"move {i} ({played}) is illegal: {ERROR_TEXT[err]}")
        i += int(answer != MOVE_NO_KNOCK)
