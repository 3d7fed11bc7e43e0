"""The two game drivers (sim.play.driver): the compiled batch kernel and the Python GameDriver.

Both must play the same games for the same seeds; a game is a pure function of (rules,
strategies, seed); statistics rows agree with the hand log; Python strategies are held to the
rules (StrategyError); and a fuzz run of random strategies never breaks a rule.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.hypothesis_profile import PROFILE
from support.referee import referee_game
from support.scripted import ScriptedStrategy, SpyStrategy, protocol_policy, random_policy

import sim.play.driver
import strategies.registry
from sim.engine.game import GAME_COLUMNS, GO_LEN
from sim.engine.rules import Rules
from sim.play.batch import play_batch_kernel
from sim.play.driver import GameDriver, Seeds, StrategyError, iter_games, play_games
from sim.play.step import Seating
from strategies.base import BaseStrategy
from strategies.registry import parse_strategies

COL = {name: i for i, name in enumerate(GAME_COLUMNS)}
BUILTIN = ["random", "simple", "greedy-knock", "greedy-knock:knock_at=0",
           "greedy-knock:knock_at=7"]
RULES = {
    "three-handed": Rules(),
    "advisor": Rules(team_policy="advisor"),
    "oklahoma": Rules.preset("oklahoma"),
    "fixed": Rules(initial_roles=(2, 1, 0), wall=5, gin_bonus=20),
    "classic": Rules.preset("classic"),
    "eaai": Rules.preset("eaai"),
    "hollywood": Rules.preset("three-handed-hollywood").replace(target=60),
}


def batch_rows(rules: Rules, names: list[str], seeds: Seeds, first: int, games: int,
               rotate: bool = False) -> np.ndarray:
    """Rows from the compiled batch kernel, called directly (error column included)."""
    specs = parse_strategies(names)
    ids = np.array([s.strategy_id for s in specs] + [0] * (3 - len(specs)), np.int64)
    params = np.stack([s.params_array() for s in specs]
                      + [specs[0].params_array()] * (3 - len(specs)))
    out = np.zeros((games, GO_LEN), np.int64)
    play_batch_kernel(Seating(rules.to_array(), ids, params, 0), seeds.streams(rotate), first,
                      out)
    return out


def driver_rows(rules: Rules, names: list[Any], seeds: Seeds, first: int, games: int,
                rotate: bool = False, log: bool = False) -> tuple[np.ndarray, list]:
    driver = GameDriver(rules, names, seeds, log=log, rotate=rotate)
    rows, records = [], []
    for g in range(first, first + games):
        row, recs = driver.play(g)
        rows.append(row)
        records.extend(recs)
    return np.array(rows, np.int64), records


# --------------------------------------------------------- compiled path == Python path


@PROFILE
@given(seed=st.integers(0, 2**63 - 1), rules=st.sampled_from(sorted(RULES)),
       names=st.lists(st.sampled_from(BUILTIN), min_size=3, max_size=3),
       first=st.integers(0, 10**6), rotate=st.booleans())
def test_batch_kernel_rows_equal_game_driver_rows(seed: int, rules: str, names: list[str],
                                                  first: int, rotate: bool) -> None:
    r = RULES[rules]
    names = names[: r.players]
    seeds = Seeds.from_seed(seed)
    compiled = batch_rows(r, names, seeds, first, 3, rotate)
    python, _ = driver_rows(r, names, seeds, first, 3, rotate)
    np.testing.assert_array_equal(compiled, python)
    assert not compiled[:, COL["error"]].any()
    logged, _ = driver_rows(r, names, seeds, first, 3, rotate, log=True)
    np.testing.assert_array_equal(logged, python)  # logging changes nothing


def test_batching_does_not_change_games() -> None:
    seeds = Seeds.from_seed(77)
    names = ["simple", "random", "greedy-knock"]
    whole = np.concatenate([o for o, _ in iter_games(Rules(), names, 20, seeds, batch=1000)])
    small = np.concatenate([o for o, _ in iter_games(Rules(), names, 20, seeds, batch=3)])
    np.testing.assert_array_equal(whole, small)
    tail = np.concatenate([o for o, _ in iter_games(Rules(), names, 8, seeds, first_game=12)])
    np.testing.assert_array_equal(whole[12:], tail)
    np.testing.assert_array_equal(whole, batch_rows(Rules(), names, seeds, 0, 20))


# ------------------------------------------------------------------------- determinism


def log_bytes(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


@PROFILE
@given(seed=st.integers(0, 2**63 - 1),
       names=st.lists(st.sampled_from(BUILTIN + ["python"]), min_size=3, max_size=3))
def test_same_seed_same_log_and_rows(seed: int, names: list[str]) -> None:
    """A game is a pure function of (rules, strategies, seed): identical bytes and rows."""
    def seats() -> list[Any]:
        return [SpyStrategy(i, [], random_policy) if n == "python" else n
                for i, n in enumerate(names)]

    first = driver_rows(Rules(), seats(), Seeds.from_seed(seed), 0, 2, log=True)
    again = driver_rows(Rules(), seats(), Seeds.from_seed(seed), 0, 2, log=True)
    assert log_bytes(first[1]) == log_bytes(again[1])
    np.testing.assert_array_equal(first[0], again[0])
    other = driver_rows(Rules(), seats(), Seeds.from_seed(seed + 1), 0, 2, log=True)
    assert log_bytes(other[1]) != log_bytes(first[1])


def test_play_games_is_deterministic() -> None:
    a = play_games("simple,random,greedy-knock", games=5, seed=21, log=True)
    b = play_games("simple,random,greedy-knock", games=5, seed=21, log=True)
    assert log_bytes(a.log) == log_bytes(b.log)
    assert a.games.equals(b.games)
    c = play_games("simple,random,greedy-knock", games=5, seed=21)  # the compiled path
    assert a.games.equals(c.games)


# ---------------------------------------------------------------------- rows vs the log


def expected_row(records: list[dict[str, Any]], rules: Rules) -> dict[str, int]:
    """Every statistics column that the hand log determines, computed from the log."""
    n = rules.players
    e: Counter[str] = Counter()
    last = records[-1]
    e["winner"] = last["game_winner"]
    e["hands"] = len(records)
    for s in range(3):
        e[f"score_{s}"] = last["scores"][s] if s < n else 0
    first = records[0]
    e["initial_box"], e["initial_captain"] = first["dealer"], first["nondealer"]
    e["initial_sitter"] = first["sitter"] if n == 3 else -1
    plural = {"knock": "knocks", "gin": "gins", "undercut": "undercuts", "draw": "draws",
              "turn_limit": "turn_limits"}
    how = {"knock": "knock_wins", "gin": "gins", "undercut": "undercut_wins"}
    if "hollywood" in last:  # the games of the match each seat won
        for game in last["hollywood"]["games"]:
            e[f"games_won_{game['winner']}"] += 1
    else:
        e[f"games_won_{last['game_winner']}"] = 1
    prev_box = None
    for r in records:
        res = r["result"]
        box, captain = r["dealer"], r["nondealer"]
        e[plural[res["end"]]] += 1
        e[f"box_hands_{box}"] += 1
        if box != prev_box:
            e[f"box_runs_{box}"] += 1
        prev_box = box
        e[f"pair_hands_{box}{captain}"] += 1
        if res["knocker"] is not None:
            e["box_knocks" if res["knocker"] == box else "captain_knocks"] += 1
            e[f"knocks_{res['knocker']}"] += 1
        if res["end"] in ("gin", "undercut"):
            e[f"{'gins' if res['end'] == 'gin' else 'undercut_wins'}_{res['winner']}"] += 1
        if res["winner"] is not None:
            role = "box" if res["winner"] == box else "captain"
            e[f"{role}_{how[res['end']]}"] += 1
            e[f"{role}_points"] += res["points"]
            e[f"hands_won_{res['winner']}"] += 1
            if role == "box":
                e[f"box_wins_{box}"] += 1
                e[f"pair_box_wins_{box}{captain}"] += 1
    return dict(e)


@pytest.mark.parametrize("rules", ["three-handed", "advisor", "classic", "fixed", "hollywood"])
def test_statistics_rows_agree_with_the_log(rules: str) -> None:
    r = RULES[rules]
    names = ["simple", "greedy-knock", "random"][: r.players]
    rows, records = driver_rows(r, names, Seeds.from_seed(5), 0, 6, log=True)
    for g, row in enumerate(rows):
        recs = [x for x in records if x["game"] == g]
        got = {name: int(row[i]) for name, i in COL.items()}
        want = expected_row(recs, r)
        skip = {"turns", "end_none", "error"} | {f"final_{s}" for s in range(3)}
        for name in GAME_COLUMNS:
            if name not in skip:
                assert got[name] == want.get(name, 0), (g, name)
        if r.hand_bonus == r.game_bonus == r.shutout_bonus == 0:
            assert all(got[f"final_{s}"] == got[f"score_{s}"] for s in range(3))
        # "turns" counts completed turns; a knock ends the hand within its turn.
        discards = sum(1 for x in recs for m in x["moves"] if m["move"] == "discard")
        knocks = sum(1 for x in recs for m in x["moves"] if m["move"] == "knock")
        assert discards - knocks <= got["turns"] <= discards
        assert got["end_none"] == 0 and got["error"] == 0


# ------------------------------------------------------------------------- the hand log

MOVE_NAMES = {"pass", "draw_discard", "draw_stock", "knock", "discard"}
END_NAMES = {"knock", "gin", "undercut", "draw", "turn_limit"}


@pytest.mark.parametrize("rules", ["three-handed", "eaai"])
def test_log_records_have_the_interface_format(rules: str) -> None:
    r = RULES[rules]
    names = ["simple", "greedy-knock:knock_at=6", "random"][: r.players]
    result = play_games(",".join(names), rules=r, games=3, seed=2, log=True)
    assert result.log
    for rec in result.log:
        assert json.loads(json.dumps(rec)) == rec  # plain JSON types only
        for key in ("game", "hand", "rules", "seats", "dealer", "nondealer", "sitter", "deal",
                    "moves", "result", "scores", "game_over", "game_winner"):
            assert key in rec, key
        assert rec["rules"] == r.name and rec["seats"] == names
        assert (rec["sitter"] is None) == (r.players == 2)
        d = rec["deal"]
        assert (len(d["dealer"]), len(d["nondealer"]), len(d["stock"])) == (10, 10, 31)
        assert isinstance(d["upcard"], str) and len(d["upcard"]) == 2
        for i, m in enumerate(rec["moves"]):
            assert m["move"] in MOVE_NAMES
            assert ("card" in m) == (m["move"] == "discard")
            if m["move"] == "knock":
                nxt = rec["moves"][i + 1]
                assert nxt["move"] == "discard" and nxt["seat"] == m["seat"]
        res = rec["result"]
        assert res["end"] in END_NAMES
        for key in ("knocker", "knocker_melds", "knocker_deadwood", "defender_melds",
                    "layoffs", "defender_deadwood", "winner", "points"):
            assert key in res, key
        if res["end"] in ("draw", "turn_limit"):
            assert (res["knocker"], res["winner"], res["points"]) == (None, None, 0)
        assert len(rec["scores"]) == r.players
    games = Counter(rec["game"] for rec in result.log)
    assert sorted(games) == [0, 1, 2]
    assert sum(games.values()) == int(result.games["hands"].sum())


# ----------------------------------------------------------------- Python strategies


class Illegal(BaseStrategy):
    """Plays like BaseStrategy until its chosen mistake."""

    def __init__(self, mistake: str) -> None:
        self.mistake = mistake
        self.name = f"illegal-{mistake}"

    def take_upcard(self, view: Any) -> bool:
        if self.mistake == "raise":
            raise ValueError("boom")
        return self.mistake == "taken"

    def knock(self, view: Any) -> bool:
        return True

    def discard(self, view: Any) -> int | str:
        if self.mistake == "taken" and view.taken is not None:
            return view.taken
        if self.mistake == "not-in-hand":
            return next(c for c in range(52) if c % 16 < 13 and c not in view.hand)
        if self.mistake == "garbage":
            return "ZZ"
        if self.mistake == "knock-high" and view.knocked:
            return max(view.deadwood_after, key=view.deadwood_after.get)  # the worst one
        return super().discard(view)


@pytest.mark.parametrize(("mistake", "pattern"), [
    ("taken", r"'illegal-taken' \(seat \d\) made an illegal move in game 0, hand \d+: "
              r"a card taken from the discard pile may not be discarded in the same turn"),
    ("not-in-hand", r"'illegal-not-in-hand' \(seat \d\) made an illegal move.*not in the "
                    r"player's hand"),
    ("garbage", r"'illegal-garbage' \(seat \d\) discarded 'ZZ'"),
    ("raise", r"'illegal-raise' \(seat \d\) raised ValueError: boom"),
    ("knock-high", r"'illegal-knock-high' .*after knocking the discard must leave deadwood "
                   r"within the knock limit"),
])
def test_illegal_python_move_raises_strategy_error(mistake: str, pattern: str) -> None:
    seats = [Illegal(mistake), Illegal(mistake), Illegal(mistake)]
    with pytest.raises(StrategyError, match=pattern):
        for g in range(20):
            GameDriver(Rules(), seats, Seeds.from_seed(g)).play(0)


def test_scripted_strategy_out_of_script_is_a_strategy_error() -> None:
    seats = [ScriptedStrategy([]), ScriptedStrategy([]), ScriptedStrategy([])]
    with pytest.raises(StrategyError, match="script exhausted"):
        GameDriver(Rules(), seats, Seeds.from_seed(0)).play(0)


def test_python_strategy_plays_full_games_and_hears_start_hand() -> None:
    calls: list = []
    base = protocol_policy(BaseStrategy())
    spies = [SpyStrategy(s, calls, base) for s in range(3)]
    _, records = driver_rows(Rules(), spies, Seeds.from_seed(3), 0, 2, log=True)
    for g in (0, 1):
        referee_game([r for r in records if r["game"] == g], Rules())
    for s, spy in enumerate(spies):
        played = sum(1 for r in records if s in (r["dealer"], r["nondealer"]))
        assert len(spy.started) == played
        assert all(v.turn == 0 for v in spy.started)


def test_python_strategy_may_answer_with_card_strings() -> None:
    class Texts(BaseStrategy):
        def discard(self, view: Any) -> str:
            return view.hand_str[view.hand.index(super().discard(view))].lower()

    _, records = GameDriver(Rules(), [Texts(), "simple", Texts()], Seeds.from_seed(1),
                            log=True).play(0)
    referee_game(records, Rules())


# ------------------------------------------------------------------------------ parsing


class _ParseCounter:
    """Wraps ``parse_strategies`` in ``sim.play.driver`` and records every call's argument."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[Any] = []
        real = sim.play.driver.parse_strategies

        def counting(text: Any) -> list[Any]:
            self.calls.append(text)
            return real(text)

        monkeypatch.setattr(sim.play.driver, "parse_strategies", counting)


