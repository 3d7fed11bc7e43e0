"""``ginbox tune`` / :mod:`sim.tune`: the search finds optima, improves a bad strategy on real
games, resumes after ``kill -9`` to the same result, is deterministic, and refuses bad input.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path

import pytest
from support.tune_objective import MIX_SPEC, OPTIMUM, SPEC, Synthetic, SyntheticMix, kill_mid_tune

from sim.cli import main
from sim.tune import CHECKPOINT, HOLDOUT_FIRST_GAME, load_tune, tune
from sim.tune.output import best_measured

ROOT = Path(__file__).resolve().parent.parent


def test_recovers_the_optimum_of_a_synthetic_objective(tmp_path: Path) -> None:
    result = tune(SPEC, out=tmp_path / "t", evaluator=Synthetic(), quiet=True)
    assert result.values == OPTIMUM
    assert result.tuned == "discard-tracking:knock_at=7,slack=13,caution=2"
    assert (tmp_path / "t" / "tuned.txt").read_text() == result.tuned + "\n"
    h = result.holdout
    assert h is not None and h["first_game"] == 2**40 and h["difference_low"] > 0.2
    curve = result.curve()
    assert list(curve["generation"]) == list(range(25))
    assert curve["incumbent_win_rate"].iloc[-1] > curve["incumbent_win_rate"].iloc[0] + 0.2
    assert (curve["best_low"] <= curve["best_win_rate"]).all()
    for name in ("learning_curve.csv", "learning_curve.png", "summary.json", CHECKPOINT):
        assert (tmp_path / "t" / name).stat().st_size > 0


def test_same_seed_same_tune_and_another_seed_another(tmp_path: Path) -> None:
    spec = {**SPEC, "generations": 4}
    a = tune(spec, out=tmp_path / "a", evaluator=Synthetic(), quiet=True)
    b = tune(spec, out=tmp_path / "b", evaluator=Synthetic(), quiet=True)
    c = tune({**spec, "seed": 6}, out=tmp_path / "c", evaluator=Synthetic(), quiet=True)
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in a.history]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in b.history]
    assert [r["best"] for r in a.history] != [r["best"] for r in c.history]


@pytest.mark.parametrize(("objective", "base", "changed", "fields"), [
    (Synthetic, SPEC, {"seed": 9}, 1),
    (SyntheticMix, MIX_SPEC, {"weights": [1, 1]}, 2),  # a mix: every field, each generation
], ids=["one field", "mix"])
def test_resume_after_kill_9_gives_the_same_result(tmp_path: Path, objective: type,
                                                   base: dict, changed: dict,
                                                   fields: int) -> None:
    spec = {**base, "generations": 8}
    whole = tune(spec, out=tmp_path / "whole", evaluator=objective(), quiet=True)
    out = tmp_path / "killed"
    name = "SPEC" if base is SPEC else "MIX_SPEC"
    done = kill_mid_tune(f"{objective.__name__}(0.4 / {fields})",
                         f"{{**{name}, 'generations': 8}}", out)
    assert 1 <= done < 8
    with pytest.raises(ValueError, match="already holds a tune"):
        tune(spec, out=out, evaluator=objective(), quiet=True)
    with pytest.raises(ValueError, match="different tune"):
        tune({**spec, **changed}, out=out, evaluator=objective(), quiet=True, resume=True)
    evaluator = objective()
    resumed = tune(spec, out=out, evaluator=evaluator, quiet=True, resume=True)
    assert evaluator.calls == fields * (8 - done)  # only the missing generations were played
    strip = [[{k: v for k, v in r.items() if k != "seconds"} for r in t.history]
             for t in (whole, resumed)]
    assert strip[0] == strip[1]
    assert (resumed.values, resumed.holdout) == (whole.values, whole.holdout)


def test_improves_a_bad_strategy_on_real_games(tmp_path: Path) -> None:
    """greedy-knock:knock_at=2 wins about 21% against two greedy-knock (the default,
    knock_at=10, about a third): a few small generations find much higher thresholds."""
    spec = {"name": "real", "seed": 1, "strategy": "greedy-knock:knock_at=2",
            "field": ["greedy-knock", "greedy-knock"], "generations": 3, "population": 5,
            "games_per_candidate": 300, "holdout_games": 600, "sigma0": 0.5,
            "chunk_size": 300}
    result = tune(spec, out=tmp_path / "r", jobs=1, quiet=True)
    assert result.params["knock_at"] >= 6
    h = result.holdout
    assert h is not None and h["difference_low"] > 0
    assert result.tuned.startswith("greedy-knock:knock_at=")


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(("body", "message"), [
    ('name = "x"\nseed = 1\nstrategy = "nope"\nfield = ["simple", "simple"]\n',
     "strategy='nope': unknown strategy"),
    ('name = "x"\nseed = 1\nstrategy = "discard-tracking"\nparams = ["knock"]\n'
     'field = ["simple", "simple"]\n', "unknown parameter 'knock'"),
    ('name = "x"\nseed = 1\nstrategy = "simple"\nfield = ["simple", "simple"]\n',
     "simple has no parameters to tune"),
    ('name = "x"\nseed = 1\nstrategy = "greedy-knock"\nfield = ["simple"]\n',
     "field has 1 strategies"),
    ('name = "x"\nseed = 1\nstrategy = "greedy-knock"\nfield = ["simple", "simple"]\n'
     'generations = 0\n', "generations=0 is out of range"),
    ('name = "x"\nseed = 1\nstrategy = "greedy-knock"\nfield = ["simple", "simple"]\n'
     'colour = 3\n', "unknown key(s) 'colour'"),
    ('name = "x"\nseed = 1\nstrategy = "greedy-knock"\nfield = ["simple", "simple"\n',
     "malformed TOML"),
])
def test_cli_refuses_bad_input_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch, body: str,
                                            message: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "bad.toml", body)
    assert main(["tune", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ginbox: error: ") and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_a_parameter_with_no_range_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from sim.tune import spec as spec_module
    from strategies.registry import ParamInfo

    real = spec_module.parse_strategy

    def fixed(text: str):  # type: ignore[no-untyped-def]
        parsed = real(text)
        if parsed.name != "greedy-knock":
            return parsed
        info = dataclasses.replace(parsed.info, params=(ParamInfo("knock_at", None, 4, 4, ""),))
        return dataclasses.replace(parsed, info=info)

    monkeypatch.setattr(spec_module, "parse_strategy", fixed)
    with pytest.raises(ValueError, match="knock_at has no range to search"):
        load_tune({"name": "x", "seed": 1, "strategy": "greedy-knock",
                   "field": ["simple", "simple"]})


def test_cli_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "t.toml", 'name = "t"\nseed = 2\nstrategy = "greedy-knock"\n'
                  'field = ["simple"]\nrules = "eaai"\ngenerations = 2\npopulation = 3\n'
                  'games_per_candidate = 40\nholdout_games = 60\nchunk_size = 40\n')
    assert main(["tune", str(path), "--jobs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    tuned = (tmp_path / "results" / "t" / "tuned.txt").read_text().strip()
    assert f"tuned: {tuned}" in out and "held-out games" in out
    assert load_tune(path).baseline == "greedy-knock"
    assert main(["tune", str(path), "--jobs", "1"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["tune", str(path), "--jobs", "1", "--resume", "--quiet"]) == 0
    assert f"tuned: {tuned}" in capsys.readouterr().out


class _BaselineAtOptimum(Synthetic):
    """The strategy as written already plays the optimum: any other result is worse."""

    def outcomes(self, values, first_game, games):  # type: ignore[no-untyped-def]
        return super().outcomes(OPTIMUM if values is None else values, first_game, games)


def test_a_result_worse_than_the_start_is_saved_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = {**SPEC, "generations": 2, "sigma0": 0.5}
    result = tune(spec, out=tmp_path / "t", evaluator=_BaselineAtOptimum(), quiet=True)
    h = result.holdout
    assert result.values != OPTIMUM and h is not None and h["difference_high"] < 0
    warning = (f"WARNING: the tuned strategy is worse than the strategy as written on the "
               f"held-out games ({h['difference']:+.1%}, 95% CI {h['difference_low']:+.1%} .. "
               f"{h['difference_high']:+.1%}): keep {result.spec.baseline}")
    assert result.warning == warning
    assert result.headline().endswith("\n\n" + warning)
    assert (tmp_path / "t" / "tuned.txt").read_text() == f"{result.tuned}\n# {warning}\n"
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["warning"] == warning and summary["tuned"] == result.tuned
    good = tune(SPEC, out=tmp_path / "good", evaluator=Synthetic(), quiet=True)
    assert good.warning is None and "WARNING" not in good.headline()
    assert json.loads((tmp_path / "good" / "summary.json").read_text())["warning"] is None


def _held_out_rate(values: tuple[int, ...]) -> float:
    """The synthetic objective's win rate on the held-out games, played directly."""
    return float(Synthetic().outcomes(values, HOLDOUT_FIRST_GAME, SPEC["holdout_games"]).mean())


