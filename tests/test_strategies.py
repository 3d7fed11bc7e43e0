"""Strategies: the registry and its notation, the Python/compiled twin, user strategies."""

from __future__ import annotations

import json

import pytest

from sim.engine.cards import card_str, parse_cards
from sim.engine.rules import Rules
from sim.play.driver import StrategyError, play_games
from strategies.base import BaseStrategy
from strategies.examples import GreedyKnockPy, LowCardHoarder
from strategies.registry import (
    BUILTINS,
    canonical_strategy,
    describe,
    parse_strategies,
    parse_strategy,
)


def _log_lines(result, drop_seats: bool = True) -> list[str]:
    return [json.dumps({k: v for k, v in r.items() if not (drop_seats and k == "seats")},
                       sort_keys=True) for r in result.log]


def test_registry_lists_the_builtins_with_parameters() -> None:
    assert list(BUILTINS) == ["random", "simple", "greedy-knock", "gin-hunter",
                              "discard-tracking", "tuned", "mc", "net"]
    listing = {d["name"]: d for d in describe()}
    assert listing["greedy-knock"]["params"]["knock_at"]["default"] is None
    assert listing["gin-hunter"]["params"]["stock_low"]["default"] == 8
    assert listing["discard-tracking"]["params"]["slack"]["default"] == 1
    assert all(d["description"] for d in listing.values())


