"""Speed-up of one experiment on 1, 2 and 4 Dask worker processes of one machine.

Starts ``dask scheduler`` and ``dask worker --nthreads 1 --no-nanny`` processes on 127.0.0.1
(stopped at the end, whatever happens), warms every worker with a small run, then plays the
same experiment ``--repeats`` times per worker count, the counts interleaved so that a change
in the machine's load hits them alike. Prints one JSON line per run and the ratios.

    python -m benchmarks.cluster_speedup --games 240000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.runs.runner import run_experiment

DASK = str(Path(sys.executable).with_name("dask"))
FIELD = ["greedy-knock", "simple", "random"]


def _spec(games: int) -> dict[str, object]:
    return {"name": "speedup", "seed": 3, "games": games, "chunk_size": 20_000,
            "arms": [{"name": "a", "strategies": FIELD, "seating": "rotate"}]}


def _start(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=240_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    from distributed import Client

    work = Path(tempfile.mkdtemp(prefix="ginbox-speedup-"))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        info = work / "scheduler.json"
        processes.append(_start([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                 "--no-dashboard", "--scheduler-file", str(info)],
                                work / "scheduler.log"))
        while not info.exists():
            time.sleep(0.1)
        time.sleep(0.5)
        address = json.loads(info.read_text())["address"]
        walls: dict[int, list[float]] = {n: [] for n in args.workers}
        count = 0
        for r in range(args.repeats):
            for n in args.workers:
                workers = []
                for _ in range(n):
                    count += 1
                    workers.append(_start(
                        [DASK, "worker", address, "--nthreads", "1", "--no-nanny", "--host",
                         "127.0.0.1", "--no-dashboard", "--name", f"w{count}",
                         "--local-directory", str(work / f"w{count}")], work / f"w{count}.log"))
                processes.extend(workers)
                with Client(address) as client:
                    client.wait_for_workers(n, timeout=120)
                    # warm every worker (imports, compiled kernels from the cache), untimed
                    run_experiment(_spec(2_000 * n), out=work / f"warm-{count}",
                                   backend="dask", scheduler=client, quiet=True)
                    start = time.perf_counter()
                    run_experiment(_spec(args.games), out=work / f"run-{n}-{r}",
                                   backend="dask", scheduler=client, quiet=True)
                    wall = time.perf_counter() - start
                for w in workers:
                    os.killpg(w.pid, signal.SIGKILL)
                    w.wait()
                walls[n].append(wall)
                print(json.dumps({"workers": n, "repeat": r, "wall_s": round(wall, 3),
                                  "games_per_s": round(args.games / wall)}), flush=True)
                time.sleep(1)  # the scheduler forgets the killed workers
        base = statistics.mean(walls[args.workers[0]])
        for n in args.workers:
            ratios = [base / w for w in walls[n]]
            print(json.dumps({"workers": n, "mean_wall_s": round(statistics.mean(walls[n]), 3),
                              "speedup": round(base / statistics.mean(walls[n]), 3),
                              "speedups": [round(x, 3) for x in ratios]}))
    finally:
        for p in processes:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
