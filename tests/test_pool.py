"""sim.runs.pool: many small runs inside one pool use the same warm workers, and give the
results they give without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from sim.runs.pool import active, worker_pool
from sim.runs.runner import run_experiment

SPEC: dict[str, Any] = {"name": "pool", "seed": 5, "games": 24, "chunk_size": 5,
                        "arms": [{"name": "g", "strategies": ["greedy-knock", "simple", "random"]}]}


def test_runs_in_a_pool_keep_their_workers_and_results(tmp_path: Path) -> None:
    alone = run_experiment(SPEC, out=tmp_path / "alone", jobs=1, quiet=True).games
    seen: set[int] = set()
    with worker_pool(jobs=2) as pool:
        assert active() is pool
        seen |= pool.pids()
        for i in range(4):  # a chunk count that differs from run to run must not resize it
            spec = {**SPEC, "chunk_size": 5 + 7 * (i % 2)}
            result = run_experiment(spec, out=tmp_path / f"r{i}", quiet=True, force=True)
            assert result.manifest["sessions"][-1]["jobs"] == 2  # the pool's by default
            pd.testing.assert_frame_equal(result.games, alone)
            seen |= pool.pids()
    assert len(seen) == 2, f"workers were restarted: pids {sorted(seen)}"
    assert active() is None


def test_a_one_chunk_run_in_a_pool_equals_one_outside(tmp_path: Path) -> None:
    spec = {**SPEC, "chunk_size": 100}
    alone = run_experiment(spec, out=tmp_path / "alone", jobs=1, quiet=True).games
    with worker_pool(jobs=2):
        pooled = run_experiment(spec, out=tmp_path / "pooled", quiet=True).games
    pd.testing.assert_frame_equal(pooled, alone)


def test_bad_jobs_is_refused() -> None:
    with pytest.raises(ValueError, match="jobs=0"), worker_pool(jobs=0):
        pass
