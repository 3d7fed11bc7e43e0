"""The per-chunk sums stored in chunk files (sim.runs.aggregates) against recounts from the rows,
and the report tables built from them against the same tables built from the rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from sim.analysis import tables
from sim.engine.game import GAME_COLUMNS
from sim.runs.aggregates import GRAM, read_aggregates
from sim.runs.runner import RunResult, run_experiment

SPEC: dict[str, Any] = {
    "name": "agg",
    "seed": 3,
    "games": 50,
    "chunk_size": 20,  # the last chunk short
    "arms": [
        {"name": "field", "strategies": ["greedy-knock", "simple", "random"]},
        {"name": "one vs two", "strategies": ["simple", "greedy-knock", "greedy-knock"],
         "seating": [2, 0, 1]},
        {"name": "two", "rules": "classic", "strategies": ["simple", "greedy-knock"]},
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return run_experiment(SPEC, out=tmp_path_factory.mktemp("agg") / "r", jobs=1, quiet=True)


def test_aggregates_equal_a_recount_from_the_rows(run: RunResult) -> None:
    for entry in run.manifest["chunks"]:
        path = run.out / entry["file"]
        agg = read_aggregates(path)
        assert agg is not None
        rows = pd.read_parquet(path, columns=GAME_COLUMNS).to_numpy(np.int64)
        assert agg["games"] == entry["games"] == len(rows)
        assert agg["sums"] == dict(zip(GAME_COLUMNS, rows.sum(axis=0).tolist(), strict=True))
        col = {c: rows[:, GAME_COLUMNS.index(c)] for c in GRAM[4:]}
        col["1"] = np.ones(len(rows), np.int64)
        for s in range(3):
            col[f"win_{s}"] = (rows[:, GAME_COLUMNS.index("winner")] == s).astype(np.int64)
        for i, a in enumerate(GRAM):
            for j, b in enumerate(GRAM):
                assert agg["gram"][i][j] == int(col[a] @ col[b]), (a, b)


@pytest.mark.parametrize("table", ["win_rates", "seat_win_rates", "box_retention", "box_runs",
                                   "hand_outcomes"])
def test_tables_from_aggregates_equal_tables_from_rows(run: RunResult, table: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    fast = getattr(tables, table)(run)
    monkeypatch.setattr(tables, "arm_totals", lambda result: None)
    slow = getattr(tables, table)(run)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


def test_two_jobs_store_the_same_aggregates(run: RunResult, tmp_path: Path) -> None:
    two = run_experiment(SPEC, out=tmp_path / "two", jobs=2, quiet=True)
    for entry in run.manifest["chunks"]:
        assert read_aggregates(two.out / entry["file"]) == read_aggregates(run.out / entry["file"])


def test_files_without_aggregates_are_read_row_by_row(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from sim.analysis.runs import arm_totals

    r = run_experiment({**SPEC, "arms": SPEC["arms"][:1]}, out=tmp_path / "r", jobs=1,
                       quiet=True)
    before = tables.hand_outcomes(r)
    path = r.out / r.manifest["chunks"][0]["file"]
    pq.write_table(pq.read_table(path).replace_schema_metadata({}), path)  # an older run's file
    assert arm_totals(r) is None
    pd.testing.assert_frame_equal(tables.hand_outcomes(r), before, check_exact=True)
