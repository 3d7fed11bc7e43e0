"""Information hygiene: what a strategy sees (sim.engine.view), checked against the true state.

A spy strategy records every View it is handed; the true state at each decision is rebuilt from
the hand log (deal + moves) by the referee of the test helpers, and every view must match it and
show nothing hidden: no card the opponent holds that he did not take from the pile, no stock
card (so no stock order). The compiled view array (``fill_view``) is checked the same way.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.decks import mask, shuffled_deck
from support.hands import HandRunner
from support.scripted import SpyStrategy, protocol_policy, random_policy
from support.views import check_views

from sim import view as view_mod
from sim.engine.cards import mask_cards
from sim.engine.hand import (
    HS_DECLINED,
    HS_DISCARDED,
    HS_DRAWN,
    HS_HAND,
    HS_KNOCK_LIMIT,
    HS_PILE_LEN,
    HS_STOCK_TOP,
    HS_TAKEN,
    HS_TOOK,
    HS_TURNS,
    HS_UPCARD,
)
from sim.engine.rules import Rules
from sim.engine.view import (
    GI_LEN,
    GI_SCORE,
    GI_SCORE_OTHER,
    GI_TARGET,
    V_DECISION,
    V_DRAWN,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LEN,
    V_OPP_DECLINED,
    V_OPP_DISCARDED,
    V_OPP_TOOK,
    V_PILE_LEN,
    V_ROLE,
    V_SCORE_OPP,
    V_SCORE_OTHER,
    V_SCORE_SELF,
    V_SELF_DECLINED,
    V_SELF_DISCARDED,
    V_SELF_TOOK,
    V_STOCK,
    V_TAKEN,
    V_TARGET,
    V_TOP,
    V_TURN,
    V_UPCARD,
    View,
    fill_view,
)
from sim.play.driver import GameDriver, Seeds
from strategies.base import BaseStrategy


def play_spied(rules: Rules, policies: list, games: int, seed: int,
               compiled: dict[int, str] | None = None) -> tuple[list, list]:
    """Play ``games`` logged games with a spy in every seat not given a compiled strategy."""
    calls: list[tuple[int, View]] = []
    seats: list = []
    compiled = compiled or {}
    for s in range(rules.players):
        seats.append(compiled[s] if s in compiled else SpyStrategy(s, calls, policies[s]))
    driver = GameDriver(rules, seats, Seeds.from_seed(seed), log=True)
    records: list = []
    for g in range(games):
        records.extend(driver.play(g)[1])
    return records, calls


BASE = protocol_policy(BaseStrategy())

VARIANTS = {
    "three-handed": (Rules(), [random_policy] * 3, 1),
    "advisor": (Rules(team_policy="advisor"), [random_policy, BASE, random_policy], 2),
    "oklahoma": (Rules.preset("oklahoma"), [random_policy, BASE, random_policy], 2),
    "same-card-off": (Rules(forbid_taken_discard=False, target=60), [random_policy] * 3, 1),
    "eaai": (Rules.preset("eaai").replace(target=60), [random_policy] * 2, 1),
    "classic": (Rules.preset("classic").replace(wall=8), [BASE, random_policy], 4),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_spy_never_sees_hidden_cards(variant: str) -> None:
    """Every view of many hands matches the true state and leaks nothing."""
    rules, policies, games = VARIANTS[variant]
    records, calls = play_spied(rules, policies, games, seed=11)
    checked = check_views(records, calls, rules)
    assert len(records) >= 10 and checked == len(calls) > 200


def test_spy_next_to_compiled_strategies() -> None:
    """A Python seat among compiled built-ins sees the same facts (decks are the game's)."""
    rules = Rules()
    records, calls = play_spied(rules, [None, random_policy, None], 3, seed=5,
                                compiled={0: "simple", 2: "greedy-knock"})
    assert {seat for seat, _ in calls} == {1}
    check_views(records, calls, rules, spied=[1])


# ------------------------------------------------------------------ the compiled view array

MASK_FIELDS = (V_HAND, V_OPP_TOOK, V_OPP_DISCARDED, V_SELF_TOOK, V_SELF_DISCARDED)
CARD_FIELDS = tuple(i for i in (V_TOP, V_DRAWN, V_TAKEN, V_UPCARD, V_OPP_DECLINED,
                                 V_SELF_DECLINED, getattr(view_mod, "V_FORBIDDEN", None))
                    if i is not None)


def check_view_array(h: HandRunner, decision: int) -> None:
    """fill_view for the mover: right facts, and no field equal to or holding a hidden card."""
    hs = h.hs
    p, o = h.to_move, 1 - h.to_move
    game_info = np.zeros(GI_LEN, np.int64)
    game_info[GI_SCORE:GI_SCORE + 2] = (17, 42)
    game_info[GI_SCORE_OTHER] = 5
    game_info[GI_TARGET] = 100
    view = np.full(V_LEN, -7, np.int64)
    fill_view(view, hs, h.pile_arr, game_info, decision)
    opp = int(hs[HS_HAND + o])
    took = int(hs[HS_TOOK + o])
    hidden = opp & ~took
    stock = mask(h.deck[int(hs[HS_STOCK_TOP]):].tolist())
    # Masks below 2**16 (spades only) cannot be told from counts and scores; an opponent whose
    # every card was taken from the pile holds nothing hidden.
    secret_masks = {m for m in (hidden, stock) if m >= 1 << 16} | ({opp} if hidden else set())
    for i, value in enumerate(view.tolist()):
        assert value not in secret_masks, f"view field {i} equals a hidden mask"
    for i in MASK_FIELDS:
        assert int(view[i]) & (hidden | stock) == 0, f"mask field {i} holds a hidden card"
    for i in CARD_FIELDS:
        c = int(view[i])
        assert c == -1 or not (hidden | stock) >> c & 1, f"card field {i} is a hidden card"
    # And the facts themselves.
    n = int(hs[HS_PILE_LEN])
    assert int(view[V_HAND]) == int(hs[HS_HAND + p])
    assert (int(view[V_ROLE]), int(view[V_DECISION])) == (p, decision)
    assert int(view[V_STOCK]) == h.stock_count and int(view[V_TURN]) == int(hs[HS_TURNS])
    assert int(view[V_PILE_LEN]) == n
    assert int(view[V_TOP]) == (int(h.pile_arr[n - 1]) if n else -1)
    assert int(view[V_OPP_TOOK]) == took and int(view[V_SELF_TOOK]) == int(hs[HS_TOOK + p])
    assert int(view[V_OPP_DISCARDED]) == int(hs[HS_DISCARDED + o])
    assert int(view[V_OPP_DECLINED]) == int(hs[HS_DECLINED + o])
    assert (int(view[V_DRAWN]), int(view[V_TAKEN])) == (int(hs[HS_DRAWN]), int(hs[HS_TAKEN]))
    assert int(view[V_UPCARD]) == int(hs[HS_UPCARD])
    assert int(view[V_KNOCK_LIMIT]) == int(hs[HS_KNOCK_LIMIT])
    assert (int(view[V_SCORE_SELF]), int(view[V_SCORE_OPP])) == ((17, 42) if p == 0 else (42, 17))
    assert (int(view[V_SCORE_OTHER]), int(view[V_TARGET])) == (5, 100)
    assert set(mask_cards(int(view[V_HAND]))) == set(mask_cards(int(hs[HS_HAND + p])))


@pytest.mark.parametrize("rules", [Rules(), Rules(forbid_taken_discard=False, wall=0)],
                         ids=["default", "wall0"])
def test_compiled_view_array_has_no_hidden_field(rules: Rules) -> None:
    rng = np.random.default_rng(2024)
    for i in range(60):
        h = HandRunner(shuffled_deck(1000 + i), rules)
        h.play_out(rng, check_view_array)
