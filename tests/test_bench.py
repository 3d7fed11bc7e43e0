"""``ginbox bench``: its options reach sim.bench, and the cold compile is timed only when asked
(the docs once showed ``ginbox bench --cold``, which the CLI refused)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sim import bench
from sim.cli import main


def test_cold_option_reaches_the_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, object]] = []
    monkeypatch.setattr(bench, "main", lambda **kwargs: calls.append(kwargs) or 0)
    assert main(["bench", "--cold", "--json"]) == 0
    assert main(["bench"]) == 0
    assert calls == [{"json_output": True, "cold": True}, {"json_output": False, "cold": False}]


def test_cold_compile_runs_in_an_empty_cache_only_when_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str | None, list[str] | None]] = []

    def fake(cache_dir: str | None) -> float:
        seen.append((cache_dir, None if cache_dir is None else os.listdir(cache_dir)))
        return 1.5

    monkeypatch.setattr(bench, "_time_subprocess", fake)
    assert bench.bench_warm_start() == {"jit_warm_start_s": 1.5}
    assert seen == [(None, None)]
    seen.clear()
    assert bench.bench_warm_start(cold=True) == {"jit_warm_start_s": 1.5,
                                                 "jit_cold_compile_s": 1.5}
    assert seen[0] == (None, None) and seen[1][1] == []  # a fresh, empty cache directory
    assert not Path(str(seen[1][0])).exists()  # removed afterwards
