"""Which arms the report compares: strategies are matched by their canonical spec, so an alias
or a different spelling in one arm does not silently drop a comparison."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sim.analysis.comparisons import paired_difference, rule_comparisons
from sim.analysis.report import report
from sim.runs.runner import run_experiment

FIELD = ["greedy-knock:knock_at=0", "simple", "random"]
SPELLED = ["greedy:knock_at=00", "SIMPLE", " random"]  # the same strategies, spelled otherwise


def test_an_alias_in_one_arm_keeps_the_paired_comparison(tmp_path: Path) -> None:
    spec = {"name": "alias", "seed": 5, "games": 12, "chunk_size": 6,
            "arms": [{"name": "gin 25", "strategies": FIELD},
                     {"name": "gin 20", "rules": "three-handed-20", "strategies": SPELLED},
                     {"name": "twin", "strategies": SPELLED}]}
    result = run_experiment(spec, out=tmp_path / "alias", jobs=1, quiet=True)
    pairs = rule_comparisons(result)
    assert [(a.name, b.name, diff) for a, b, diff in pairs] == [
        ("gin 25", "gin 20", {"gin_bonus": (25, 20)})]
    # per-strategy rows pair "greedy-knock:knock_at=0" with "greedy:knock_at=00" and so on
    diff = paired_difference(result, "gin 25", "twin", "win_rate")
    assert list(diff["strategy"]) == FIELD
    assert (diff["games"] == 12).all() and (diff["diff"] == 0.0).all()
    table = report(result).comparisons
    assert isinstance(table, pd.DataFrame)
    assert set(table["change"]) == {"gin_bonus 25 -> 20"}
    assert sorted(set(table["strategy"])) == sorted([*FIELD, "all"])
