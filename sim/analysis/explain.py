"""Why did ``mc`` play that? Its option values at any decision of a logged hand.

:func:`decision_view` replays a hand-log record (``ginbox play --log``, ``play_games(...,
log=True)``) through the engine's own kernels up to one recorded move and returns the view
array the mover decided from, with the scores before the hand. :func:`explain_move` hands
that view to ``mc``'s search (:func:`strategies.mc_options.option_values`)::

    from sim.play.driver import play_games
    from sim.records.explain import explain_move

    hand = play_games("mc,simple", rules="eaai", games=1, seed=3, log=True).log[0]
    for option in explain_move(hand, 1):  # move 1: the first discard
        print(option.move, f"{option.value:.3f}", "<- plays" if option.chosen else "")
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.engine.cards import parse_card
from sim.engine.hand import (
    DEC_KNOCK,
    DEC_OVER,
    HS_N_MOVES,
    MOVE_CODES,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.view import (
    GI_LEN,
    GI_PLAYERS,
    GI_SCORE,
    GI_SCORE_OTHER,
    GI_TARGET,
    V_LEN,
    fill_view,
)
from sim.records.log import rules_of
from sim.records.replay import deck_of
from strategies.mc_options import Option, option_values


def _scores_before(record: dict[str, Any]) -> list[int]:
    """Each seat's score before the hand: after it, less the winner's points."""
    scores = [int(s) for s in record["scores"]]
    result = record.get("result") or {}
    if result.get("winner") is not None:
        scores[int(result["winner"])] -= int(result.get("points", 0))
    return scores


def decision_view(record: dict[str, Any], index: int) -> tuple[np.ndarray, np.ndarray]:
    """The view array (and the rules' turn scratch) of the decision that recorded move
    ``index`` (0-based in ``record["moves"]``) answered. A knock's view is the knock
    decision; a discard's, the discard. Raises ValueError for a forced move or an index
    outside the hand."""
    moves = record["moves"]
    if not 0 <= index < len(moves):
        raise ValueError(f"move {index} is not in this hand: it has moves 0..{len(moves) - 1}")
    rules = rules_of(record)
    scores = _scores_before(record)
    info = np.zeros(GI_LEN, np.int64)
    info[GI_SCORE] = scores[int(record["dealer"])]
    info[GI_SCORE + 1] = scores[int(record["nondealer"])]
    sitter = record.get("sitter")
    info[GI_SCORE_OTHER] = scores[int(sitter)] if sitter is not None else 0
    info[GI_TARGET] = rules.target
    info[GI_PLAYERS] = rules.players
    hs, pile, after, log = new_hand_buffers(len(moves) + 4)
    deck = deck_of(record)
    deal(hs, pile, deck, rules.to_array())
    view = np.zeros(V_LEN, np.int64)
    i = 0
    while True:
        n_logged = int(hs[HS_N_MOVES])
        decision = advance(hs, pile, deck, after, log)
        if int(hs[HS_N_MOVES]) > n_logged:  # a forced draw from the stock
            if i == index:
                raise ValueError(f"move {index} was forced (both passed the upcard): "
                                 "there was no choice to explain")
            i += 1
        if decision == DEC_OVER:
            break
        m = moves[i] if i < len(moves) else None
        if decision == DEC_KNOCK:
            knocks = m is not None and m["move"] == "knock"
            if knocks and i == index:
                fill_view(view, hs, pile, info, decision)
                return view, after
            apply_move(hs, pile, deck, after, log, MOVE_KNOCK if knocks else MOVE_NO_KNOCK)
            i += int(knocks)
            continue
        if m is None:
            break
        if i == index:
            fill_view(view, hs, pile, info, decision)
            return view, after
        move = parse_card(m["card"]) if m["move"] == "discard" else MOVE_CODES[m["move"]]
        if apply_move(hs, pile, deck, after, log, move) != OK:
            raise ValueError(f"move {i} of the record is illegal: replay_hand tells why")
        i += 1
    raise ValueError(f"move {index} is not a decision of this hand")


def explain_move(record: dict[str, Any], index: int, strategy: str = "mc",
                 seed: int = 0) -> list[Option]:
    """``mc``'s option values at the decision of recorded move ``index`` (see the module
    docstring); ``strategy`` may set parameters, e.g. ``"mc:samples=1024"`` for a closer
    estimate, and ``seed`` picks the worlds."""
    view, after = decision_view(record, index)
    return option_values(view, strategy, seed, after)
