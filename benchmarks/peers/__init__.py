"""ginbox next to the peers: OpenSpiel's ``gin_rummy`` and RLCard's ``gin-rummy``.

Run from the repository root::

    python -m benchmarks.peers [--hands N] [--games G] [--deadwood D] [--compare C]
                               [--no-peers] [--write-docs]
    python -m benchmarks.peers --envs [--setup-gin-rummy | --gin-rummy-python PATH]
                               [--env-steps N] [--vector-steps N] [--repeats R] [--write-docs]

On one machine, in one run, it measures

* random-play hands per second: OpenSpiel from Python (uniform random legal actions, chance
  outcomes sampled too), RLCard's environment with its ``RandomAgent``s, and ginbox's compiled
  batch kernel with the ``random`` strategy in every seat, two-player ``eaai`` rules (the closest
  to the peers' rules) and the three-handed default;
* least-deadwood evaluations per second on random 10-card hands: OpenSpiel's C++
  ``GinRummyUtils.min_deadwood`` called from Python, RLCard's ``get_best_meld_clusters`` (pure
  Python), and ginbox's scalar wrapper ``sim.engine.melds.min_deadwood`` and batch kernel
  ``min_deadwood_batch``;
* correctness: on random and meld-rich 11-card hands, how often OpenSpiel's 11-card least
  deadwood (its ``MinDeadwood`` melds all 11 cards first, then throws away the highest deadwood
  card) differs from ginbox's exact ``best_discard``, and who is right by brute force.

``--envs`` measures the learning environments instead (``pip install .[rl]``): ``sim.env``'s
AEC ``raw_env`` and wrapped ``env`` against PettingZoo's ``gin_rummy_v4`` with random legal
actions, one loop for both, and ``sim.env.VectorEnv``'s steps per second. ``gin_rummy_v4``
left PettingZoo after 1.24 and the ``rl`` extra needs a newer PettingZoo, so it runs in its own
interpreter: ``--setup-gin-rummy`` creates one (a venv under ``~/.cache/ginbox`` with
``pettingzoo[classic]==1.24.3``), or ``--gin-rummy-python PATH`` (or the environment variable
``GINBOX_GIN_RUMMY_PYTHON``) names one. The figures go between ``<!-- envs:begin -->`` and
``<!-- envs:end -->`` with ``--write-docs``.

The peers are optional (``pip install .[peers]``); without them their rows say so and ginbox is
still measured. ``--write-docs`` puts the table into ``docs/performance.md`` between the markers
``<!-- peers:begin -->`` and ``<!-- peers:end -->``, leaving the rest of the page as it is.

Card encodings: ginbox codes are ``suit * 16 + rank`` with suits S H D C; OpenSpiel's are
``suit * 13 + rank`` with suits s c d h (its ``kSuitChar`` is ``"scdh"``); RLCard's are
``suit * 13 + rank`` with suits S H D C. Ranks are ace 0 .. king 12 everywhere.
The code is split by idea: :mod:`benchmarks.peers.engines` (the engines' rows),
:mod:`benchmarks.peers.envs` (the environments' rows), :mod:`benchmarks.peers.common`
(rows, versions, the docs block); this module is the command and names them all.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from benchmarks.peers.common import (
    BEGIN,
    COLUMNS,
    DOC,
    END,
    NOT_INSTALLED,
    ROOT,
    SKIPPED,
    format_value,
    import_peer,
    load_average,
    machine,
    markdown_table,
    peer_version,
    table_row,
    write_docs,
)
from benchmarks.peers.engines import (
    OPENSPIEL_SUITS,
    RLCARD_SUITS,
    TRAP_ANSWER,
    TRAP_HAND,
    brute_best_discard,
    brute_min_deadwood,
    ginbox_random_hands,
    ginbox_rows,
    meld_rich_masks,
    openspiel_hands,
    openspiel_random_hands,
    openspiel_rows,
    openspiel_utils,
    python_ginbox_rows,
    rlcard_hands,
    rlcard_min_deadwood_fn,
    rlcard_random_hands,
    rlcard_rows,
    run,
    section,
    to_openspiel,
    to_rlcard_text,
    unavailable_rows,
)
from benchmarks.peers.envs import (
    ENVS_BEGIN,
    ENVS_END,
    GIN_RUMMY_REQUIREMENT,
    GIN_RUMMY_VENV,
    env_rows,
    env_section,
    gin_rummy_python,
    gin_rummy_steps,
    ginbox_aec_steps,
    setup_gin_rummy,
    vector_steps,
)

__all__ = [
    "BEGIN", "COLUMNS", "DOC", "END", "ENVS_BEGIN", "ENVS_END", "GIN_RUMMY_REQUIREMENT",
    "GIN_RUMMY_VENV", "NOT_INSTALLED", "OPENSPIEL_SUITS", "RLCARD_SUITS", "ROOT", "SKIPPED",
    "TRAP_ANSWER", "TRAP_HAND", "brute_best_discard", "brute_min_deadwood", "env_rows",
    "env_section", "format_value", "gin_rummy_python", "gin_rummy_steps", "ginbox_aec_steps",
    "ginbox_random_hands", "ginbox_rows", "import_peer", "load_average", "machine", "main",
    "markdown_table", "meld_rich_masks", "openspiel_hands", "openspiel_random_hands",
    "openspiel_rows", "openspiel_utils", "python_ginbox_rows", "peer_version", "rlcard_hands",
    "rlcard_min_deadwood_fn",
    "rlcard_random_hands", "rlcard_rows", "run", "section", "setup_gin_rummy", "table_row",
    "to_openspiel", "to_rlcard_text", "unavailable_rows", "vector_steps", "write_docs",
]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="python -m benchmarks.peers", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=2000,
                   help="random-play hands for each peer (default 2000; they are slow)")
    p.add_argument("--games", type=int, default=2000,
                   help="ginbox random-play games per rules preset (default 2000)")
    p.add_argument("--deadwood", type=int, default=20_000,
                   help="10-card hands for the per-call least-deadwood rates (default 20000)")
    p.add_argument("--compare", type=int, default=100_000,
                   help="random and meld-rich 11-card hands each for the OpenSpiel check")
    p.add_argument("--brute", type=int, default=300,
                   help="random and meld-rich hands each to check ginbox by brute force")
    p.add_argument("--batch", type=int, default=400_000,
                   help="masks for ginbox's batch kernels (default 400000)")
    p.add_argument("--no-peers", action="store_true", help="measure ginbox only")
    p.add_argument("--envs", action="store_true",
                   help="measure only the learning environments (sim.env) next to PettingZoo's "
                   "gin_rummy_v4")
    p.add_argument("--env-steps", type=int, default=20_000,
                   help="AEC steps per environment and run (default 20000)")
    p.add_argument("--vector-steps", type=int, default=2_000_000,
                   help="VectorEnv steps per run (default 2000000)")
    p.add_argument("--num-envs", type=int, default=512, help="VectorEnv games (default 512)")
    p.add_argument("--repeats", type=int, default=3,
                   help="runs of each environment measurement (default 3; the median is shown)")
    p.add_argument("--gin-rummy-python", metavar="PATH",
                   help=f"an interpreter with {GIN_RUMMY_REQUIREMENT} (default: "
                   f"$GINBOX_GIN_RUMMY_PYTHON, else {GIN_RUMMY_VENV}/bin/python)")
    p.add_argument("--setup-gin-rummy", action="store_true",
                   help=f"first create {GIN_RUMMY_VENV} with {GIN_RUMMY_REQUIREMENT}")
    p.add_argument("--write-docs", action="store_true",
                   help=f"write the table into {DOC.relative_to(ROOT)}")
    args = p.parse_args(argv)
    where = machine()
    load = load_average()
    t = time.perf_counter()
    if args.envs:
        if args.setup_gin_rummy:
            setup_gin_rummy()
        python = gin_rummy_python(args.gin_rummy_python)
        rows = env_rows(args.env_steps, args.vector_steps, args.num_envs, args.repeats, python)
        command = " ".join(["python -m benchmarks.peers", *argv])
        where += f"; load average {load} at the start, {load_average()} at the end"
        text = env_section(rows, command, time.perf_counter() - t, where)
        print(text)
        if args.write_docs:
            write_docs(text, begin=ENVS_BEGIN, end=ENVS_END,
                       heading="## The learning environments against gin_rummy_v4")
            print(f"\nwritten to {DOC}")
        return 0
    rows = run(hands=args.hands, games=args.games, deadwood=args.deadwood,
               compare=args.compare, brute=args.brute, batch=args.batch,
               peers=not args.no_peers)
    seconds = time.perf_counter() - t
    command = " ".join(["python -m benchmarks.peers", *argv])
    where += f"; load average {load} at the start, {load_average()} at the end"
    text = section(rows, command, seconds, where)
    print(text)
    if args.write_docs:
        write_docs(text)
        print(f"\nwritten to {DOC}")
    return 0

