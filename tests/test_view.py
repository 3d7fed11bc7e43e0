"""Information hygiene: what a strategy sees (sim.engine.view), checked against the true state.

Spies record every view a strategy is handed: the Python ``View`` of a user strategy, and the
compiled view array a built-in strategy reads (``support.views.ArraySpy``). The true state at
each decision is rebuilt from the hand log (deal + moves) by the plain-Python referee of the
test helpers, and every field of every view must equal the value computed from it, with
nothing hidden shown: no card the opponent holds that he did not take from the pile, no stock
card. Every built-in strategy is played through these checks, and the last tests break the
engine on purpose to show that the checks catch it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from support.decks import shuffled_deck
from support.hands import HandRunner
from support.referee import Referee
from support.scripted import SpyStrategy, protocol_policy, random_policy
from support.views import ArraySpy, check_view_array, check_views, python_step

import sim.play.state as state_mod
import sim.play.step as step_mod
from sim.engine.hand import HS_DEADWOOD, HS_HAND, HS_PILE_MASK, HS_TO_MOVE, HS_TOOK
from sim.engine.rules import Rules
from sim.engine.view import (
    GI_LEN,
    GI_PLAYERS,
    GI_SCORE,
    GI_SCORE_OTHER,
    GI_TARGET,
    V_DEADWOOD,
    V_DECISION,
    V_GAME_OPEN,
    V_HOLLYWOOD,
    V_KNOCK_LIMIT,
    V_LEN,
    V_TOP,
    View,
    fill_view,
)
from sim.play.driver import GameDriver, Seeds
from strategies.base import BaseStrategy
from strategies.registry import BUILTINS


def play_spied(rules: Rules, policies: list, games: int, seed: int,
               compiled: dict[int, str] | None = None,
               monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[list, list]:
    """Play ``games`` logged games with a spy in every seat not given a compiled strategy;
    with ``monkeypatch``, the compiled seats' view arrays are recorded too."""
    calls: list[tuple[int, Any]] = []
    seats: list = []
    compiled = compiled or {}
    for s in range(rules.players):
        seats.append(compiled[s] if s in compiled else SpyStrategy(s, calls, policies[s]))
    arrays = ArraySpy(calls)
    if monkeypatch is not None:
        arrays.install(monkeypatch)
    driver = GameDriver(rules, seats, Seeds.from_seed(seed), log=True,
                        on_decision=arrays.on_decision)
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
    # a low target so that games end while others go on within a few hands
    "hollywood": (Rules.preset("hollywood").replace(target=60), [random_policy, BASE], 3),
    "three-handed-hollywood": (Rules.preset("three-handed-hollywood").replace(target=30),
                               [random_policy] * 3, 1),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_spy_never_sees_hidden_cards(variant: str) -> None:
    """Every view of many hands matches the true state and leaks nothing."""
    rules, policies, games = VARIANTS[variant]
    records, calls = play_spied(rules, policies, games, seed=11)
    checked = check_views(records, calls, rules)
    assert len(records) >= 10 and checked == len(calls) > 200


