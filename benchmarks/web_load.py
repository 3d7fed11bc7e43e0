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

Two more phases measure hostile clients (``--phases burst,slow``):

4. **burst**: ``--burst`` connections opened first (and given a second to be accepted),
   then each sends one ``/api/options`` at once: how many are answered and how many refused;
5. **slow**: ``--slow`` connections held open, each sending its request's header lines one
   every ``--slow-interval`` seconds and never finishing them (``--slow-kind body``: its
   headers whole, then its body a byte at a time), reopened when the server closes one,
   while one other client posts cheap ``/api/state`` requests one after another for
   ``--seconds``.

Memory: the resident sizes of the server and its workers (``/proc``) before and after.
A benchmark, not a test: the figures go to the lab page (docs/lab), never into assertions.
Every connection goes to 127.0.0.1, the count is bounded by the arguments, and each phase
stops after its seconds. The soft limit on open files is raised (up to the hard limit) to
hold the connections; the server, started from here, inherits it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np

from sim.analysis.statistics import wilson


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
    except OSError:  # refused, reset or timed out: no HTTP answer at all
        status = 0
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


def quantile_interval(values: np.ndarray, q: float) -> tuple[float, float]:
    """A 95% interval for the ``q`` quantile of ``values``' distribution: the order
    statistics whose ranks bound the binomial count below it (normal approximation)."""
    ordered = np.sort(values)
    n = len(ordered)
    half = 1.96 * math.sqrt(n * q * (1 - q))
    low = max(0, math.floor(q * n - half) - 1)
    high = min(n - 1, math.ceil(q * n + half))
    return float(ordered[low]), float(ordered[high])


def summary(name: str, results: list[tuple[int, float]], seconds: float) -> str:
    """The answered count and rate, the refusals and failures (the 5xx share with its 95%
    Wilson interval), and the answered requests' latency percentiles (p99 with its 95%
    interval)."""
    ok = np.array([t for s, t in results if s == 200])
    busy = sum(1 for s, _ in results if s == 503)
    failed = sum(1 for s, _ in results if s == 0)
    other = sum(1 for s, _ in results if s not in (0, 200, 503))
    server_errors = sum(1 for s, _ in results if s >= 500)
    low, high = wilson(server_errors, len(results))
    counts = (f"{busy} refused as busy (503), {failed} without an answer, {other} other; "
              f"5xx {server_errors} of {len(results)} (95% {100 * low:.2f}-{100 * high:.2f}%)")
    if len(ok) == 0:
        return f"{name}: none answered; {counts}"
    p50, p99 = np.percentile(ok, [50, 99]) * 1000
    p99_low, p99_high = (1000 * v for v in quantile_interval(ok, 0.99))
    return (f"{name}: {len(ok)} answered ({len(ok) / seconds:.0f}/s), {counts}; "
            f"p50 {p50:.0f} ms, p99 {p99:.0f} ms (95% {p99_low:.0f}-{p99_high:.0f}), "
            f"max {ok.max() * 1000:.0f} ms")


