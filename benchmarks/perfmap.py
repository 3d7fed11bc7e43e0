"""Profile the compiled engine with Linux ``perf``, by function name.

``perf`` cannot name JIT-compiled code by itself: it reads ``/tmp/perf-<pid>.map`` for that.
This script compiles the engine into a fresh temporary cache (numba keeps the compiled modules
of functions compiled in this process, not of those loaded from the cache), writes the map for
every compiled function of ``sim`` and ``strategies`` and of numba's runtime, then plays games
while ``perf record`` samples the process, and prints where the time went:

    python -m benchmarks.perfmap                       # greedy-knock x3, 15 s of samples
    python -m benchmarks.perfmap --strategies simple,simple,simple --seconds 30

This is how the reference counting (38% of the time) was found; see docs/performance.md.
Needs ``perf`` on the PATH; compiling takes about 40 s first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def symbol_map(dispatchers: Iterable[Any]) -> list[tuple[int, int, str]]:
    """(address, size, name) of every function compiled in this process for ``dispatchers``.

    Sizes are the distance to the next function (the map only has to cover the code).
    """
    from numba.core.runtime import nrt

    libraries = [nrt.rtsys.library]
    for dispatcher in dispatchers:
        libraries += [cres.library for cres in dispatcher.overloads.values()]
    addresses: dict[int, str] = {}
    for library in libraries:
        module = getattr(library, "_final_module", None)  # None when loaded from the cache
        if module is None:
            continue
        for function in module.functions:
            if function.is_declaration:
                continue
            address = library.get_pointer_to_function(function.name)
            if address:
                addresses[address] = function.name
    ordered = sorted(addresses.items())
    entries = []
    for i, (address, name) in enumerate(ordered):
        end = ordered[i + 1][0] if i + 1 < len(ordered) else address + 4096
        entries.append((address, min(end - address, 1 << 20), name))
    return entries


def engine_dispatchers() -> list[Any]:
    """Every compiled function defined in ``sim`` and ``strategies``."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import sim
    import strategies

    found = []
    for package in (sim, strategies):
        for info in pkgutil.iter_modules(package.__path__):
            if info.name == "__main__":
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            found += [obj for obj in vars(module).values() if isinstance(obj, CPUDispatcher)]
    return found


def readable(symbol: str) -> str:
    """``sim.engine.melds._best_discard_from`` for numba's mangled
    ``_ZN3sim6engine5melds18_best_...``."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    return ".".join(parts) or symbol


def write_map(entries: list[tuple[int, int, str]], pid: int | None = None) -> Path:
    """Write ``/tmp/perf-<pid>.map``, the file ``perf report`` reads for JIT symbols."""
    path = Path(f"/tmp/perf-{pid or os.getpid()}.map")
    path.write_text("".join(f"{a:x} {s:x} {n}\n" for a, s, n in entries))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strategies", default="greedy-knock,greedy-knock,greedy-knock")
    parser.add_argument("--seconds", type=float, default=15.0, help="sampling time")
    parser.add_argument("--top", type=int, default=25, help="rows of the report")
    args = parser.parse_args(argv)
    if shutil.which("perf") is None:
        print("perf is not installed (linux-tools / linux-perf)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as cache:
        os.environ["NUMBA_CACHE_DIR"] = cache  # before importing sim: compile, keep modules
        from sim.play.driver import play_games

        play_games(args.strategies, games=2, seed=0)  # compiles everything the games need
        write_map(symbol_map(engine_dispatchers()))
        data = Path(cache) / "perf.data"
        done = threading.Event()

        def play() -> None:
            seed = 1
            while not done.is_set():
                play_games(args.strategies, games=500, seed=seed)
                seed += 1

        player = threading.Thread(target=play, daemon=True)
        player.start()
        subprocess.run(["perf", "record", "-F", "4000", "-p", str(os.getpid()), "-o", str(data),
                        "--", "sleep", str(args.seconds)], check=True, capture_output=True)
        done.set()
        player.join()
        report = subprocess.run(["perf", "report", "-i", str(data), "--no-children",
                                 "--sort", "sym", "--stdio"], check=True, capture_output=True,
                                text=True).stdout
    rows = [line for line in report.splitlines() if line.strip() and not line.startswith("#")]
    for row in rows[:args.top]:
        share, _, symbol = row.split(maxsplit=2)
        print(f"{share:>8}  {readable(symbol)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
