"""``python -m studies.net``: the study's one command (see the package docstring)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from sim.engine.rules import Rules
from sim.io.files import atomic_write_bytes
from sim.learn.loop import strength_chunk
from sim.learn.report import deal_interval
from sim.runs.progress import Progress

CHUNK = 50
"""Deals a task plays."""


def measure(table: str, deals: int, seed: int, opponents: list[str], players: list[str],
            jobs: int) -> dict[str, object]:
    """Every player against every opponent on the same deals: rows with the win rate, its
    interval and the paired difference to the first player, and the wins deal by deal."""
    seats = Rules.preset(table).players
    tasks = [(p, o, first) for p in players for o in opponents for first in range(0, deals, CHUNK)]
    progress = Progress(f"net study ({table})",
                        sum(min(CHUNK, deals - first) for *_, first in tasks) * seats)
    wins: dict[tuple[str, str], list[int]] = {}
    results = Parallel(n_jobs=jobs, return_as="generator")(
        delayed(strength_chunk)(table, p, o, seed, first, min(CHUNK, deals - first))
        for p, o, first in tasks)
    for (p, o, _), result in zip(tasks, results, strict=True):
        wins.setdefault((p, o), []).extend(result["wins"])
        progress.update(len(result["wins"]) * seats)
    progress.close()
    rows = []
    for o in opponents:
        first = np.asarray(wins[(players[0], o)])
        for p in players:
            w = np.asarray(wins[(p, o)])
            rate, low, high = deal_interval(w, seats)
            diff, dlow, dhigh = deal_interval(w - first, seats)
            rows.append({"player": p, "opponent": o, "games": len(w) * seats, "rate": rate,
                         "low": low, "high": high, "vs_first": diff, "vs_first_low": dlow,
                         "vs_first_high": dhigh})
    return {"table": table, "seed": seed, "deals": deals, "rows": rows,
            "wins": {f"{p}|{o}": w for (p, o), w in wins.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.net", description=__doc__)
    parser.add_argument("players", nargs="+", help="strategy specs; the first is the baseline")
    parser.add_argument("--table", default="eaai", help="rules preset (default eaai)")
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--seed", type=int, default=90210)
    parser.add_argument("--opponents", default="simple|tuned@eaai",
                        help="opponent specs separated by |")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default="results/net")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be at least 2 (the interval is over deals)")
    result = measure(args.table, args.deals, args.seed, args.opponents.split("|"),
                     args.players, args.jobs)
    for r in result["rows"]:  # type: ignore[union-attr]  # a list of dicts, built above
        print(f"{r['opponent']:18s} {r['player']:22s} {r['rate']:.1%} "
              f"({r['low']:.1%} to {r['high']:.1%})  vs {args.players[0]}: "
              f"{r['vs_first']:+.1%} ({r['vs_first_low']:+.1%} to {r['vs_first_high']:+.1%})")
    path = Path(args.out) / f"{args.table}.json"
    atomic_write_bytes(path, json.dumps(result, indent=1).encode(), mkdir=True)
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
