"""Every strategy passes sim.testing's conformance harness; broken ones are caught; the compiled
dispatcher follows the registry table and has no fallback strategy."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import random
from types import ModuleType

import numpy as np
import pytest

import strategies
from sim.engine.hand import DEC_OFFER, MOVE_DRAW_DISCARD, MOVE_KNOCK, MOVE_PASS
from sim.engine.jit import kernel
from sim.engine.rules import Rules
from sim.engine.view import V_LEN
from sim.play.driver import Seeds, StrategyError, iter_games, play_games
from sim.testing import check_strategy
from strategies import generate, mc, registry, tuned
from strategies._dispatch import DISPATCHED, NOT_A_MOVE, OPTION_VALUES, decide
from strategies.base import BaseStrategy
from strategies.builtin import MEM_LEN, N_PARAMS, SCRATCH_LEN, greedy_decide
from strategies.declare import ParamInfo, Params
from strategies.examples import GreedyKnockPy, LowCardHoarder
from strategies.registry import BUILTINS, StrategyInfo, StrategySpec, parse_strategy
from strategies.team import has_option_values


@pytest.mark.parametrize("name", [*BUILTINS, "greedy-knock:knock_at=0",
                                  "discard-tracking:slack=0,caution=3",
                                  *(f"{info.name}@{set_name}" for info in BUILTINS.values()
                                    for set_name, _ in info.sets)])
def test_every_builtin_conforms(name: str) -> None:
    report = check_strategy(name)
    assert "legal moves in every decision and role" in report.checks
    assert "batch loop = driver" in report.checks
    if parse_strategy(name).info.twin:
        assert "identical to its Python twin" in report.checks


@pytest.mark.parametrize("strategy", [LowCardHoarder, GreedyKnockPy, BaseStrategy(),
                                      "strategies.examples:LowCardHoarder"],
                         ids=["LowCardHoarder", "GreedyKnockPy", "BaseStrategy()", "by-path"])
def test_example_python_strategies_conform(strategy: object) -> None:
    report = check_strategy(strategy)
    assert set(report.decisions) == {"box", "captain", "advisor", "dealer", "non-dealer"}


def test_a_python_strategy_checked_against_its_compiled_twin() -> None:
    check_strategy(GreedyKnockPy, twin=GreedyKnockPy, presets=["eaai"])
    with pytest.raises(AssertionError, match="its Python twin plays differently"):
        check_strategy("greedy-knock", twin=LowCardHoarder, presets=["classic"])


# ---------------------------------------------------------------------- broken strategies


class DiscardsWhatItLacks(BaseStrategy):
    name = "lacks"

    def discard(self, view):  # type: ignore[no-untyped-def]
        return next(c for c in range(64) if c % 16 < 13 and c not in view.hand)


class KnocksThenThrowsItsWorst(BaseStrategy):
    """Knocks whenever asked (legal), then discards the card leaving most deadwood (not)."""

    name = "worst-after-knock"

    def discard(self, view):  # type: ignore[no-untyped-def]
        return max(view.deadwood_after, key=lambda c: (view.deadwood_after[c], c))


class Moody(BaseStrategy):
    """Random without view.rng: not reproducible."""

    name = "moody"

    def draw_from_discard(self, view):  # type: ignore[no-untyped-def]
        return random.random() < 0.5


class RaisesAtKnock(BaseStrategy):
    name = "raiser"

    def knock(self, view):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("oops")


@kernel
def knocks_at_the_offer_decide(decision, params, view, after, mem, rng, scratch):  # type: ignore[no-untyped-def]
    """A compiled strategy answering the offer with a knock; plays greedy-knock otherwise."""
    if decision == DEC_OFFER:
        return MOVE_KNOCK
    return greedy_decide(decision, params, view, after, mem, rng, scratch)


@pytest.mark.parametrize(
    ("strategy", "message"),
    [
        (DiscardsWhatItLacks, r"'lacks' under three-handed rules, self-play at the discard "
                              r"decision as (box|captain): .*not in the player's hand"),
        (KnocksThenThrowsItsWorst, r"at the discard decision .*within the knock limit"),
        (RaisesAtKnock, r"at the knock decision as .* raised ZeroDivisionError: oops"),
        (Moody, r"'moody' under three-handed rules, self-play: not deterministic"),
        (knocks_at_the_offer_decide, r"'knocks-at-the-offer' .* at the offer decision as "
                                     r"captain: .*answers a different decision"),
    ],
    ids=["discards-a-card-it-lacks", "illegal-knock", "raises", "nondeterministic",
         "compiled-wrong-answer"],
)
def test_broken_strategies_are_caught(strategy: object, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_strategy(strategy)


def test_an_unregistered_compiled_strategy_runs_through_the_driver() -> None:
    """A record not in BUILTINS plays (through the Python driver) and can be checked, twin
    included, before it is registered."""
    copy = dataclasses.replace(BUILTINS["greedy-knock"], name="greedy-copy", strategy_id=99)
    report = check_strategy(copy, presets=["three-handed", "oklahoma"])
    assert "identical to its Python twin" in report.checks
    assert "batch loop = driver" not in report.checks
    spec = parse_strategy(copy)
    assert not spec.compiled and spec.kernel is greedy_decide
    assert list(spec.params_array()) == [-1] * N_PARAMS


# ------------------------------------------------------------------------- the dispatcher


def test_dispatcher_is_generated_from_the_registry() -> None:
    assert not generate.stale(), "strategies/_dispatch.py is stale: regenerate with " \
                                 "python -m strategies.generate"
    assert DISPATCHED == {info.strategy_id: f"{info.decide.py_func.__module__}."
                                            f"{info.decide.py_func.__name__}"
                          for info in BUILTINS.values()}


def test_unknown_strategy_id_is_an_error_not_random() -> None:
    view = np.zeros(V_LEN, np.int64)
    args = (np.full(N_PARAMS, -1, np.int64), view, np.zeros(200, np.int64),
            np.zeros(MEM_LEN, np.int64), np.zeros(1, np.uint64), np.zeros(SCRATCH_LEN, np.int64))
    assert decide(len(BUILTINS) + 3, DEC_OFFER, *args) == NOT_A_MOVE
    assert decide(0, DEC_OFFER, *args) in (MOVE_DRAW_DISCARD, MOVE_PASS)  # random still plays
    ghost = StrategySpec(text="ghost", name="ghost", strategy_id=len(BUILTINS) + 3)
    seats = [ghost, "simple", "simple"]
    with pytest.raises(StrategyError, match="illegal move"):  # the compiled batch loop
        next(iter_games(Rules(), seats, 1, Seeds.from_seed(0)))
    with pytest.raises(StrategyError, match="'ghost' .* illegal move .*: not a move"):
        play_games(seats, games=1, log=True)  # the Python driver


def test_a_registered_strategy_missing_from_the_dispatcher_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry changed and the dispatcher was not regenerated: a loud error, not a
    strategy silently playing another's moves."""
    cautious = StrategyInfo(name="cautious", strategy_id=len(BUILTINS),
                            decide=knocks_at_the_offer_decide, description="new")
    monkeypatch.setitem(BUILTINS, "cautious", cautious)
    with pytest.raises(RuntimeError, match="regenerate with python -m strategies.generate"):
        parse_strategy("cautious")
    source = generate.dispatcher_source(BUILTINS.values())
    assert f"    if strategy_id == {len(BUILTINS) - 1}:  # cautious\n" \
           "        return knocks_at_the_offer_decide(decision, params, view, after, mem, rng, " \
           "scratch)\n" in source
    assert "import knocks_at_the_offer_decide" in source