def test_name_key_value_notation() -> None:
    specs = parse_strategies("greedy-knock:knock_at=6,gin-hunter:stock_low=4,tiny=1,random")
    assert [s.text for s in specs] == ["greedy-knock:knock_at=6",
                                       "gin-hunter:stock_low=4,tiny=1", "random"]
    assert specs[0].params == {"knock_at": 6}
    assert specs[1].params == {"stock_low": 4, "tiny": 1, "close_pickups": 2}
    assert list(specs[0].params_array()[:2]) == [6, -1]
    assert list(parse_strategy("greedy-knock").params_array()[:1]) == [-1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nosuch", "unknown strategy 'nosuch': expected one of random, simple"),
        ("greedy-knock:knock_at=11", r"knock_at=11 is out of range: expected 0..10"),
        ("greedy-knock:knock_at=x", "is not an integer 0..10"),
        ("greedy-knock:depth=2", "unknown parameter 'depth' for greedy-knock"),
        ("greedy-knock:knock_at", "malformed parameter 'knock_at'"),
        ("nosuch.module:Bot", "cannot import strategy 'nosuch.module:Bot'"),
    ],
)
def test_bad_strategy_names(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_strategies(text)


def test_python_twin_of_greedy_knock_gives_the_identical_log() -> None:
    """The proof that the compiled and Python paths share one set of rules."""
    for seed, knock_at in ((3, None), (8, 0), (21, 4)):
        spec = "greedy-knock" if knock_at is None else f"greedy-knock:knock_at={knock_at}"
        compiled = play_games([spec, "simple", spec], games=6, seed=seed, log=True)
        twin = play_games([GreedyKnockPy(knock_at), "simple", GreedyKnockPy(knock_at)],
                          games=6, seed=seed, log=True)
        assert _log_lines(compiled) == _log_lines(twin)
        assert compiled.games.equals(twin.games)


def test_user_strategy_by_import_path_and_object() -> None:
    by_path = play_games("strategies.examples:LowCardHoarder,simple,simple", games=3, seed=2,
                         log=True)
    by_object = play_games([LowCardHoarder(), "simple", "simple"], games=3, seed=2, log=True)
    assert _log_lines(by_path) == _log_lines(by_object)
    assert by_path.strategies[0] == "strategies.examples:LowCardHoarder"


def test_base_strategy_plays_whole_games() -> None:
    result = play_games([BaseStrategy(), "random", "gin-hunter"], games=3, seed=5)
    assert set(result.games["winner"]) <= {0, 1, 2}
    assert (result.games[["score_0", "score_1", "score_2"]].max(axis=1) >= 100).all()


class _Cheater(BaseStrategy):
    def discard(self, view):  # type: ignore[no-untyped-def]
        return "AS" if 0 not in view.hand else "2S"  # usually not in hand


def test_illegal_python_move_is_a_clear_error() -> None:
    with pytest.raises(StrategyError, match="illegal move"):
        play_games([_Cheater(), _Cheater(), _Cheater()], games=1, seed=1)


@pytest.mark.parametrize("name", list(BUILTINS))
def test_each_builtin_plays_every_role_and_the_advisor_policy(name: str) -> None:
    rules = Rules(team_policy="advisor")
    # an illegal move by a built-in would raise StrategyError here
    result = play_games([name, "greedy-knock", "simple"], rules=rules, games=30, seed=4)
    assert result.games["hands"].min() >= 1
    assert (result.games[["score_0", "score_1", "score_2"]].max(axis=1) >= 100).all()


def test_advisor_decides_for_the_captain_from_the_captains_view() -> None:
    """The sitter's strategy answers the captain's first question, seeing the captain's cards."""
    seen: list[tuple[str, tuple[int, ...]]] = []

    class Spy(BaseStrategy):
        def take_upcard(self, view):  # type: ignore[no-untyped-def]
            seen.append((view.role, view.hand))
            return False

    roles = (0, 1, 2)  # seat 0 box, seat 1 captain, seat 2 (the spy) sits out
    advised = play_games(["simple", "simple", Spy()], games=1, seed=9, log=True,
                         rules=Rules(team_policy="advisor", initial_roles=roles))
    first = advised.log[0]
    assert first["nondealer"] == 1 and first["sitter"] == 2 and first["advisor"] == 2
    assert seen[0][0] == "nondealer"
    assert [card_str(c) for c in seen[0][1]] == sorted(
        first["deal"]["nondealer"], key=lambda t: parse_cards([t])[0])

    seen.clear()
    plain = play_games(["simple", "simple", Spy()], games=1, seed=9, log=True,
                       rules=Rules(initial_roles=roles))
    assert "advisor" not in plain.log[0]
    # without the advisor policy the spy answers exactly its own upcard offers
    own_offers = 0
    for record in plain.log:
        moves = record["moves"]
        offers = moves[:2] if moves[0]["move"] == "pass" else moves[:1]
        own_offers += sum(1 for m in offers if m["seat"] == 2)
    assert len(seen) == own_offers
    assert plain.log[0]["moves"][0]["seat"] == 1


# ------------------------------------------------------------- canonical names


@pytest.mark.parametrize(("text", "canonical"), [
    ("greedy-knock", "greedy-knock"),
    ("greedy", "greedy-knock"),  # an alias
    ("eaai-simple", "simple"),
    ("SIMPLE", "simple"),  # built-in names are case-insensitive
    ("  Greedy-Knock  ", "greedy-knock"),
    ("greedy-knock:knock_at=0", "greedy-knock:knock_at=0"),
    ("greedy:knock_at=00", "greedy-knock:knock_at=0"),  # leading zeros: the same number
    ("greedy-knock:knock_at=05", "greedy-knock:knock_at=5"),
    ("greedy-knock: knock_at = 5 ", "greedy-knock:knock_at=5"),  # spaces around = and ,
    ("greedy-knock:knock_at=10", "greedy-knock:knock_at=10"),  # default from the rules: kept
    ("gin-hunter:tiny=1,stock_low=4", "gin-hunter:stock_low=4,tiny=1"),  # declaration order
    ("gin-hunter:stock_low=8", "gin-hunter"),  # equal to its default: omitted
    ("gin-hunter:stock_low=8,tiny=1", "gin-hunter:tiny=1"),
    ("discard-tracking:caution=1,slack=2,knock_at=3", "discard-tracking:knock_at=3,slack=2"),
])
def test_canonical_text(text: str, canonical: str) -> None:
    spec = parse_strategy(text)
    assert spec.canonical == canonical
    assert spec.text == text.strip()  # logs and reports still show the name as given
    assert parse_strategy(canonical).canonical == canonical
    assert list(parse_strategy(canonical).params_array()) == list(spec.params_array())
    assert canonical_strategy(text) == canonical


@pytest.mark.parametrize(("text", "message"), [
    ("greedy-knock:knock_at=5,knock_at=6",
     "parameter 'knock_at' is given twice in 'greedy-knock:knock_at=5,knock_at=6': expected "
     "each parameter at most once"),
    ("greedy-knock:knock_at=+5",
     "greedy-knock parameter knock_at='+5' is not an integer 0..10 (digits 0-9 only)"),
    ("greedy-knock:knock_at=-1",
     "greedy-knock parameter knock_at='-1' is not an integer 0..10 (digits 0-9 only)"),
    ("greedy-knock:knock_at=\u0665",  # ARABIC-INDIC DIGIT FIVE: int() would accept it
     "greedy-knock parameter knock_at='\u0665' is not an integer 0..10 (digits 0-9 only)"),
    ("greedy-knock:knock_at=\uff15",  # FULLWIDTH DIGIT FIVE
     "greedy-knock parameter knock_at='\uff15' is not an integer 0..10 (digits 0-9 only)"),
    ("greedy-knock:knock_at=1_0",
     "greedy-knock parameter knock_at='1_0' is not an integer 0..10 (digits 0-9 only)"),
    ("greedy-knock:knock_at=",
     "greedy-knock parameter knock_at='' is not an integer 0..10 (digits 0-9 only)"),
    ("greedy-knock:knock_at=5 5",
     "greedy-knock parameter knock_at='5 5' is not an integer 0..10 (digits 0-9 only)"),
    ("greedy-knock:knock_at=99999999999999999999999",
     "greedy-knock parameter knock_at=99999999999999999999999 is out of range: expected 0..10"),
    ("nosuch.module:Bot:a=1,a=2",
     "parameter 'a' is given twice in 'nosuch.module:Bot:a=1,a=2': expected each parameter at "
     "most once"),
])
def test_non_canonical_parameters_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_strategy(text)
    assert str(exc.value) == message


def test_python_strategy_canonical_text_sorts_keywords_without_importing() -> None:
    # keyword arguments go to the constructor by name, so their order does not matter
    assert canonical_strategy("nosuch.module:Bot:b=2, a = x") == "nosuch.module:Bot:a=x,b=2"
    assert canonical_strategy("nosuch.module:Bot") == "nosuch.module:Bot"
    spec = parse_strategy("strategies.examples:LowCardHoarder")
    assert spec.canonical == "strategies.examples:LowCardHoarder"
    assert parse_strategy(LowCardHoarder()).canonical == spec.make().name