def test_spy_next_to_compiled_strategies(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python seat among compiled built-ins: every seat's view is checked, the Python one as
    a View and the built-ins' as the view array they read."""
    rules = Rules()
    records, calls = play_spied(rules, [None, random_policy, None], 3, seed=5,
                                compiled={0: "simple", 2: "greedy-knock"},
                                monkeypatch=monkeypatch)
    kinds = {(seat, type(view)) for seat, view in calls}
    assert kinds == {(0, np.ndarray), (1, View), (2, np.ndarray)}
    assert check_views(records, calls, rules) == len(calls)


@pytest.mark.parametrize("preset", ["hollywood", "three-handed-hollywood"])
def test_hollywood_view_arrays_of_compiled_strategies(preset: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled view array shows every open game's scores, as the referee's sheet has
    them, to built-ins next to a Python seat."""
    rules = Rules.preset(preset).replace(target=40)
    n = rules.players
    records, calls = play_spied(rules, [random_policy] + [None] * (n - 1), 2, seed=7,
                                compiled=dict.fromkeys(range(1, n), "greedy-knock"),
                                monkeypatch=monkeypatch)
    assert check_views(records, calls, rules) == len(calls)
    arrays = [view for _, view in calls if isinstance(view, np.ndarray)]
    assert {int(v[V_HOLLYWOOD]) for v in arrays} == {1}
    assert {int(v[V_GAME_OPEN]) for v in arrays} == {0, 1}  # seen open and ended


# ------------------------------------------------------------ every built-in strategy's view


#: Each built-in in all seats, under rules that make it meet its decisions (Oklahoma limits
#: and doubling, the advisor, two players, the taken card discardable).
BUILTIN_RULES = {
    "random": Rules(forbid_taken_discard=False, target=60),
    "simple": Rules.preset("eaai").replace(target=60),
    "greedy-knock": Rules(team_policy="advisor", target=60),
    "gin-hunter": Rules.preset("oklahoma").replace(target=60),
    "discard-tracking": Rules(target=60),
    "tuned": Rules.preset("three-handed-20").replace(target=60),
    "mc": Rules.preset("eaai").replace(target=30),  # a search: short games
    "net": Rules.preset("three-handed").replace(target=60),
}


def test_builtin_rules_cover_every_builtin() -> None:
    assert set(BUILTIN_RULES) == set(BUILTINS)


@pytest.mark.parametrize("name", list(BUILTIN_RULES))
def test_builtin_strategy_views(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every view array a built-in strategy reads equals the state replayed from the log."""
    rules = BUILTIN_RULES[name]
    seats = dict.fromkeys(range(rules.players), name)
    records, calls = play_spied(rules, [None] * rules.players, 2, seed=31, compiled=seats,
                                monkeypatch=monkeypatch)
    assert {seat for seat, _ in calls} == set(range(rules.players))
    assert {int(view[V_DECISION]) for _, view in calls} == {0, 1, 2, 3}  # all four decisions
    assert check_views(records, calls, rules) == len(calls) > 100


# ----------------------------------------------------------- the checks catch a broken engine


def leak_stock_into_pile_mask(real: Any) -> Any:
    """``begin_hand`` as a deal that also puts the last stock card into the pile mask."""
    def broken(rules: np.ndarray, table: Any, *rest: Any) -> None:
        real(rules, table, *rest)
        table.hs[HS_PILE_MASK] |= 1 << int(table.deck[51])
    return broken


def fill_view_with(change: Any) -> Any:
    """``fill_view`` followed by ``change(view, hs)``."""
    def broken(view: np.ndarray, hs: np.ndarray, *rest: Any) -> None:
        fill_view(view, hs, *rest)
        change(view, hs)
    return broken


def _opponent_deadwood(view: np.ndarray, hs: np.ndarray) -> None:
    """V_DEADWOOD holds the opponent's deadwood (a number, no card: a mask check misses it)."""
    view[V_DEADWOOD] = hs[HS_DEADWOOD + 1 - hs[HS_TO_MOVE]]


def _fixed_limit(view: np.ndarray, hs: np.ndarray) -> None:
    """The knock limit of the rules, not the one the upcard sets (Oklahoma)."""
    view[V_KNOCK_LIMIT] = 10


def _hidden_top(view: np.ndarray, hs: np.ndarray) -> None:
    """The top card replaced by the opponent's lowest card he did not take from the pile."""
    o = 1 - int(hs[HS_TO_MOVE])
    hidden = int(hs[HS_HAND + o]) & ~int(hs[HS_TOOK + o])
    view[V_TOP] = (hidden & -hidden).bit_length() - 1


BREAKS = {
    "deal-leaks-stock-into-pile-mask": ("begin_hand", leak_stock_into_pile_mask, "V_PILE_MASK"),
    "deadwood-of-the-opponent": ("fill_view", lambda _: fill_view_with(_opponent_deadwood),
                                 "V_DEADWOOD"),
    "knock-limit-ignores-upcard": ("fill_view", lambda _: fill_view_with(_fixed_limit),
                                   "V_KNOCK_LIMIT"),
    "hidden-card-on-top": ("fill_view", lambda _: fill_view_with(_hidden_top), "V_TOP"),
}


@pytest.mark.parametrize("name", list(BREAKS))
def test_view_check_catches_a_broken_engine(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Break one engine piece a game calls: the view check must fail, naming the field."""
    attr, make, field = BREAKS[name]
    module = step_mod if attr == "fill_view" else state_mod  # the step fills the views
    python_step(monkeypatch)
    monkeypatch.setattr(module, attr, make(getattr(module, attr)))
    rules = Rules.preset("oklahoma").replace(target=30)
    records, calls = play_spied(rules, [None] * 3, 1, seed=3, compiled=dict.fromkeys(
        range(3), "discard-tracking"), monkeypatch=monkeypatch)
    with pytest.raises(AssertionError, match=field):
        check_views(records, calls, rules)


@pytest.mark.parametrize(("break_", "field"), [(_opponent_deadwood, "deadwood"),
                                               (_fixed_limit, "knock_limit")],
                         ids=["deadwood-of-the-opponent", "knock-limit-ignores-upcard"])
def test_python_view_check_catches_a_broken_engine(break_: Any, field: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for the View a Python strategy is handed."""
    python_step(monkeypatch)
    monkeypatch.setattr(step_mod, "fill_view", fill_view_with(break_))
    rules = Rules.preset("oklahoma").replace(target=30)
    records, calls = play_spied(rules, [random_policy] * 3, 1, seed=3)
    with pytest.raises(AssertionError, match=f"'{field}'"):
        check_views(records, calls, rules)


# ------------------------------------------------- the compiled view array, kernel by kernel


def test_compiled_view_array_matches_replayed_state() -> None:
    """``fill_view`` at every decision of random hands through the kernels (``HandRunner``)
    equals the state the referee replays from each hand's log."""
    rng = np.random.default_rng(2024)
    game_info = np.zeros(GI_LEN, np.int64)
    game_info[GI_SCORE:GI_SCORE + 2] = (17, 42)
    game_info[GI_SCORE_OTHER] = 5
    game_info[GI_TARGET] = 100
    checked = 0
    for i, rules in enumerate([Rules(), Rules(forbid_taken_discard=False, wall=0),
                               Rules.preset("oklahoma")] * 20):
        game_info[GI_PLAYERS] = rules.players
        h = HandRunner(shuffled_deck(1000 + i), rules)
        views: list[np.ndarray] = []

        def spy(runner: HandRunner, decision: int, views: list[np.ndarray] = views) -> None:
            view = np.full(V_LEN, -7, np.int64)
            fill_view(view, runner.hs, runner.pile_arr, game_info, decision)
            views.append(view)

        h.play_out(rng, spy)
        points = Referee(h.record(), rules).points
        assert len(points) == len(views)
        for view, pt in zip(views, points, strict=True):
            check_view_array(view, pt, rules, [17, 42, 5], (0, 1, 2))
        checked += len(views)
    assert checked > 1000


