"""Leagues: ratings recover known strengths, the anchor, determinism, incremental adds, resume,
and the ``ginbox league`` command with bad input."""

from __future__ import annotations

import itertools
import json
import math
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim.runs.runner
from sim.cli import main
from sim.league import (
    ELO_PER_UNIT,
    finishing_places,
    load_league,
    ratings,
    run_league,
)
from sim.league.output import leaderboard_rows, ratings_plot

TRUE = {"simple": 1500.0, "strong": 1700.0, "weak": 1250.0, "good": 1580.0}


def _synthetic(players: int, deals: int, seed: int) -> pd.DataFrame:
    """Finishing orders drawn from a Plackett-Luce model (an exponential race) with the
    strengths of TRUE, on the league's table design."""
    rng = np.random.default_rng(seed)
    names = list(TRUE)
    if players == 2:
        tables = list(itertools.permutations(names, 2))
    else:
        tables = [(a, b, b) for a, b in itertools.permutations(names, 2)]
        tables += list(itertools.combinations(names, 3))
    frames = []
    for seats in tables:
        rate = np.array([math.exp((TRUE[s] - 1500) / ELO_PER_UNIT) for s in seats])
        times = rng.exponential(1.0 / rate, size=(deals, len(seats)))
        places = times.argsort(axis=1).argsort(axis=1) + 1.0
        frame = pd.DataFrame({"deal": np.arange(deals)})
        for s in range(3):
            frame[f"strategy_{s}"] = seats[s] if s < len(seats) else None
            frame[f"place_{s}"] = places[:, s] if s < len(seats) else np.nan
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("players", [2, 3])
def test_ratings_recover_known_strengths(players: int) -> None:
    board = ratings(_synthetic(players, 1500, seed=players), strategies=list(TRUE),
                    anchor="simple", bootstrap=100, seed=1).set_index("strategy")
    for name, true in TRUE.items():
        row = board.loc[name]
        assert abs(row.rating - true) < 30, (name, row.rating, true)
        assert row.ci_low - 5 <= true <= row.ci_high + 5, (name, row.ci_low, row.ci_high)
    assert list(board.index) == ["strong", "good", "simple", "weak"]


def test_anchor_is_exactly_1500_and_the_fit_is_deterministic() -> None:
    data = _synthetic(2, 300, seed=5)
    one = ratings(data, strategies=list(TRUE), anchor="weak", bootstrap=30, seed=9)
    two = ratings(data.sample(frac=1.0, random_state=3), strategies=list(TRUE),
                  anchor="weak", bootstrap=30, seed=9)
    weak = one.set_index("strategy").loc["weak"]
    assert (weak.rating, weak.ci_low, weak.ci_high) == (1500.0, 1500.0, 1500.0)
    assert one.equals(two)  # row order of the results does not matter, the seed decides
    other = ratings(data, strategies=list(TRUE), anchor="weak", bootstrap=30, seed=10)
    assert np.allclose(one["rating"], other["rating"])
    assert not np.allclose(one["ci_low"], other["ci_low"])


def test_finishing_places_winner_first_then_by_score() -> None:
    scores = np.array([[40.0, 90.0, 10.0], [50.0, 50.0, 120.0], [30.0, 70.0, np.nan]])
    places = finishing_places(np.array([0, 2, 0]), scores)
    assert places[0].tolist() == [1, 2, 3]  # the winner first even with a lower score
    assert places[1].tolist() == [2, 2, 1]  # equal losers share a place
    assert places[2, :2].tolist() == [1, 2] and math.isnan(places[2, 2])


