"""``ginbox tune`` against a mix of fields: the file's ``fields``/``weights`` and their errors,
one-field files unchanged, the objective as the exact weighted mean of the recorded counts, each
field on its own deals, determinism (resume after ``kill -9`` is tested with the one-field case
in test_tune.py).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from support.tune_objective import MIX_SPEC, SPEC, Synthetic, SyntheticMix

from sim.cli import main
from sim.tune import GameEvaluator, load_tune, tune
from sim.tune.output import field_columns
from strategies.registry import parse_strategy

ROOT = Path(__file__).resolve().parent.parent
BASE = 'name = "x"\nseed = 1\nstrategy = "greedy-knock"\nrules = "eaai"\n'


def _strip(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in history]


@pytest.mark.parametrize(("body", "message"), [
    ('field = ["simple"]\nfields = [["simple"]]\n', "field and fields exclude each other"),
    ('fields = [["simple"], ["simple", "simple"]]\n',
     "fields[1] has 2 strategies: eaai rules with players=2 expect 1"),
    ('fields = [["simple"], ["nope"]]\n', "fields[1][0]='nope': unknown strategy"),
    ('fields = []\n', "fields=[] is not valid: expected a list of 1..100 fields"),
    ('field = []\n', "field=[] is not valid"),
    ('fields = ["simple", "greedy-knock"]\n', "fields=['simple', 'greedy-knock'] is not valid"),
    ('fields = [["simple"], ["simple"]]\n', "fields[1]=['simple'] repeats fields[0]: the same"),
    ('fields = [["simple"], ["greedy-knock"]]\nweights = [1]\n',
     "weights=[1] is not valid: expected 2 positive numbers"),
    ('fields = [["simple"], ["greedy-knock"]]\nweights = [1, 0]\n', "weights=[1, 0] is not"),
    ('fields = [["simple"], ["greedy-knock"]]\nweights = [1, true]\n', "weights=[1, True]"),
    ('field = ["simple"]\nweights = [1]\n', "weights needs fields"),
    ('generations = 2\n', "field is missing: a tuning file needs name, seed, strategy and "
     "field (or fields)"),
])
def test_cli_refuses_a_bad_mix_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch, body: str,
                                            message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text(BASE + body)
    assert main(["tune", "bad.toml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ginbox: error: ") and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_a_mix_is_parsed_with_equal_weights_by_default() -> None:
    spec = load_tune({"name": "x", "seed": 1, "strategy": "greedy-knock", "rules": "eaai",
                      "fields": [["simple"], ["discard-tracking:knock_at=0"]]})
    assert spec.mixed and spec.field == ()
    assert spec.fields == (("simple",), ("discard-tracking:knock_at=0",))
    assert spec.weights == (1.0, 1.0)
    assert spec.seats((5,), 1) == ("greedy-knock:knock_at=5", "discard-tracking:knock_at=0")
    assert spec.to_dict()["fields"] == [["simple"], ["discard-tracking:knock_at=0"]]
    assert "field" not in spec.to_dict()
    assert spec.objective([3, 1], 4) == Fraction(1, 2)
    three = load_tune({"name": "x", "seed": 1, "strategy": "greedy-knock",
                       "fields": [["simple", "simple"], ["simple", "greedy-knock"]],
                       "weights": [1, 2.5]})
    assert three.weights == (1.0, 2.5) and three.objective([2, 4], 10) == Fraction(12, 35)


def test_a_one_field_file_reads_as_before() -> None:
    """The same spec dict as before mixes existed (the checkpoint compares it on resume)."""
    spec = load_tune({**SPEC})
    assert not spec.mixed and spec.field == ("simple",) and spec.fields == (("simple",),)
    assert spec.weights == (1.0,) and spec.field_seed(0) == spec.seed
    assert list(spec.to_dict()) == [
        "name", "seed", "strategy", "params", "field", "rules", "overrides", "generations",
        "population", "games_per_candidate", "holdout_games", "sigma0", "chunk_size",
        "description"]


def test_one_field_tune_is_unchanged_on_real_games(tmp_path: Path) -> None:
    """Pinned from the tuner before mixes existed (same spec, same figures), and the same
    field written as a one-field mix searches identically."""
    spec = {"name": "pin", "seed": 3, "strategy": "greedy-knock", "field": ["simple"],
            "rules": "eaai", "generations": 2, "population": 4, "games_per_candidate": 120,
            "holdout_games": 240, "chunk_size": 60}
    one = tune(spec, out=tmp_path / "one", jobs=1, quiet=True)
    assert [(r["best"], r["best_wins"], r["incumbent"], r["incumbent_wins"])
            for r in one.history] == PINNED_HISTORY
    assert one.holdout is not None
    assert (one.holdout["tuned_wins"], one.holdout["baseline_wins"],
            one.holdout["tuned_only"], one.holdout["baseline_only"]) == PINNED_HOLDOUT
    assert list(one.curve().columns)[-1] == "seconds"
    mix = tune({**{k: v for k, v in spec.items() if k != "field"}, "fields": [["simple"]]},
               out=tmp_path / "mix", jobs=1, quiet=True)
    keep = [{k: v for k, v in r.items() if not k.endswith("field_wins")}
            for r in _strip(mix.history)]
    assert keep == _strip(one.history)
    assert mix.values == one.values and mix.holdout is not None
    assert mix.holdout["fields"][0]["tuned_wins"] == one.holdout["tuned_wins"]
    assert {k: v for k, v in mix.holdout.items() if k != "fields"}.items() <= one.holdout.items()


# (best, best wins, incumbent, incumbent wins) per generation, and the held-out counts (tuned
# wins, baseline wins, tuned only, baseline only), as the tuner wrote them before mixes existed
PINNED_HISTORY = [("greedy-knock:knock_at=6", 60, "greedy-knock:knock_at=10", 59),
                  ("greedy-knock:knock_at=8", 64, "greedy-knock:knock_at=7", 60)]
PINNED_HOLDOUT = (109, 115, 20, 26)


def test_the_objective_is_the_weighted_mean_of_the_recorded_counts(tmp_path: Path) -> None:
    result = tune(MIX_SPEC, out=tmp_path / "m", evaluator=SyntheticMix(), quiet=True)
    spec = result.spec
    assert spec.weights == (3.0, 1.0)
    csv = pd.read_csv(tmp_path / "m" / "learning_curve.csv")
    assert list(csv.columns)[-len(field_columns(2)):] == field_columns(2)
    for row, line in zip(result.history, csv.itertuples(), strict=True):
        n = row["games"]
        for who in ("best", "incumbent"):
            k0, k1 = row[f"{who}_field_wins"]
            assert row[f"{who}_win_rate"] == float(Fraction(3 * k0 + k1, 4 * n))
            assert row[f"{who}_wins"] == k0 + k1
            assert getattr(line, f"field1_{who}_wins") == k0
            assert getattr(line, f"field2_{who}_win_rate") == pytest.approx(k1 / n, abs=1e-6)
        k0, k1 = row["mean_field_wins"]
        assert row["mean_win_rate"] == float(Fraction(3 * k0 + k1, 4 * n * row["candidates"]))
    h = result.holdout
    assert h is not None and len(h["fields"]) == 2
    a, b = h["fields"]
    assert (a["field"], a["weight"], b["field"], b["weight"]) == (["simple"], 3.0,
                                                                  ["discard-tracking"], 1.0)
    n = spec.holdout_games
    assert h["tuned_win_rate"] == float(Fraction(3 * a["tuned_wins"] + b["tuned_wins"], 4 * n))
    assert h["baseline_win_rate"] == float(Fraction(3 * a["baseline_wins"]
                                                    + b["baseline_wins"], 4 * n))
    assert h["difference"] == pytest.approx(h["tuned_win_rate"] - h["baseline_win_rate"])
    assert h["tuned_low"] < h["tuned_win_rate"] < h["tuned_high"]
    assert h["difference_low"] < h["difference"] < h["difference_high"]
    # the mix pulls away from field 0's optimum toward field 1's
    assert result.params["knock_at"] < 7
    text = result.headline()
    assert "field 2: discard-tracking" in text and "objective (weighted mean win rate)" in text
    for name in ("learning_curve.png", "summary.json", "tuned.txt"):
        assert (tmp_path / "m" / name).stat().st_size > 0


def test_a_mix_is_deterministic_and_plays_every_field(tmp_path: Path) -> None:
    evaluator = SyntheticMix()
    a = tune(MIX_SPEC, out=tmp_path / "a", evaluator=evaluator, quiet=True)
    b = tune(MIX_SPEC, out=tmp_path / "b", evaluator=SyntheticMix(), quiet=True)
    assert evaluator.fields == [0, 1] * MIX_SPEC["generations"]
    assert _strip(a.history) == _strip(b.history) and a.holdout == b.holdout
    one = tune({**SPEC, "generations": 6, "games_per_candidate": 2000, "holdout_games": 3000},
               out=tmp_path / "one", evaluator=Synthetic(), quiet=True)
    assert a.values != one.values


def test_each_field_plays_its_own_deals_and_adding_one_changes_no_other() -> None:
    base = {"name": "x", "seed": 8, "strategy": "greedy-knock", "rules": "eaai"}
    two = load_tune({**base, "fields": [["simple"], ["greedy-knock"]]})
    three = load_tune({**base, "fields": [["simple"], ["greedy-knock"], ["random"]]})
    one = load_tune({**base, "field": ["simple"]})
    assert [three.field_seed(i) for i in range(2)] == [two.field_seed(i) for i in range(2)]
    assert len({three.field_seed(i) for i in range(3)}) == 3
    with GameEvaluator(one, jobs=1) as e1, GameEvaluator(two, jobs=1) as e2, \
            GameEvaluator(three, jobs=1) as e3:
        assert (e1.outcomes((6,), 0, 30) == e2.outcomes((6,), 0, 30, field=0)).all()
        assert (e2.outcomes((6,), 0, 30, field=1) == e3.outcomes((6,), 0, 30, field=1)).all()
        assert e2.wins_per_field([(6,), (2,)], 0, 30, 2) == [
            e2.wins([(6,), (2,)], 0, 30, field=0), e2.wins([(6,), (2,)], 0, 30, field=1)]


def test_a_real_mix_is_the_same_with_one_worker_or_two(tmp_path: Path) -> None:
    spec = {"name": "real-mix", "seed": 4, "strategy": "greedy-knock",
            "fields": [["simple"], ["greedy-knock"]], "weights": [1, 2], "rules": "eaai",
            "generations": 2, "population": 3, "games_per_candidate": 60,
            "holdout_games": 60, "chunk_size": 30}
    a = tune(spec, out=tmp_path / "a", jobs=1, quiet=True)
    b = tune(spec, out=tmp_path / "b", jobs=2, quiet=True)
    assert _strip(a.history) == _strip(b.history) and a.holdout == b.holdout


def test_the_shipped_tuning_files_load_and_the_eaai_stages_chain() -> None:
    """The mixed tune and the second single-field stage both start from the first stage's
    result; the fifth starts from the second's result plus gain=4, and tuned@eaai is the
    fifth's result with pair=2 (chosen on the tuning seed: the tune's pair=3 gave strength
    away against the gin camper)."""
    files = sorted([*(ROOT / "experiments").glob("tune_*.toml"),
                    *(ROOT / "studies").glob("*/tune_*.toml")])
    specs = {p.stem: load_tune(p) for p in files}
    assert all(spec.name == stem for stem, spec in specs.items())
    mix = specs["tune_tuned_eaai_mixed"]
    assert mix.fields == (("simple",), ("discard-tracking:knock_at=0",), ("discard-tracking",))
    assert mix.resolved_rules.name == "eaai" and mix.weights == (1.0, 1.0, 1.0)
    assert mix.base.params == specs["tune_tuned_eaai_2"].base.params
    assert specs["tune_tuned_eaai_5"].base.params["gain"] == 4
    shipped = {**specs["tune_tuned_eaai_5"].base.params, "take_drop": 23, "slack": 17,
               "look": 6, "look_fade": 7, "pair": 2, "gain": 9}
    assert parse_strategy("tuned@eaai").params == shipped
    for stage in ("tune_tuned_eaai_mixed", "tune_tuned_eaai_2", "tune_tuned_eaai_5"):
        base = specs[stage].base  # every parameter spelled out
        assert len(base.params) == len(base.info.params)


def test_the_progress_counts_every_field_and_the_held_out_games(tmp_path: Path) -> None:
    """Plain progress lines (not a terminal) end at the planned total: generations x
    (population + 1) x games x fields, plus the held-out games per field of the three
    strategies checked (the mean, the best measured, the strategy as written)."""
    import io

    from sim.runs import progress

    spec = {"name": "bar", "seed": 4, "strategy": "greedy-knock",
            "fields": [["simple"], ["greedy-knock"]], "rules": "eaai", "generations": 2,
            "population": 3, "games_per_candidate": 40, "holdout_games": 30, "chunk_size": 20}
    stream = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(progress, "PLAIN_EVERY_S", 0.0)
        tune(spec, out=tmp_path / "b", jobs=1, stream=stream)
    lines = stream.getvalue().splitlines()
    total = 2 * 4 * 40 * 2 + 3 * 30 * 2
    counts = [line for line in lines if line.startswith("bar: ") and " games (" in line]
    assert counts[-1] == f"bar: {total:,}/{total:,} games (100%)"
    assert sum("generation 2/2" in line and "incumbent by field: simple" in line
               for line in lines) == 1
