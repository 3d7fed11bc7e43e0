"""How ``ginbox serve`` answers under load: many clients, with and without costly requests.

    python -m benchmarks.web_load --clients 50 --seconds 20 --workers 2

Starts ``ginbox serve`` on a free port of 127.0.0.1, warms it, then measures three phases of
``--seconds`` each, printing the latency percentiles (p50, p99, max) and requests a second:

1. **cheap**: ``--clients`` threads, each posting ``/api/state`` of its own two-player game
   against ``simple`` (the game at its first decision), as fast as answers come;
2. **cheap, costly in flight**: the same while ``--costly`` threads keep asking for the
   costliest thing the page allows: the review of a finished three-handed game against two
   ``mc`` (every decision of it valued by the judge);
3. **options while costly**: ``/api/options`` (no game work) from one client while the
   costly requests run.

Memory: the resident sizes of the server and its workers (``/proc``) before and after.
A benchmark, not a test: the figures go to the lab page (docs/lab), never into assertions.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(url: str, data: dict) -> tuple[int, float]:
    """The status and the seconds one POST took."""
    body = json.dumps(data).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=300) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    return status, time.perf_counter() - start


def get(url: str) -> tuple[int, float]:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=300) as answer:
        answer.read()
        return answer.status, time.perf_counter() - start


def resident_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children, in MB."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    total = 0
    for p in pids:
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def long_game() -> tuple[dict, list[str]]:
    """A finished three-handed game against two ``mc`` (the person plays the first legal
    answer each time): its review is the costliest request the page can make."""
    from sim.engine.rules import Rules
    from sim.table import Table

    game = {"rules": "three-handed", "policy": "captain", "bots": ["mc", "mc"], "seat": 0,
            "seed": 7}
    table = Table(Rules.preset("three-handed"), ["human", "mc", "mc"], 7)
    while not table.over:
        table.play(table.legal()[0])
    return game, list(table.answers)


def hammer(target: dict, clients: int, seconds: float, stop_costly: threading.Event
           ) -> list[tuple[int, float]]:
    """``clients`` threads, each sending ``target["call"]()`` until ``seconds`` pass."""
    results: list[tuple[int, float]] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def client(k: int) -> None:
        while time.monotonic() < end:
            outcome = target["call"](k)
            with lock:
                results.append(outcome)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def summary(name: str, results: list[tuple[int, float]], seconds: float) -> str:
    ok = np.array([t for s, t in results if s == 200])
    busy = sum(1 for s, _ in results if s == 503)
    other = sum(1 for s, _ in results if s not in (200, 503))
    if len(ok) == 0:
        return f"{name}: no answer"
    p50, p99 = np.percentile(ok, [50, 99]) * 1000
    return (f"{name}: {len(ok)} answered ({len(ok) / seconds:.0f}/s), {busy} refused as "
            f"busy, {other} other; "
            f"p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {ok.max() * 1000:.0f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web_load", description=__doc__)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--costly", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2,
                        help="the server's worker processes (0: do not pass --workers)")
    args = parser.parse_args(argv)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "sim", "serve", "--port", str(port), "--no-browser"]
    if args.workers:  # 0: leave the flag out (a ginbox without worker processes)
        command += ["--workers", str(args.workers)]
    server = subprocess.Popen(command)
    try:
        while True:
            try:
                get(base + "/api/options")
                break
            except OSError:
                time.sleep(0.2)
        game = {"rules": "eaai", "bots": ["simple"], "seat": 0, "seed": 1}
        while post(base + "/api/state", {"game": game, "moves": []})[0] != 200:
            time.sleep(0.5)  # the workers are still warming up
        before = resident_mb(server.pid)
        cheap = {"call": lambda k: post(base + "/api/state", {
            "game": {**game, "seed": 100 + k}, "moves": []})}
        costly_game, moves = long_game()
        costly = {"call": lambda k: post(base + "/api/review",
                                         {"game": costly_game, "moves": moves})}
        stop = threading.Event()
        print(summary("cheap", hammer(cheap, args.clients, args.seconds, stop), args.seconds))
        background = threading.Thread(target=lambda: print(summary(
            "costly", hammer(costly, args.costly, 2 * args.seconds, stop), 2 * args.seconds)))
        background.start()
        time.sleep(1.0)
        print(summary("cheap, costly in flight",
                      hammer(cheap, args.clients, args.seconds - 1, stop), args.seconds - 1))
        options = {"call": lambda k: get(base + "/api/options")}
        print(summary("options while costly", hammer(options, 1, args.seconds - 1, stop),
                      args.seconds - 1))
        background.join()
        print(f"memory: {before:.0f} MB before, {resident_mb(server.pid):.0f} MB after "
              f"(server and workers)")
    finally:
        server.terminate()
        server.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