def test_a_strategy_that_never_wins_is_rated_by_a_one_sided_bound() -> None:
    """Its fit is the prior's and its bootstrap interval no measurement: the row gives the
    one-sided 95% bound, the rating at which 50 games without a win are the Clopper-Pearson
    limit (against the anchor alone, a bridge of the comparison graph: exact)."""
    data = _synthetic(2, 200, seed=2)
    data = data[(data["strategy_0"] != "weak") & (data["strategy_1"] != "weak")]
    lost = pd.DataFrame({"deal": np.arange(50), "strategy_0": "weak", "place_0": 2.0,
                         "strategy_1": "simple", "place_1": 1.0})
    board = ratings(pd.concat([data, lost]), anchor="simple", bootstrap=10)
    weak = board.set_index("strategy").loc["weak"]
    share = 1 - 0.05 ** (1 / 50)
    bound = 1500 + ELO_PER_UNIT * math.log((50 * share / (1 - share) + 0.5) / 50.5)
    assert bound == pytest.approx(1040.59, abs=0.01)
    assert weak["rating"] == pytest.approx(bound, abs=1e-6)
    assert (weak["bound"], weak["ci_low"], weak["ci_high"]) == ("upper", -math.inf,
                                                                 weak["rating"])
    assert weak["rank"] == len(board)  # ranked by the fit: last
    assert set(board["bound"]) == {"", "upper"}
    rows = {r[1]: r for r in leaderboard_rows(board, "simple")}
    assert rows["weak"][2:4] == ["≤ 1041", "bound: beat none"]
    assert rows["simple"][3] == "anchor" and " to " in rows["strong"][3]


def _league(tmp_path: Path, strategies: list[str], name: str = "mini") -> dict[str, object]:
    return {"name": name, "seed": 4, "games": 12, "rules": "eaai", "chunk_size": 6,
            "bootstrap": 20, "strategies": strategies}


def test_adding_a_strategy_plays_only_its_new_tables(tmp_path: Path) -> None:
    out = tmp_path / "league"
    first = run_league(_league(tmp_path, ["simple", "greedy-knock"]), jobs=1, out=out,
                       quiet=True)
    assert first.games_played == 2 * 12 and first.tables == 2
    again = run_league(_league(tmp_path, ["simple", "greedy-knock"]), jobs=1, out=out,
                       quiet=True)
    assert again.games_played == 0
    grown = run_league(_league(tmp_path, ["simple", "greedy-knock", "discard-tracking"]),
                       jobs=1, out=out, quiet=True)
    assert grown.games_played == 4 * 12  # the four pairings with discard-tracking, no more
    assert [p.name for p in grown.rounds] == ["round-000", "round-001"]
    fresh = run_league(_league(tmp_path, ["simple", "greedy-knock", "discard-tracking"]),
                       jobs=1, out=tmp_path / "fresh", quiet=True)
    assert fresh.games_played == 6 * 12
    assert grown.leaderboard.equals(fresh.leaderboard)  # history does not change the games
    for name in ("leaderboard.csv", "leaderboard.md", "ratings.png"):
        assert (out / name).stat().st_size > 0


