"""Make every ``GameState`` (so ``GameDriver``) deal fixed decks, so whole games can be
scripted hand by hand.

A game shuffles each hand from its stream; this monkeypatch keeps that (the game facts it
fills stay real) and re-deals the hand from a given deck.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import sim.play.state
from sim.engine.hand import deal
from sim.play.loop import begin_hand as real_begin_hand


def fixed_decks(monkeypatch: Any, decks: Sequence[np.ndarray]) -> None:
    """Make GameState deal ``decks[h]`` for hand ``h`` of every game it plays.

    The real ``begin_hand`` still runs (it shuffles from the game's stream, fills the public
    game facts and clears the strategies' memory); the hand is then re-dealt from the fixed
    deck.
    """
    queue = [np.array(d, np.int64) for d in decks]
    counter = [0]

    def begin_hand(rules: np.ndarray, table: Any, shuffle: bool = True) -> None:
        real_begin_hand(rules, table, shuffle)
        table.deck[:] = queue[counter[0] % len(queue)]
        counter[0] += 1
        deal(table.hs, table.pile, table.deck, rules)

    monkeypatch.setattr(sim.play.state, "begin_hand", begin_hand)