def test_the_best_measured_strategy_is_checked_beside_the_mean_and_kept_when_better(
        tmp_path: Path) -> None:
    """Three generations leave cma's mean short of a candidate the search measured well:
    both play the held-out games and the better one is the result, the other reported."""
    result = tune({**SPEC, "generations": 3}, out=tmp_path / "t", evaluator=Synthetic(),
                  quiet=True)
    assert result.best == best_measured(result.history) == {
        "strategy": "discard-tracking:knock_at=3,slack=14,caution=3", "values": [3, 14, 3],
        "generation": 3, "win_rate": 0.656, "low": pytest.approx(0.64114, abs=1e-5),
        "high": pytest.approx(0.67057, abs=1e-5)}
    assert result.mean == (2, 11, 4) and result.values == (3, 14, 3)
    h = result.holdout
    assert h is not None and h["kept"] == "best measured" and h["result"] == [3, 14, 3]
    assert h["tuned_win_rate"] == _held_out_rate((3, 14, 3)) == 0.63875
    other = h["not_kept"]
    assert other["strategy"] == "discard-tracking:knock_at=2,slack=11,caution=4"
    assert other["tuned_win_rate"] == _held_out_rate((2, 11, 4)) == 0.56675
    assert other["kept_minus"] == pytest.approx(0.63875 - 0.56675)
    text = result.headline()
    assert ("tuned: discard-tracking:knock_at=3,slack=14,caution=3\n  (the result: the best "
            "strategy the search measured, 65.6% (64.1% - 67.1%) in generation 3; on the "
            "held-out games it did better than the search distribution's mean after the last "
            "generation, discard-tracking:knock_at=2,slack=11,caution=4)\n") in text
    assert ("  not kept  discard-tracking:knock_at=2,slack=11,caution=4   56.7%  95% CI "
            "55.1% - 58.2%  (the distribution's mean)\n  tuned minus not kept (paired)  "
            "+7.2%  95% CI +6.4% .. +8.0%") in text
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert (summary["tuned"], summary["kept"], summary["mean"]) == (
        result.tuned, "best measured", "discard-tracking:knock_at=2,slack=11,caution=4")
    assert summary["best_measured"]["generation"] == 3 and summary["warnings"] == []
    assert (tmp_path / "t" / "tuned.txt").read_text() == result.tuned + "\n"


