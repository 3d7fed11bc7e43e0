"""Tests for sim.analysis.report, sim.analysis.plots and the ``ginbox run`` / ``ginbox report``
commands.

The report's numbers are checked against a direct recount from hand logs of the very same
games (played again through the Python driver with the runner's seeds and seating), the paired
design against two identical arms (difference exactly 0, zero-width interval), and the commands
end to end as a user runs them.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.container import ErrorbarContainer

from sim.analysis import plots
from sim.analysis.report import (
    MIN_DISCORDANT,
    Z95,
    box_retention,
    box_runs,
    gin_bonus_study,
    hand_outcomes,
    knock_sweep,
    paired_difference,
    report,
    seat_win_rates,
    wilson,
    win_rates,
)
from sim.cli import main
from sim.play.driver import Seeds, iter_games, play_games
from sim.runs.experiment import load_experiment
from sim.runs.runner import RunResult, load_results, run_experiment

FIELD = ["greedy-knock", "simple", "random"]
ONE_VS_TWO = ["simple", "greedy-knock", "greedy-knock"]

SPEC: dict[str, Any] = {
    "name": "rep",
    "seed": 7,
    "games": 30,
    "chunk_size": 12,  # 3 chunks per arm, the last one short
    "arms": [
        {"name": "gin 25", "strategies": FIELD, "seating": "rotate"},
        {"name": "gin 20", "rules": "three-handed-20", "strategies": FIELD, "seating": "rotate"},
        {"name": "one vs two", "strategies": ONE_VS_TWO, "seating": [2, 0, 1]},
    ],
}


def run(spec: dict[str, Any], out: Path) -> RunResult:
    return run_experiment(spec, out=out, jobs=1, quiet=True)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return run(SPEC, tmp_path_factory.mktemp("report") / "rep")


@pytest.fixture(scope="module")
def logs(small: RunResult) -> list[list[dict[str, Any]]]:
    """Hand logs of the same games: every arm with Seeds.from_seed(seed) and its seating."""
    spec = load_experiment(SPEC)
    seeds = Seeds.from_seed(spec.seed)
    out = []
    for arm in spec.arms:
        if arm.rotate:
            records = [r for _, recs in iter_games(arm.resolved_rules, arm.strategies,
                                                   spec.games, seeds, log=True, batch=10,
                                                   rotate=True) for r in recs]
        else:  # fixed initial roles live in the rules: play_games plays the same games
            records = play_games(list(arm.strategies), arm.resolved_rules, games=spec.games,
                                 seed=spec.seed, log=True).log or []
        out.append(records)
    return out


# ------------------------------------------------------------------------------- Wilson


def test_wilson_known_values() -> None:
    cases = {(0, 10): (0.0, 0.2775), (5, 10): (0.2366, 0.7634), (81, 263): (0.2553, 0.3662),
             (10, 10): (0.7225, 1.0)}
    for (k, n), (low, high) in cases.items():
        lo, hi = wilson(k, n)
        assert isinstance(lo, float)
        assert (round(lo, 4), round(hi, 4)) == (low, high)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    lo, hi = wilson(np.array([0, 5, 81, 10]), np.array([10, 10, 263, 10]))
    assert np.round(lo, 4).tolist() == [0.0, 0.2366, 0.2553, 0.7225]
    assert np.round(hi, 4).tolist() == [0.2775, 0.7634, 0.3662, 1.0]
    assert all(math.isnan(v) for v in wilson(0, 0))
    assert wilson(5, 10, z=1.0)[0] == pytest.approx(0.5 - 1 / (2 * math.sqrt(11)))  # z = 1
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson(11, 10)


# --------------------------------------------------------------- numbers vs a recount


def recount(records: list[dict[str, Any]], strategies: list[str]) -> dict[str, Counter[Any]]:
    """Wins, box keeps, spells, hand ends by role and points, straight from the hand log."""
    c: dict[str, Counter[Any]] = {k: Counter() for k in (
        "wins", "pair_hands", "pair_keeps", "box_hands", "box_wins", "runs", "outcomes",
        "points", "hands", "games", "seat_wins")}
    previous_box: dict[int, int] = {}
    for r in records:
        game, box, captain, res = r["game"], r["dealer"], r["nondealer"], r["result"]
        bs, cs = strategies[box], strategies[captain]
        c["pair_hands"][(bs, cs)] += 1
        c["box_hands"][bs] += 1
        if r["hand"] == 0 or previous_box[game] != box:
            c["runs"][bs] += 1
        previous_box[game] = box
        c["hands"]["all"] += 1
        if res["winner"] is None:
            c["outcomes"][("any", res["end"])] += 1
        else:
            role = "box" if res["winner"] == box else "captain"
            outcome = {"knock": "knock_win", "gin": "gin", "undercut": "undercut_win"}[
                res["end"]]
            c["outcomes"][(role, outcome)] += 1
            c["outcomes"][(role, "win")] += 1
            c["outcomes"][("any", outcome)] += 1
            c["points"][role] += res["points"]
            if role == "box":
                c["pair_keeps"][(bs, cs)] += 1
                c["box_wins"][bs] += 1
        if res["knocker"] is not None:
            c["outcomes"][("box" if res["knocker"] == box else "captain", "knocked")] += 1
        if r["game_over"]:
            c["games"]["all"] += 1
            c["wins"][strategies[r["game_winner"]]] += 1
            c["seat_wins"][r["game_winner"]] += 1
    return c


def test_report_numbers_equal_a_recount_from_the_hand_log(
        small: RunResult, logs: list[list[dict[str, Any]]]) -> None:
    wr, pairs, spells, outcomes = (win_rates(small), box_retention(small), box_runs(small),
                                   hand_outcomes(small))
    seats = seat_win_rates(small)
    for arm, records in enumerate(logs):
        strategies = SPEC["arms"][arm]["strategies"]
        assert {r["game"] for r in records} == set(range(SPEC["games"]))
        c = recount(records, strategies)
        assert c["games"]["all"] == SPEC["games"]

        rows = wr[wr["arm"] == arm].set_index("strategy")
        assert rows["wins"].to_dict() == {s: c["wins"][s] for s in dict.fromkeys(strategies)}
        assert (rows["games"] == SPEC["games"]).all()
        assert rows["seats"].to_dict() == dict(Counter(strategies))
        rows = seats[seats["arm"] == arm]
        assert rows["wins"].tolist() == [c["seat_wins"][s] for s in range(3)]
        assert rows["strategy"].tolist() == strategies

        rows = pairs[pairs["arm"] == arm].set_index(["box_strategy", "captain_strategy"])
        assert {k: v for k, v in rows["hands"].to_dict().items() if v} == dict(c["pair_hands"])
        assert rows["box_wins"].sum() == sum(c["pair_keeps"].values())
        for key, kept in c["pair_keeps"].items():
            assert rows.loc[key, "box_wins"] == kept

        rows = spells[spells["arm"] == arm].set_index("box_strategy")
        for s in dict.fromkeys(strategies):
            assert rows.loc[s, "hands"] == c["box_hands"][s]
            assert rows.loc[s, "box_wins"] == c["box_wins"][s]
            assert rows.loc[s, "runs"] == c["runs"][s]

        rows = outcomes[outcomes["arm"] == arm].set_index(["role", "outcome"])
        hands = c["hands"]["all"]
        for (role, outcome), row in rows.iterrows():
            if row["ci_method"] == "wilson":
                assert row["n"] == hands
                assert row["count"] == c["outcomes"][(role, outcome)], (role, outcome)
        assert rows.loc[("box", "points"), "count"] == c["points"]["box"]
        assert rows.loc[("captain", "points"), "count"] == c["points"]["captain"]
        assert rows.loc[("any", "hands_per_game"), "rate"] == pytest.approx(
            hands / SPEC["games"])


def test_rates_and_intervals_are_consistent(small: RunResult) -> None:
    wr = win_rates(small)
    assert list(wr.columns[:10]) == ["arm", "arm_name", "strategy", "seats", "games", "wins",
                                     "win_rate", "ci_low", "ci_high", "fair_share"]
    lo, hi = wilson(wr["wins"].to_numpy(), wr["games"].to_numpy())
    assert np.array_equal(wr["ci_low"], lo) and np.array_equal(wr["ci_high"], hi)
    assert wr.groupby("arm")["wins"].sum().tolist() == [SPEC["games"]] * 3  # one winner a game
    two = wr[(wr["arm"] == 2) & (wr["strategy"] == "greedy-knock")].iloc[0]
    assert two["seats"] == 2 and two["fair_share"] == pytest.approx(2 / 3)
    assert two["per_seat_rate"] == pytest.approx(two["win_rate"] / 2)

    # hands per game: the mean of the per-game column with mean +- z sd / sqrt(n)
    games = small.games
    ho = hand_outcomes(small).set_index(["arm", "role", "outcome"])
    for arm in range(3):
        hands = games.loc[games["arm"] == arm, "hands"].to_numpy(float)
        row = ho.loc[(arm, "any", "hands_per_game")]
        half = Z95 * hands.std(ddof=1) / math.sqrt(len(hands))
        assert row["rate"] == pytest.approx(hands.mean())
        assert row["ci_low"] == pytest.approx(hands.mean() - half)
        assert row["ci_high"] == pytest.approx(hands.mean() + half)


def test_report_reads_chunks_only(small: RunResult, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports aggregate chunk by chunk: they never load every game nor replay one."""
    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the report must not read all games at once or replay games")

    monkeypatch.setattr(RunResult, "read_games", forbidden)
    monkeypatch.setattr("sim.play.driver.iter_games", forbidden)
    monkeypatch.setattr("sim.runs.runner.play_chunk", forbidden)
    rep = report(load_results(small.out))
    assert rep.win_rates["wins"].sum() == 3 * SPEC["games"]