def raise_open_files(wanted: int) -> int:
    """Raise this process's soft limit on open files towards ``wanted`` (never above the
    hard limit); the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def burst(port: int, connections: int) -> list[tuple[int, float]]:
    """``connections`` sockets opened first, then one ``GET /api/options`` on each at once:
    the status of each answer (0: none) and its seconds from the moment all were sent."""
    request = (b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               b"Connection: close\r\n\r\n")
    socks = [socket.create_connection(("127.0.0.1", port), timeout=60)
             for _ in range(connections)]
    time.sleep(1.0)  # the server accepts them all before any request is sent
    start = time.perf_counter()
    for s in socks:
        s.sendall(request)
    results = []
    for s in socks:
        try:
            head = s.recv(64)
            status = int(head.split()[1]) if head.startswith(b"HTTP/1.1 ") else 0
        except OSError:
            status = 0
        results.append((status, time.perf_counter() - start))
        s.close()
    return results


SLOW_START = {
    "headers": b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    "body": b"POST /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n",
}
"""How a slow connection begins: a request's first header lines, or a POST's whole headers
announcing a 60,000-byte body."""


def hold_slow(port: int, connections: int, interval: float, kind: str,
              stop: threading.Event, counts: dict[str, int]) -> None:
    """Keep ``connections`` connections open until ``stop``, each sending one more header
    line (``kind`` ``headers``: never the blank line that ends them) or one more byte of its
    body (``body``) every ``interval`` seconds; a connection the server closes is counted
    and opened again."""

    async def one() -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                counts["refused"] += 1
                await asyncio.sleep(interval)
                continue
            counts["opened"] += 1
            try:
                writer.write(SLOW_START[kind])
                line = 0
                while not stop.is_set():
                    await asyncio.sleep(interval)
                    if reader.at_eof():
                        break
                    writer.write(b"X-Slow-%d: 1\r\n" % line if kind == "headers" else b" ")
                    await writer.drain()
                    line += 1
                if not stop.is_set():
                    counts["closed_by_server"] += 1
            except OSError:
                counts["closed_by_server"] += 1
            finally:
                writer.close()

    async def all_of_them() -> None:
        tasks = [asyncio.create_task(one()) for _ in range(connections)]
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(all_of_them())


def slow_phase(base: str, port: int, args: argparse.Namespace, game: dict) -> None:
    """Cheap requests from one client while ``--slow`` connections trickle their headers."""
    stop = threading.Event()
    counts = {"opened": 0, "closed_by_server": 0, "refused": 0}
    holder = threading.Thread(target=hold_slow, args=(
        port, args.slow, args.slow_interval, args.slow_kind, stop, counts))
    holder.start()
    try:
        time.sleep(min(5.0, args.seconds / 4))  # the slow connections open
        held = counts["opened"] - counts["closed_by_server"]
        cheap = {"call": lambda k: post(base + "/api/state", {
            "game": {**game, "seed": 100 + k}, "moves": []})}
        results = hammer(cheap, 1, args.seconds, stop)
        print(summary(f"cheap from one client, {args.slow} slow connections ({held} open "
                      f"when it began, sending their {args.slow_kind})", results, args.seconds))
    finally:
        stop.set()
        holder.join()
    print(f"slow connections: {counts['opened']} opened, {counts['closed_by_server']} closed "
          f"by the server, {counts['refused']} refused")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web_load", description=__doc__)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--costly", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2,
                        help="the server's worker processes (0: do not pass --workers)")
    parser.add_argument("--phases", default="cheap,costly",
                        help="comma-separated: cheap, costly, burst, slow")
    parser.add_argument("--burst", type=int, default=200,
                        help="connections of the burst phase")
    parser.add_argument("--slow", type=int, default=1000,
                        help="slow connections held open in the slow phase")
    parser.add_argument("--slow-interval", type=float, default=1.0,
                        help="seconds between a slow connection's header lines (or bytes)")
    parser.add_argument("--slow-kind", choices=sorted(SLOW_START), default="headers",
                        help="what the slow connections trickle: header lines, or a body")
    args = parser.parse_args(argv)
    phases = set(args.phases.split(","))
    if phases - {"cheap", "costly", "burst", "slow"}:
        parser.error(f"unknown phases: {sorted(phases - {'cheap', 'costly', 'burst', 'slow'})}")
    wanted = 2 * max(args.slow, args.burst) + 256  # both ends of every connection
    limit = raise_open_files(wanted)
    if limit < wanted:
        print(f"note: at most {limit} open files (hard limit), {wanted} wanted: "
              "fewer connections than asked may open")
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
        stop = threading.Event()
        if "cheap" in phases:
            print(summary("cheap", hammer(cheap, args.clients, args.seconds, stop),
                          args.seconds))
        if "costly" in phases:
            costly_game, moves = long_game()
            costly = {"call": lambda k: post(base + "/api/review",
                                             {"game": costly_game, "moves": moves})}
            background = threading.Thread(target=lambda: print(summary(
                "costly", hammer(costly, args.costly, 2 * args.seconds, stop),
                2 * args.seconds)))
            background.start()
            time.sleep(1.0)
            print(summary("cheap, costly in flight",
                          hammer(cheap, args.clients, args.seconds - 1, stop), args.seconds - 1))
            options = {"call": lambda k: get(base + "/api/options")}
            print(summary("options while costly", hammer(options, 1, args.seconds - 1, stop),
                          args.seconds - 1))
            background.join()
        if "burst" in phases:
            print(summary(f"burst of {args.burst}", burst(port, args.burst), 1.0))
        if "slow" in phases:
            slow_phase(base, port, args, game)
        print(f"memory: {before:.0f} MB before, {resident_mb(server.pid):.0f} MB after "
              f"(server and workers)")
    finally:
        server.terminate()
        server.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
