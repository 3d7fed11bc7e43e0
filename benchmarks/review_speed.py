"""``python -m benchmarks.review_speed``: how many decisions a second ``ginbox review`` judges.

A fixed hand log (``eaai`` rules, ``simple`` against ``tuned@eaai``, ``--games`` games of seed
2026) is reviewed by the default judge on ``--jobs`` warm workers, every seat; the figure is
decisions judged per second of wall time, forced ones included (they are rows of the table
too). On a machine shared with other work the wall time measures the load as much as the
review, so the CPU each process spent is read too (Linux: ``/proc/<pid>/stat``), and
``decisions_per_cpu_s``, decisions over the CPU of the workers and this process: on idle cores
kept busy to the end, ``jobs`` times that is the most the review can judge a second. A
warm-up review of other games first loads the compiled judge in every worker. The verdicts are
printed as a digest, so a change that speeds the review up can be checked to judge exactly as
before.

    python -m benchmarks.review_speed --games 8 --jobs 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from sim.play.driver import play_games
from sim.review import review
from sim.runs.pool import worker_pool

SEED = 2026
STRATEGIES = "simple,tuned@eaai"


def loky_workers() -> list[int]:
    """This process's loky worker processes (Linux: read from /proc, whatever the pool's
    own bookkeeping, so the same code measures every version of the review)."""
    me = os.getpid()
    children = Path(f"/proc/{me}/task/{me}/children")
    pids = [int(p) for p in children.read_text().split()] if children.exists() else []
    return sorted(p for p in pids if b"popen_loky" in _cmdline(p))


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` (0.0 where /proc cannot say)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(games: int, jobs: int, judge: str = "mc") -> dict[str, Any]:
    """Review ``games`` games on ``jobs`` workers: decisions, seconds, rates, verdict digest."""
    log = play_games(STRATEGIES, rules="eaai", games=games + 2, seed=SEED, log=True).log
    first = min(r["game"] for r in log)
    warm = [r for r in log if r["game"] < first + 2]
    timed = [r for r in log if r["game"] >= first + 2]
    with worker_pool(jobs=jobs):
        review(warm, judge=judge, jobs=jobs, quiet=True)
        workers = loky_workers()
        before = [cpu_seconds(pid) for pid in workers]
        wall, cpu = time.perf_counter(), time.process_time()
        table = review(timed, judge=judge, jobs=jobs, quiet=True).decisions
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        spent = [cpu_seconds(pid) - b for pid, b in zip(workers, before, strict=True)]
    digest = hashlib.sha256(table[["game", "hand", "move", "best", "loss", "label",
                                   "values"]].to_csv(index=False).encode()).hexdigest()[:16]
    out: dict[str, Any] = {"games": games, "jobs": jobs, "judge": judge,
                           "decisions": len(table), "counted": int(table["counted"].sum()),
                           "wall_s": round(wall, 2),
                           "decisions_per_s": round(len(table) / wall, 1),
                           "parent_cpu_s": round(cpu, 2),
                           "worker_cpu_s": [round(s, 2) for s in spent], "digest": digest}
    total = sum(spent) + cpu
    if total > 0:
        out["decisions_per_cpu_s"] = round(len(table) / total, 1)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.review_speed",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games reviewed (default 8)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--judge", default="mc", help="the judge spec (default mc)")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.games, args.jobs, args.judge)))


if __name__ == "__main__":
    main()
