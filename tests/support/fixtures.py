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
from sim.engine.game import start_hand as real_start_hand
from sim.engine.hand import deal


def fixed_decks(monkeypatch: Any, decks: Sequence[np.ndarray]) -> None:
    """Make GameState deal ``decks[h]`` for hand ``h`` of every game it plays.

    The real ``start_hand`` still runs (it shuffles from the game's stream and fills the public
    game facts); the hand is then re-dealt from the fixed deck.
    """
    queue = [np.array(d, np.int64) for d in decks]
    counter = [0]

    def start_hand(gs: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
                   rules: np.ndarray, deck_rng: np.ndarray, game_info: np.ndarray) -> None:
        real_start_hand(gs, hs, pile, deck, rules, deck_rng, game_info)
        deck[:] = queue[counter[0] % len(queue)]
        counter[0] += 1
        deal(hs, pile, deck, rules)

    monkeypatch.setattr(sim.play.state, "start_hand", start_hand)