def test_the_mean_is_kept_when_it_does_better_on_the_held_out_games(tmp_path: Path) -> None:
    result = tune({**SPEC, "generations": 8, "seed": 7}, out=tmp_path / "t",
                  evaluator=Synthetic(), quiet=True)
    h = result.holdout
    assert h is not None and h["kept"] == "mean" and result.values == result.mean == (7, 14, 1)
    assert result.best is not None and result.best["values"] == [7, 11, 1]
    assert (h["tuned_win_rate"], h["not_kept"]["tuned_win_rate"]) == (
        _held_out_rate((7, 14, 1)), _held_out_rate((7, 11, 1))) == (0.736, 0.73175)
    assert result.result_note().endswith(
        "; on the held-out games it did better than the best strategy the search measured, "
        "discard-tracking:knock_at=7,slack=11: 74.1% (72.7% - 75.5%) in "
        "generation 8")


def test_an_unchecked_result_warns_of_a_better_measured_strategy(tmp_path: Path) -> None:
    result = tune({**SPEC, "generations": 3, "holdout_games": 0}, out=tmp_path / "t",
                  evaluator=Synthetic(), quiet=True)
    assert result.holdout is None and result.values == result.mean == (2, 11, 4)
    warning = ("WARNING: the result is unchecked (holdout_games = 0) and the search measured a "
               "better strategy: discard-tracking:knock_at=3,slack=14,caution=3, 65.6% (64.1% "
               "- 67.1%) in generation 3, against 47.4% (45.9% - 49.0%) for the distribution's "
               "mean in the last generation; set holdout_games to compare them on games the "
               "search never saw")
    assert result.warnings == [warning] and result.headline().endswith("\n\n" + warning)
    assert (tmp_path / "t" / "tuned.txt").read_text() == f"{result.tuned}\n# {warning}\n"