def test_finished_tables_that_no_longer_replay_are_refused(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """A strategy whose play changed (new defaults) must not keep its old tables' games."""
    out = tmp_path / "league"
    run_league(_league(tmp_path, ["simple", "greedy-knock"]), jobs=1, out=out, quiet=True)
    real = sim.runs.runner.play_chunk

    def changed_play(*args: object, **kwargs: object) -> tuple[object, ...]:
        first, rows, *rest = real(*args, **kwargs)
        return (first, rows + 1, *rest)  # a strategy that now plays other games

    monkeypatch.setattr(sim.runs.runner, "play_chunk", changed_play)
    before = sorted(p.name for p in out.rglob("*"))
    with pytest.raises(ValueError, match=r"^cannot reuse .*round-000: its stored games do "
                                         r"not replay .*\(--out DIR\)$"):
        run_league(_league(tmp_path, ["simple", "greedy-knock", "discard-tracking"]), jobs=1,
                   out=out, quiet=True)
    assert sorted(p.name for p in out.rglob("*")) == before  # refused before writing
    monkeypatch.setattr(sim.runs.runner, "play_chunk", real)
    grown = run_league(_league(tmp_path, ["simple", "greedy-knock", "discard-tracking"]),
                       jobs=1, out=out, quiet=True)
    assert grown.games_played == 4 * 12


def test_an_interrupted_league_resumes_to_the_same_ratings(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    league = _league(tmp_path, ["simple", "greedy-knock", "gin-hunter"])
    real = sim.runs.runner.write_chunk
    calls = []

    def failing(*args: object, **kwargs: object) -> None:
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        real(*args, **kwargs)

    monkeypatch.setattr(sim.runs.runner, "write_chunk", failing)
    with pytest.raises(KeyboardInterrupt):
        run_league(league, jobs=1, out=tmp_path / "cut", quiet=True)
    monkeypatch.setattr(sim.runs.runner, "write_chunk", real)
    resumed = run_league(league, jobs=1, out=tmp_path / "cut", quiet=True)
    assert resumed.games_played == 6 * 12 - 3 * 6  # three chunks of 6 games were saved
    whole = run_league(league, jobs=1, out=tmp_path / "whole", quiet=True)
    assert resumed.leaderboard.equals(whole.leaderboard)


def test_league_file_errors_name_the_field() -> None:
    base = {"name": "x", "seed": 1, "games": 6, "rules": "eaai",
            "strategies": ["simple", "greedy-knock"]}
    cases = [({"strategies": ["greedy-knock", "random"]}, "anchor='simple'"),
             ({"anchor": "random"}, "anchor='random'"),
             ({"strategies": ["simple", "simple"]}, "repeats"),
             ({"strategies": ["simple", "nope"]}, "strategies[1]='nope'"),
             ({"games": 0}, "games=0"),
             ({"rules": "poker"}, "rules: unknown rules preset 'poker'"),
             ({"overrides": {"gin": 1}}, "overrides.gin is not a rules field"),
             ({"seats": 3}, "unknown key(s) 'seats'")]
    for change, text in cases:
        with pytest.raises(ValueError) as info:
            load_league({**base, **change})
        assert text in str(info.value), (change, str(info.value))
    spec = load_league({**base, "anchor": "greedy-knock"})
    assert spec.tables() == [("simple", "greedy-knock"), ("greedy-knock", "simple")]


def test_cli_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    good = tmp_path / "good.toml"
    good.write_text('name = "cli"\nseed = 2\ngames = 6\nrules = "three-handed"\n'
                    'strategies = ["simple", "greedy-knock"]\nbootstrap = 10\n')
    assert main(["league", str(good), "--jobs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "played 12 games into results/cli" in out
    assert "rank  strategy" in out and "anchor" in out and "Plackett-Luce" in out
    board = pd.read_csv(tmp_path / "results/cli/leaderboard.csv")
    assert set(board["strategy"]) == {"simple", "greedy-knock"}
    assert json.loads((tmp_path / "results/cli/league.json").read_text())["settings"]["games"] == 6

    bad = {"nosimple.toml": 'name = "b"\nseed = 1\ngames = 6\nstrategies = ["random", '
                            '"greedy-knock"]\n',
           "typo.toml": 'name = "b"\nseed = 1\ngames = 6\nstrategies = ["simple", "greedy"]\n'
                        'gamez = 3\n',
           "broken.toml": 'name = "b\n'}
    for name, text in bad.items():
        (tmp_path / name).write_text(text)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    commands = [[name] for name in bad] + [
        ["missing.toml"], [str(good), "--games", "0"], [str(good), "--seed", "3"],
        [str(good), "--out", "good.toml"]]
    for argv in commands:
        assert main(["league", *argv, "--jobs", "1", "--quiet"]) == 2, argv
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("ginbox: error: "), (argv, captured.err)
        assert captured.out == ""
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_league_too_large_to_rate_in_memory_is_refused() -> None:
    """Every game's result is held for the fit: a league beyond the bound is refused in one
    line before anything is played or written."""
    from sim.league.spec import MAX_LEAGUE_GAMES, load_league

    names = ["simple", "random", "greedy-knock", "gin-hunter", "discard-tracking"]
    data = {"name": "big", "seed": 1, "games": 10_000_000, "rules": "eaai",
            "strategies": names}
    with pytest.raises(ValueError, match=r"^games=10,000,000 at each of 20 tables makes "
                                         r"200,000,000 games: at most 20,000,000 in a league"):
        load_league(data)
    ok = load_league({**data, "games": MAX_LEAGUE_GAMES // 20})
    assert len(ok.tables()) * ok.games == MAX_LEAGUE_GAMES


SHIPPED_LEAGUES = sorted((Path(__file__).resolve().parent.parent / "experiments")
                         .glob("league_*.toml"))


#: Stand-ins named as the EAAI framework's players a shipped league seats (``eaai:``): a
#: league file's strategies are checked against a classpath, and the real players are not
#: part of ginbox.
STAND_INS = {"ginrummy/SimpleGinRummyPlayer.java":
             "package ginrummy; public class SimpleGinRummyPlayer "
             "extends ginboxtest.RandomPlayer {}",
             "MARJJ_v5.java": "public class MARJJ_v5 extends ginboxtest.RandomPlayer {}"}


def _stand_in_classpath(root: Path) -> str:
    """tests/java's stand-in framework API with STAND_INS, compiled into ``root``."""
    assert shutil.which("javac") and shutil.which("java"), (
        "the shipped league with EAAI players needs a JDK: apt-get install default-jdk-headless")
    sources = sorted(str(p) for p in (Path(__file__).resolve().parent / "java").rglob("*.java"))
    for name, text in STAND_INS.items():
        (root / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / name).write_text(text + "\n")
        sources.append(str(root / "src" / name))
    subprocess.run(["javac", "-nowarn", "-d", str(root / "classes"), *sources], check=True)
    return str(root / "classes")


@pytest.mark.parametrize("path", SHIPPED_LEAGUES, ids=lambda p: p.stem)
def test_shipped_leagues_load_and_balance_the_seats(path: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shipped league file loads, is named after its file, round-trips, and plays a
    multiple of the seatings per table (2 two-handed, 6 three-handed) so the rotation gives
    every strategy every seat and role equally often."""
    if "eaai:" in path.read_text():
        monkeypatch.setenv("GINBOX_EAAI_CLASSPATH", _stand_in_classpath(tmp_path))
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = load_league(path)
    assert spec.name == path.stem
    assert load_league(spec.to_dict()) == spec
    assert spec.games % math.factorial(spec.players) == 0
    assert "simple" in spec.strategies and spec.anchor == "simple"


@pytest.mark.parametrize("name", ["../evil", "-x", "a" * 51, "caf\u00e9", ""])
def test_league_and_tuning_names_follow_the_experiments_rule(name: str) -> None:
    """One rule for every results folder's name (sim.runs.experiment.check_run_name); a
    league's is at most 50 characters, leaving room for ``-round-<k>``."""
    from sim.tune import load_tune

    league = {"name": name, "seed": 1, "games": 2, "strategies": ["simple", "random"]}
    with pytest.raises(ValueError, match=r"^name=.* is not valid: expected 1-50 letters"):
        load_league(league)
    if len(name) <= 50:  # 51 characters is a good tuning name
        with pytest.raises(ValueError, match=r"^name=.* is not valid: expected 1-64 letters"):
            load_tune({"name": name, "seed": 1, "strategy": "discard-tracking",
                       "field": ["simple"]})


def test_the_method_line_says_no_intervals_without_resamples() -> None:
    from sim.league.output import method

    spec = load_league({"name": "m", "seed": 4, "games": 2, "rules": "eaai",
                        "strategies": ["simple", "random"], "bootstrap": 0})
    assert method(spec).endswith("simple = 1500; no intervals (bootstrap = 0: no resamples)")
    assert method(spec.replace(bootstrap=1200)).endswith(
        "simple = 1500; 95% CI from 1,200 bootstrap resamples of deals (seed 4)")


def test_the_ratings_plot_keeps_its_scale_for_a_bound_and_a_long_name(tmp_path: Path) -> None:
    """A bound far below (``random``'s) is an arrow at the edge, not the axis' end; a long
    import path is cut in the middle rather than squeezing the axes to nothing."""
    long_name = "mybots.sly:SlyBot:path=/home/someone/models/" + "x" * 80 + "/policy.npz"
    board = pd.DataFrame({
        "rank": [1, 2, 3], "strategy": ["simple", long_name, "random"],
        "rating": [1500.0, 1480.0, -253.0], "ci_low": [1500.0, 1440.0, -math.inf],
        "ci_high": [1500.0, 1520.0, -253.0], "bound": ["", "", "upper"],
        "games": [40, 40, 40], "wins": [30, 10, 0], "win_rate": [0.75, 0.25, 0.0],
        "comparisons": [40.0, 40.0, 40.0]})
    spec = load_league({"name": "plot", "seed": 1, "games": 2, "rules": "eaai",
                        "strategies": ["simple", "greedy-knock", "random"]})
    fig = ratings_plot(spec, board)
    ax = fig.axes[0]
    assert ax.get_xlim() == pytest.approx((1415.0, 1545.0))  # 1440..1520 and 25 either side
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[1] == "mybots.sly:SlyBot…xxxxxx/policy.npz" and len(labels[1]) == 35
    assert "≤ -253" in [t.get_text() for t in ax.texts]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig.savefig(tmp_path / "ratings.png")