# --------------------------------------------------------------------------- pairing


def test_identical_arms_differ_by_exactly_zero(tmp_path: Path) -> None:
    spec = {"name": "twins", "seed": 3, "games": 24, "chunk_size": 10,
            "arms": [{"name": "a", "strategies": FIELD}, {"name": "b", "strategies": FIELD}]}
    result = run(spec, tmp_path / "twins")
    diff = paired_difference(result, "a", "b")
    assert len(diff) == 4 * 3 + 5  # four per-strategy metrics x 3 strategies, five table ones
    assert (diff["games"] == 24).all() and (diff["discordant"] == 0).all()
    assert (diff["diff"] == 0.0).all()
    assert (diff["ci_low"] == 0.0).all() and (diff["ci_high"] == 0.0).all()
    assert (diff["value_a"] == diff["value_b"]).all()
    assert (diff["verdict"] == "not significant").all()
    assert report(result).comparisons.empty  # same rules: not a rules comparison


def test_paired_difference_is_the_per_game_paired_interval(small: RunResult) -> None:
    games = small.games
    a = games[games["arm"] == 0].reset_index(drop=True)
    b = games[games["arm"] == 1].reset_index(drop=True)
    assert a["game"].equals(b["game"])
    study = gin_bonus_study(small)
    assert set(study["change"]) == {"gin_bonus 25 -> 20"}
    assert (study[["arm_a", "arm_b"]].drop_duplicates().values.tolist() == [[0, 1]])
    rows = study.set_index(["metric", "strategy"])
    n = len(a)

    def check(row: pd.Series, d: np.ndarray, diff: float) -> None:
        half = Z95 * d.std(ddof=1) / math.sqrt(n)
        assert row["diff"] == pytest.approx(diff, abs=1e-12)
        assert row["ci_low"] == pytest.approx(diff - half, abs=1e-12)
        assert row["ci_high"] == pytest.approx(diff + half, abs=1e-12)

    for seat, strategy in enumerate(FIELD):  # game win rate: mean of per-game differences
        d = (b["winner"] == seat).to_numpy(float) - (a["winner"] == seat).to_numpy(float)
        check(rows.loc[("win_rate", strategy)], d, d.mean())
        assert rows.loc[("win_rate", strategy), "discordant"] == int((d != 0).sum())
    d = (b["hands"] - a["hands"]).to_numpy(float)
    check(rows.loc[("hands_per_game", "all")], d, d.mean())
    # gin rate, a ratio of sums: per-game linearised terms (x - R y) / mean(y)
    ra, rb = a["gins"].sum() / a["hands"].sum(), b["gins"].sum() / b["hands"].sum()
    d = ((b["gins"] - rb * b["hands"]) / b["hands"].mean()
         - (a["gins"] - ra * a["hands"]) / a["hands"].mean()).to_numpy(float)
    check(rows.loc[("gin_rate", "all")], d, rb - ra)
    with pytest.raises(ValueError, match="same arm"):
        paired_difference(small, 1, "gin 20")
    with pytest.raises(ValueError, match="metric='speed' is not known"):
        paired_difference(small, 0, 1, "speed")
    with pytest.raises(ValueError, match="arm 'nope' is not in this run"):
        paired_difference(small, 0, "nope")