@pytest.mark.parametrize(("text", "log"), [
    ("greedy-knock:knock_at=6,simple,random", False),  # compiled batches
    ("greedy-knock:knock_at=6,simple,random", True),  # the Python GameDriver, logging
    ("strategies.examples:LowCardHoarder,greedy-knock:knock_at=6,simple", False),  # a user class
])
def test_play_games_parses_the_strategies_once(monkeypatch: pytest.MonkeyPatch, text: str,
                                               log: bool) -> None:
    """``play_games`` parses its ``strategies`` at the entry point only: ``iter_games`` and
    ``GameDriver`` take the parsed specs as they are (a user class is imported once)."""
    counter = _ParseCounter(monkeypatch)
    imports: list[str] = []
    real_import = strategies.registry.importlib.import_module

    def counting_import(name: str, *args: Any) -> Any:
        imports.append(name)
        return real_import(name, *args)

    monkeypatch.setattr(strategies.registry.importlib, "import_module", counting_import)
    result = play_games(text, games=3, seed=2, log=log)
    assert counter.calls == [text]
    user_imports = [n for n in imports if n == "strategies.examples"]
    assert user_imports == (["strategies.examples"] if "examples" in text else [])
    assert ",".join(result.strategies) == text
    assert len(result.games) == 3 and (result.log is not None) == log