def test_registry_table_is_checked() -> None:
    random_info = BUILTINS["random"]
    with pytest.raises(ValueError, match="share id 0"):
        registry.check_table([random_info, dataclasses.replace(random_info, name="other")])
    with pytest.raises(ValueError, match="two strategies are named 'random'"):
        registry.check_table([random_info, dataclasses.replace(random_info, strategy_id=9)])
    with pytest.raises(ValueError, match="takes 4 arguments, expected"):
        registry.check_table([dataclasses.replace(random_info, decide=_four_args)])


@kernel
def _four_args(decision, params, view, after):  # type: ignore[no-untyped-def]
    return 0


# ----------------------------------------------------------- declarations beside the code


def _strategy_modules() -> list[ModuleType]:
    return [importlib.import_module(f"strategies.{m.name}")
            for m in pkgutil.iter_modules(strategies.__path__)]


def test_the_registry_collects_the_declarations_of_the_strategy_modules() -> None:
    """Whatever the strategies are: the registry holds the very records their modules declare
    beside their decision functions (a copy could drift), numbered 0, 1, ... in table order; each
    one's parameters are a ``Params`` declaration of its module (whose slot constants are
    checked at import); a declaration made but not registered is caught; and a strategy's
    defaults are the set it plays under the default rules, when it names one."""
    infos = list(BUILTINS.values())
    assert [i.strategy_id for i in infos] == list(range(len(infos)))
    assert [i.name for i in infos] == list(BUILTINS)
    declared = []
    for module in _strategy_modules():
        here = [v for v in vars(module).values() if isinstance(v, StrategyInfo)
                and v.decide.py_func.__module__ == module.__name__]
        declared += here
        for info in here:
            assert BUILTINS.get(info.name) is info, f"{info.name} is declared, not registered"
            params = [v for v in vars(module).values() if isinstance(v, Params)]
            assert not info.params or any(p.params == info.params for p in params), info.name
    assert sorted(i.strategy_id for i in declared) == list(range(len(infos)))
    for info in infos:
        chosen = info.set_for(Rules())
        if chosen is not None:
            assert info.param_set(chosen) == {p.name: p.default for p in info.params}, info.name
    assert tuned.THREE_HANDED_SET.tolist() == [p.default for p in tuned.TUNED.params]