def test_significance_needs_discordant_games() -> None:
    from sim.analysis.report import _verdict

    assert _verdict(0.01, 0.02, MIN_DISCORDANT) == "significant"
    assert _verdict(0.01, 0.02, MIN_DISCORDANT - 1) == "not significant"
    assert _verdict(-0.01, 0.02, 500) == "not significant"


# ----------------------------------------------------------------------- knock sweep


def test_knock_sweep(tmp_path: Path) -> None:
    spec = {"name": "sweep", "seed": 5, "games": 24, "chunk_size": 12,
            "arms": [{"name": "k={k}", "strategies": ["greedy-knock:knock_at={k}", "simple",
                                                       "simple"], "sweep": {"k": [1, 6]}},
                     {"name": "default", "strategies": ["greedy-knock", "simple", "simple"]}]}
    result = run(spec, tmp_path / "sweep")
    sweep = knock_sweep(result)
    assert sweep["knock_at"].tolist() == [1, 6, 10]  # the default knocks at the knock limit
    games = result.games
    wins = [int(((games["arm"] == arm) & (games["winner"] == 0)).sum()) for arm in range(3)]
    assert sweep.sort_values("arm")["wins"].tolist() == wins
    assert sweep["fair_share"].tolist() == pytest.approx([1 / 3] * 3)
    assert (sweep["seat"] == 0).all()
    best = sweep[sweep["rank"] == 1]
    assert len(best) == 1 and best["verdict"].iloc[0] == "best"
    assert best["win_rate"].iloc[0] == sweep["win_rate"].max()
    assert (sweep.loc[sweep["rank"] > 1, "diff_vs_best"] <= 0).all()
    rep = report(result)
    assert rep.knock_sweep is not None and rep.comparisons.empty
    assert "best knock_at = " in rep.headline()
    with pytest.raises(ValueError, match="do not sweep knock_at"):
        knock_sweep(run({**SPEC, "games": 6, "name": "x"}, tmp_path / "x"))


