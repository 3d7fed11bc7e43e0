"""What the EAAI bridge costs: games a second of a framework player through ``eaai:`` against
``simple``, and where the time goes.

    GINBOX_EAAI_CLASSPATH=/path/to/eaai/classes python -m benchmarks.eaai_bridge --games 200 \
        --floor ./agent        # cc -O2 -o agent examples/agent.c

Plays ``--games`` two-handed games (eaai rules) in this one process: ``simple`` against
``simple`` through the Python game loop (the driver with a hand log, as every game with an
outside player is played): the loop's own cost; ``eaai:PLAYER`` against ``simple``, once
with the JVM's start and once more warm; with ``--floor PROGRAM``, ``agent:PROGRAM`` against
``simple``: a program that answers at once, the protocol's own cost. Of each it reports the
wall time, the time spent waiting on the program (writing the events and waiting for each
answer: the pipe, the scheduler, the bridge and the player's thinking), the CPU time of this
process and of the Java process. Prints one JSON line. Needs psutil (in the dev extras) and
the EAAI framework on the classpath (docs/outside-players.md).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import psutil

from sim.play.driver import play_games
from strategies import outside


class _Waits:
    """Wraps ``Program._exchange`` to add up the time spent in it and count the calls."""

    def __init__(self) -> None:
        self.seconds, self.calls = 0.0, 0
        self._inner = outside.Program._exchange

    def __enter__(self) -> _Waits:
        inner, waits = self._inner, self

        def timed(program: outside.Program, expect: bool) -> bytes:
            start = time.perf_counter()
            try:
                return inner(program, expect)
            finally:
                waits.seconds += time.perf_counter() - start
                waits.calls += 1

        outside.Program._exchange = timed  # type: ignore[method-assign]  # measuring only
        return self

    def __exit__(self, *exc: Any) -> None:
        outside.Program._exchange = self._inner  # type: ignore[method-assign]  # restored


def _java_cpu() -> float:
    """CPU seconds of this process's Java children so far."""
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            if "java" in child.name():
                t = child.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            continue
    return total


def _timed_play(strategies: list[str], games: int, seed: int) -> dict[str, Any]:
    me = psutil.Process()
    cpu0, java0 = me.cpu_times(), _java_cpu()
    with _Waits() as waits:
        start = time.perf_counter()
        result = play_games(strategies, "eaai", games=games, seed=seed, log=True,
                            keep_games=False)
        wall = time.perf_counter() - start
    cpu1, java1 = me.cpu_times(), _java_cpu()
    forfeits = result.summary().get("forfeits")
    return {"strategies": strategies, "games": games, "wall_s": round(wall, 3),
            "games_per_s": round(games / wall, 1),
            "python_cpu_s": round(cpu1.user + cpu1.system - cpu0.user - cpu0.system, 3),
            "java_cpu_s": round(java1 - java0, 3),
            "waiting_on_program_s": round(waits.seconds, 3),
            "waiting_share": round(waits.seconds / wall, 3), "exchanges": waits.calls,
            "forfeits": 0 if forfeits is None else int(forfeits.sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--player", default="ginrummy.SimpleGinRummyPlayer")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--floor", metavar="PROGRAM",
                        help="also play agent:PROGRAM (e.g. examples/agent.c compiled), a "
                             "program that answers at once: the protocol's own cost")
    args = parser.parse_args()
    bridged = [f"eaai:{args.player}", "simple"]
    outside_seat = outside.outside_seat(bridged[0], "eaai", args.player, load=True)
    start = time.perf_counter()
    outside.program_for(list(outside_seat.command), outside_seat.time_limit,
                        {"rules": {"preset": "eaai", "options": {"knock_limit": 10}},
                         "seat": 0, "players": 2}).close()
    jvm_start = time.perf_counter() - start
    out = {"loop_only": _timed_play(["simple", "simple"], args.games, args.seed),
           "cold": _timed_play(bridged, args.games, args.seed),
           "warm": _timed_play(bridged, args.games, args.seed + 1),
           "jvm_start_and_hello_s": round(jvm_start, 3)}
    if args.floor:
        out["floor"] = _timed_play([f"agent:{args.floor}", "simple"], args.games, args.seed)
    outside.close_programs()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