def test_slot_constants_unpacked_out_of_order_fail_at_import() -> None:
    params = Params("P_", (ParamInfo("a", 1, 0, 9, "first"), ParamInfo("b", 2, 0, 9, "second")))
    assert params.slots == (0, 1) and params.names == ("a", "b") and len(params) == 2
    params.check({"P_A": 0, "P_B": 1})
    with pytest.raises(AssertionError, match=r"P_A=1 \(declared 0\), P_B=0 \(declared 1\)"):
        params.check({"P_B": 0, "P_A": 1})
    with pytest.raises(ValueError, match="P_A is declared twice"):
        Params("P_", (ParamInfo("a", 1, 0, 9, ""), ParamInfo("a", 1, 0, 9, "")))


def test_option_values_are_a_declared_capability_the_dispatcher_reads() -> None:
    assert [i.name for i in BUILTINS.values() if i.has_option_values] == ["mc"]
    assert OPTION_VALUES == frozenset({BUILTINS["mc"].strategy_id})
    assert [has_option_values(i.strategy_id) for i in BUILTINS.values()] == [
        False] * 6 + [True]
    assert not has_option_values(None)
    scorer = StrategyInfo(name="scorer", strategy_id=len(BUILTINS), decide=greedy_decide,
                          description="new", consensus=mc.consensus)
    source = generate.dispatcher_source([*BUILTINS.values(), scorer])
    assert f"OPTION_VALUES = frozenset((6, {len(BUILTINS)}))" in source
    assert (f"    if captain_id == {len(BUILTINS)} and advisor_id == {len(BUILTINS)}:  # scorer\n"
            "        return consensus(decision, captain_params, advisor_params, view, after, "
            "mem,\n") in source
    with pytest.raises(ValueError, match="its consensus function must be compiled"):
        registry.check_table([dataclasses.replace(scorer, consensus=print)])


def test_a_declared_capability_missing_from_the_dispatcher_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Option values declared but the dispatcher not regenerated: refused like a missing
    branch, so ``consensus`` cannot silently ignore them."""
    greedy = dataclasses.replace(BUILTINS["greedy-knock"], consensus=mc.consensus)
    monkeypatch.setitem(BUILTINS, "greedy-knock", greedy)
    with pytest.raises(RuntimeError, match="regenerate with python -m strategies.generate"):
        parse_strategy("greedy-knock")