def test_lower_layers_still_parse_strings_and_keep_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    """``iter_games`` and ``GameDriver`` accept names (and parse them themselves, once), or
    parsed specs, which they use as given."""
    counter = _ParseCounter(monkeypatch)
    specs = parse_strategies("simple,greedy-knock,random")
    driver = GameDriver(Rules(), specs, Seeds.from_seed(1))
    assert driver.specs == specs and all(a is b for a, b in zip(driver.specs, specs, strict=True))
    rows = [r for r, _ in iter_games(Rules(), specs, 4, Seeds.from_seed(1), batch=2)]
    assert counter.calls == []
    by_name = [r for r, _ in iter_games(Rules(), ("simple", "greedy-knock", "random"), 4,
                                        Seeds.from_seed(1), batch=2)]
    assert counter.calls == [["simple", "greedy-knock", "random"]]
    np.testing.assert_array_equal(np.concatenate(rows), np.concatenate(by_name))
    GameDriver(Rules(), "simple,greedy-knock,random", Seeds.from_seed(1))
    assert counter.calls[-1] == "simple,greedy-knock,random"


# ------------------------------------------------------------------------------- fuzz


def test_fuzz_random_strategies_compiled() -> None:
    """At least 20,000 random hands in the compiled batch: no rule violation, sane rows.

    Speed is not asserted here (a timed test fails on a busy machine and proves little about
    the rules); throughput is measured by ``ginbox bench``.
    """
    rules = Rules()
    seeds = Seeds.from_seed(20260101)
    batches: list[np.ndarray] = []
    hands = 0
    while hands < 20_000:
        batches.append(batch_rows(rules, ["random"] * 3, seeds, 200 * len(batches), 200))
        hands += int(batches[-1][:, COL["hands"]].sum())
    rows = np.concatenate(batches)
    assert not rows[:, COL["error"]].any(), "a built-in strategy made an illegal move"
    ends = ["end_none", "knocks", "gins", "undercuts", "draws", "turn_limits"]
    assert (rows[:, [COL[c] for c in ends]].sum(axis=1) == rows[:, COL["hands"]]).all()
    assert (rows[:, COL["end_none"]] == 0).all()
    won = rows[:, [COL[f"hands_won_{s}"] for s in range(3)]].sum(axis=1)
    assert (won == rows[:, [COL["knocks"], COL["gins"], COL["undercuts"]]].sum(axis=1)).all()
    box = rows[:, [COL[f"box_hands_{s}"] for s in range(3)]].sum(axis=1)
    pairs = rows[:, [COL[f"pair_hands_{b}{c}"] for b in range(3) for c in range(3)]]
    assert (box == rows[:, COL["hands"]]).all() and (pairs.sum(axis=1) == box).all()
    assert (rows[:, [COL[f"pair_hands_{s}{s}"] for s in range(3)]] == 0).all()
    scores = rows[:, [COL[f"score_{s}"] for s in range(3)]]
    winners = rows[:, COL["winner"]]
    assert (scores[np.arange(len(rows)), winners] >= rules.target).all()
    assert ((scores >= rules.target).sum(axis=1) == 1).all()
    for c in ("knocks", "gins", "undercuts", "draws"):
        assert rows[:, COL[c]].sum() > 0, f"random play never produced a {c[:-1]}"


@pytest.mark.parametrize(("rules", "games"), [(Rules(), 5), (Rules.preset("eaai"), 8),
                                             (Rules.preset("oklahoma"), 3)])
def test_fuzz_random_strategies_python_path_sample(rules: Rules, games: int) -> None:
    """A sample through GameDriver, every move re-checked by the referee."""
    names = ["random"] * rules.players
    rows, records = driver_rows(rules, names, Seeds.from_seed(31337), 100, games, log=True)
    for g in range(100, 100 + games):
        referee_game([r for r in records if r["game"] == g], rules)
    np.testing.assert_array_equal(rows, batch_rows(rules, names, Seeds.from_seed(31337), 100,
                                                   games))
    assert len(records) >= 60