# ------------------------------------------------------------------ report and plots


def test_report_sections_files_and_plots(small: RunResult, tmp_path: Path) -> None:
    rep = report(small.out)
    assert rep.knock_sweep is None and rep.comparison_kind == "gin_bonus"
    text = rep.to_markdown()
    for heading in ("# rep", "## Game win rates", "### Seat control",
                    "## Gin bonus: paired differences",
                    "## Box retention", "## Hand outcomes", "![", "comparisons.png"):
        assert heading in text
    assert "Knock sweep" not in text
    out = tmp_path / "copy"
    out.mkdir()
    (out / "knock_sweep.csv").write_text("mine")  # not written by ginbox: left alone
    written = {p.name for p in rep.write(out)}
    assert written == {"report.md", "win_rates.csv", "seat_win_rates.csv", "box_retention.csv",
                       "box_retention_pooled.csv", "box_runs.csv", "hand_outcomes.csv",
                       "comparisons.csv", "win_rates.png", "box_retention.png",
                       "comparisons.png"}
    assert {p.name for p in out.iterdir()} == written | {".ginbox-written.json",
                                                         "knock_sweep.csv"}
    back = pd.read_csv(out / "win_rates.csv")
    assert back["wins"].tolist() == rep.win_rates["wins"].tolist()
    for name, fig in rep.figures().items():
        title = (fig._suptitle.get_text() if fig._suptitle else "") + " ".join(
            ax.get_title() for ax in fig.axes)
        assert "rep: 30 games per arm x 3 arms, seed 7" in title, name
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                assert ax.get_ylabel()
                continue
            assert ax.get_xlabel() and ax.get_ylabel() is not None
            if name != "box_retention":
                assert any(isinstance(c, ErrorbarContainer) for c in ax.containers), name
        assert (out / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    path = plots.save(rep.figures()["win_rates"], tmp_path / "w.png")
    assert path.read_bytes()[:4] == b"\x89PNG" and not list(tmp_path.glob(".*.tmp"))


# ------------------------------------------------------------------------------ CLI

TOML = """name = "tiny"
seed = 9
games = 12
chunk_size = 6
[defaults]
strategies = ["greedy-knock", "simple", "greedy-knock:knock_at=0"]
[[arms]]
name = "gin 25"
[[arms]]
name = "gin 20"
rules = "three-handed-20"
"""


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_and_report_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml = tmp_path / "tiny.toml"
    toml.write_text(TOML)
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "sim", "run", str(toml), "--out", str(out),
                           "--jobs", "1", "--quiet"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert f"ran 24 games into {out}" in proc.stdout
    assert "tiny: 12 games per arm x 2 arms, seed 9 - game win rates" in proc.stdout
    assert "greedy-knock:knock_at=0" in proc.stdout
    assert f"report: {out / 'report.md'} (7 CSV tables, 3 PNG plots)" in proc.stdout
    files = {p.name for p in out.iterdir()}
    assert {"manifest.json", "report.md", "win_rates.csv", "comparisons.csv",
            "win_rates.png", "box_retention.png", "comparisons.png"} <= files
    assert not [f for f in files if f.endswith(".tmp")]
    before = (out / "comparisons.csv").read_text()

    (out / "report.md").unlink()
    (out / "comparisons.csv").unlink()
    code, stdout, err = call(capsys, "report", str(out))
    assert code == 0 and err == ""
    assert stdout.startswith("tiny: 12 games per arm x 2 arms, seed 9 - game win rates")
    assert (out / "comparisons.csv").read_text() == before  # the same report again
    assert "## Gin bonus: paired differences" in (out / "report.md").read_text()

    code, stdout, err = call(capsys, "run", str(toml), "--out", str(out), "--jobs", "1",
                             "--quiet")
    assert code == 2 and stdout == ""
    assert "already holds a run of 'tiny'" in err and "--resume" in err
    code, stdout, err = call(capsys, "run", str(toml), "--out", str(out), "--jobs", "1",
                             "--quiet", "--resume")
    assert code == 0 and "game win rates" in stdout
    assert stdout.startswith(f"nothing to run: all 24 games in {out} were already played\n")

    next(out.glob("arm=1/*.parquet")).unlink()  # as if interrupted: one chunk of 6 games lost
    code, stdout, err = call(capsys, "run", str(toml), "--out", str(out), "--jobs", "1",
                             "--quiet", "--resume")
    assert code == 0 and err == ""
    first = stdout.splitlines()[0]
    assert first.startswith(f"ran 6 games into {out} in ")
    manifest = json.loads((out / "manifest.json").read_text())
    total = manifest["timings"]["wall_seconds"]
    assert total == round(sum(s["wall_seconds"] for s in manifest["sessions"]), 3)
    assert first.endswith(f"; 18 were already played; 3 sessions, {total:,.1f} s of wall time "
                          "in all")


BAD_INPUT = [
    (["run", "{tmp}/missing.toml"], "cannot read experiment file"),
    (["run", "{tmp}/malformed.toml"], "malformed TOML"),
    (["run", "{tmp}/unknown.toml"], "unknown key(s) 'colour' in the experiment"),
    (["run", "{tmp}/range.toml"], "games=0 is out of range: expected an integer 1..1,000,000,000"),
    (["run", "{tmp}/good.toml", "--games", "0"], "argument --games: 0 is out of range"),
    (["run", "{tmp}/good.toml", "--jobs", "x"], "argument --jobs: 'x' is not an integer"),
    (["run", "{tmp}/good.toml", "--backend", "spark"], "invalid choice: 'spark'"),
    (["run", "{tmp}/good.toml", "--resume", "--force"], "not allowed with argument"),
    (["run", "{tmp}/good.toml", "--scheduler", "tcp://x:1"], "scheduler is only used with"),
    (["report", "{tmp}"], "is not a ginbox results directory"),
    (["report", "{tmp}/nowhere"], "/nowhere does not exist: expected a results directory "
                                  "written by 'ginbox run' (holding manifest.json)"),
    (["report", "{tmp}/good.toml"], "/good.toml is not a results directory: expected a "
                                    "directory written by 'ginbox run'"),
    (["report"], "the following arguments are required: DIR"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_INPUT,
                         ids=[" ".join(a)[:40] for a, _ in BAD_INPUT])
def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch,
                                              argv: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)  # a default results/<name> would land here
    (tmp_path / "good.toml").write_text(TOML)
    (tmp_path / "malformed.toml").write_text("name = 'x'\ngames = [1,\n")
    (tmp_path / "unknown.toml").write_text(TOML.replace("chunk_size = 6", "colour = 6"))
    (tmp_path / "range.toml").write_text(TOML.replace("games = 12", "games = 0"))
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = call(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert code == 2 and out == ""
    assert err.startswith("ginbox: error: ") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_report_of_an_incomplete_run_exits_2(small: RunResult, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "partial"
    out.mkdir()
    manifest = json.loads((small.out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(manifest))
    code, stdout, err = call(capsys, "report", str(out))
    assert code == 2 and "is incomplete (0 of 9 chunks)" in err
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]