class _StopInTheHeldOutCheck(Synthetic):
    """Interrupted (Ctrl-C) in the held-out check, after every generation is saved."""

    def compare(self, strategies, first_game, games, **field):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt


def test_a_tune_stopped_in_the_held_out_check_resumes_to_the_same_result(
        tmp_path: Path) -> None:
    spec = {**SPEC, "generations": 3}
    whole = tune(spec, out=tmp_path / "whole", evaluator=Synthetic(), quiet=True)
    out = tmp_path / "stopped"
    with pytest.raises(KeyboardInterrupt):
        tune(spec, out=out, evaluator=_StopInTheHeldOutCheck(), quiet=True)
    state = pickle.loads((out / CHECKPOINT).read_bytes())
    assert len(state["history"]) == 3 and state["holdout"] is None
    evaluator = Synthetic()
    resumed = tune(spec, out=out, evaluator=evaluator, quiet=True, resume=True)
    assert evaluator.calls == 0  # no generation played again
    assert (resumed.values, resumed.holdout) == (whole.values, whole.holdout)
    # a checkpoint of a ginbox that checked the mean alone is checked again, the new way
    state = pickle.loads((out / CHECKPOINT).read_bytes())
    state["holdout"] = {k: v for k, v in state["holdout"].items()
                        if k not in ("kept", "result", "not_kept")}
    (out / CHECKPOINT).write_bytes(pickle.dumps(state))
    again = tune(spec, out=out, evaluator=Synthetic(), quiet=True, resume=True)
    assert (again.values, again.holdout) == (whole.values, whole.holdout)


def test_a_field_given_twice_in_other_spellings_and_empty_params_are_refused() -> None:
    mix = {"name": "m", "seed": 1, "strategy": "discard-tracking", "rules": "eaai",
           "fields": [["simple"], ["SIMPLE"]]}
    with pytest.raises(ValueError, match=r"^fields\[1\]=\['SIMPLE'\] repeats fields\[0\]: the "
                                         r"same strategies, so the same field: give it a "
                                         r"larger weight instead \(weights = \[\.\.\.\]\)$"):
        load_tune(mix)
    assert load_tune({**mix, "fields": [["simple"], ["random"]]}).fields == (("simple",),
                                                                            ("random",))
    with pytest.raises(ValueError, match=r"^params=\[\] names no parameter to tune: list some "
                                         r"of discard-tracking's \(knock_at, slack, caution\), "
                                         r"or leave params out to tune them all$"):
        load_tune({**SPEC, "params": []})
    assert load_tune({k: v for k, v in SPEC.items() if k != "params"}).params == (
        "knock_at", "slack", "caution")
