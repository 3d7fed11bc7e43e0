"""The runner's fixed costs: where a parallel run loses time, the report pass, and
worker start-up across many small evaluations. CPU time as well as wall time, because the
machine these figures come from is shared and its wall times are noise:

    python -m benchmarks.runner_costs run --games 1000002 --jobs 2   # one cold run + report
    python -m benchmarks.runner_costs run --games 1000002 --jobs 1
    python -m benchmarks.runner_costs run --games 1000002 --jobs 2 --pool   # workers warm
    python -m benchmarks.runner_costs many --evaluations 20          # 20 small runs, no pool
    python -m benchmarks.runner_costs many --evaluations 20 --pool   # the same in worker_pool

Each prints one JSON line. ``run``: wall of the run and of the report pass (``report()`` and
its markdown, the tables a ``ginbox run`` prints), CPU of this process (the parent) during
each, and the CPU of each worker process (sampled; start-up included), so that the critical
path ``max(worker CPU)`` can be compared with the one-worker CPU when the wall times cannot.
``many``: total wall, CPU of the parent, and how many distinct worker processes served the
evaluations (the pool's aim: as many as ``--jobs``). Needs psutil (in the dev extras).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

SCALE = Path(__file__).resolve().parent.parent / "experiments" / "scale.toml"


def _cpu(t: Any) -> float:
    return float(t.user + t.system)


class _Workers:
    """Samples the CPU time of this process's children until stopped."""

    def __init__(self) -> None:
        self.me, self.cpu, self.stopped = psutil.Process(), {}, False
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.stopped:
            for p in self.me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    self.cpu[p.pid] = _cpu(p.cpu_times())
            time.sleep(0.2)

    def __enter__(self) -> _Workers:
        self.before = {p.pid: _cpu(p.cpu_times()) for p in self.me.children(recursive=True)}
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped = True
        self.thread.join()

    def used(self) -> list[float]:
        spent = (v - self.before.get(pid, 0.0) for pid, v in self.cpu.items())
        return sorted((round(s, 2) for s in spent if s > 0.2), reverse=True)


def run(games: int, jobs: int, out: Path, pool: bool = False) -> dict[str, Any]:
    from sim.analysis.report import report
    from sim.runs.runner import run_experiment

    me = psutil.Process()
    load = os.getloadavg()[0]
    held: Any = contextlib.nullcontext()
    if pool:  # workers started and warmed before the timing: a tuner's later evaluations
        from sim.runs.pool import worker_pool
        held = worker_pool(jobs)
    with held, _Workers() as workers:
        c0, w0 = _cpu(me.cpu_times()), time.perf_counter()
        result = run_experiment(SCALE, games=games, jobs=jobs, out=out, force=True, quiet=True)
        c1, w1 = _cpu(me.cpu_times()), time.perf_counter()
    report(result).to_markdown()
    c2, w2 = _cpu(me.cpu_times()), time.perf_counter()
    worker_cpu = workers.used()
    return {"games": games, "jobs": jobs, "pool": pool, "wall": round(w1 - w0, 2),
            "parent_cpu": round(c1 - c0, 2), "worker_cpu": worker_cpu,
            "critical_path_cpu": max(worker_cpu, default=round(c1 - c0, 2)),
            "report_wall": round(w2 - w1, 2), "report_cpu": round(c2 - c1, 2),
            "load": [round(load, 1), round(os.getloadavg()[0], 1)]}


def many(evaluations: int, jobs: int, pool: bool, out: Path) -> dict[str, Any]:
    from sim.runs.runner import run_experiment

    me, pids, walls = psutil.Process(), set(), []
    c0, w0 = time.process_time(), time.perf_counter()
    held: Any = contextlib.nullcontext()
    if pool:  # imported only when asked for
        from sim.runs.pool import worker_pool
        held = worker_pool(jobs)
    field = ["greedy-knock", "simple", "greedy-knock"]
    with held:
        for i in range(evaluations):  # chunk counts vary, as a tuner's evaluations may
            spec = {"name": "eval", "seed": i, "games": 2000,
                    "chunk_size": (500, 1000, 2000)[i % 3],
                    "arms": [{"name": "a", "strategies": field}]}
            t = time.perf_counter()
            run_experiment(spec, jobs=jobs, out=out, force=True, quiet=True)
            walls.append(round(time.perf_counter() - t, 2))
            pids |= {p.pid for p in me.children() if "joblib" in " ".join(p.cmdline())}
    return {"evaluations": evaluations, "jobs": jobs, "pool": pool,
            "wall": round(time.perf_counter() - w0, 2),
            "parent_cpu": round(time.process_time() - c0, 2), "walls": walls,
            "worker_processes": len(pids), "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--games", type=int, default=1_000_002)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--pool", action="store_true", help="time the run in a warm worker_pool")
    m = sub.add_parser("many")
    m.add_argument("--evaluations", type=int, default=20)
    m.add_argument("--jobs", type=int, default=2)
    m.add_argument("--pool", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        if args.what == "run":
            print(json.dumps(run(args.games, args.jobs, out, args.pool)), flush=True)
        else:
            print(json.dumps(many(args.evaluations, args.jobs, args.pool, out)), flush=True)


if __name__ == "__main__":
    main()
