"""The commands about experiments: ``run``, ``report`` and ``bench``."""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from sim.analysis.formatting import plural
from sim.cli.common import (
    PROG,
    Interrupted,
    UsageError,
    add_cwd_to_path,
    os_text,
    terminate_as_interrupt,
)


def _print_report(rep: Any, directory: Path, required: bool) -> None:
    """Write the report's files into ``directory`` and print the headline and where they are.

    When the files cannot be written (a read-only results folder, a full disk) the headline
    is still printed, with a warning saying so, unless the files were asked for (``required``:
    ``report --out``), which is an error.
    """
    try:
        kinds = [p.suffix for p in rep.write(directory)]
    except OSError as exc:
        message = f"cannot write the report files into {directory}: {os_text(exc, directory)}"
        if required:
            raise UsageError(message) from None
        print(rep.headline())
        print(f"{PROG}: warning: {message}; the report above is complete: write its files "
              f"elsewhere with: ginbox report {shlex.quote(str(rep.result.out))} --out DIR",
              file=sys.stderr)
        return
    print(rep.headline())
    print()
    print(f"report: {directory / 'report.md'} ({kinds.count('.csv')} CSV tables, "
          f"{kinds.count('.png')} PNG plots)")


def _results_dir(args: argparse.Namespace) -> Path | None:
    """Where ``run`` writes: --out, else results/<experiment name> (None if unreadable)."""
    if args.out:
        return Path(args.out)
    from sim.runs.experiment import load_experiment

    try:
        return Path("results") / load_experiment(args.file).name
    except ValueError:
        return None


def _interrupted(args: argparse.Namespace, terminated: bool, what: str | None = None) -> str:
    """What an interrupted ``run`` left, and the command that finishes it (``what``: why it
    stopped, when not a signal)."""
    from sim.runs.storage import read_manifest

    what = what or ("terminated (SIGTERM)" if terminated else "interrupted")
    out = _results_dir(args)
    manifest = read_manifest(out) if out is not None else None
    if manifest is None:
        return f"{what} before any result was written"
    chunks = manifest["chunks"]
    done = sum(c.get("status") == "done" for c in chunks)
    argv = ["ginbox", "run", args.file]
    argv += ["--games", str(args.games)] if args.games is not None else []
    argv += ["--seed", str(args.seed)] if args.seed is not None else []
    argv += ["--out", args.out] if args.out else []
    argv += ["--log"] if args.log else []
    if args.backend == "dask":
        argv += ["--backend", "dask"] + (["--scheduler", args.scheduler] if args.scheduler
                                         else [])
    return (f"{what}: {done} of {len(chunks)} chunks are saved in {out}; finish the run with: "
            + " ".join(shlex.quote(a) for a in [*argv, "--resume"]))


def cmd_run(args: argparse.Namespace) -> int:
    """``ginbox run``: run an experiment, write its report into the run directory, print the
    headline. The Dask backend starts worker processes by spawning; the ``ginbox`` script and
    ``python -m sim`` both guard their entry point, so the workers do not rerun the command."""
    from sim.analysis.report import report
    from sim.cli.games import warm_up_engine
    from sim.runs.cluster import ClusterLost
    from sim.runs.experiment import load_experiment
    from sim.runs.runner import run_experiment

    add_cwd_to_path()
    spec = load_experiment(args.file)  # ValueError (exit 2) before anything is written
    for warning in spec.replace(games=args.games or spec.games).warnings:
        print(f"{PROG}: warning: {warning}", file=sys.stderr, flush=True)
    if args.backend == "loky":  # a cluster's workers have caches of their own
        warm_up_engine(spec.arms[0].strategies, spec.arms[0].resolved_rules, args.log)
    with terminate_as_interrupt() as terminated:
        try:
            result = run_experiment(spec, games=args.games, seed=args.seed,
                                    jobs=args.jobs, backend=args.backend,
                                    scheduler=args.scheduler, out=args.out, resume=args.resume,
                                    force=args.force, quiet=args.quiet, log=args.log,
                                    break_lock=args.break_lock,
                                    if_cluster_lost=args.if_cluster_lost)
        except ClusterLost as exc:
            raise Interrupted(_interrupted(args, False, exc.reason), 1) from None
        except KeyboardInterrupt:
            raise Interrupted(_interrupted(args, bool(terminated)),
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
        except OSError as exc:
            where = _results_dir(args)
            raise UsageError(f"cannot write the run's results into {where}: "
                             f"{os_text(exc, where)}") from None
    print(_run_summary(result))
    print()
    _print_report(report(result), result.out, required=False)
    return 0


def _run_summary(result: Any) -> str:
    """What this invocation played: all of it, the rest of a resumed run, or nothing."""
    session = (result.manifest.get("sessions") or [{}])[-1]
    total = result.manifest["total_games"]
    played = session.get("games") or 0
    if played == 0:
        return (f"nothing to run: {'the' if total == 1 else 'all'} {plural(total, 'game')} in "
                f"{result.out} {'was' if total == 1 else 'were'} already played")
    wall, rate = session.get("wall_seconds"), session.get("games_per_s")
    sessions = result.manifest["sessions"]
    overall = result.manifest.get("timings", {}).get("wall_seconds")
    return (f"ran {plural(played, 'game')} into {result.out}"
            + (f" in {wall:.1f} s ({rate:,.0f} games/s)" if wall and rate else "")
            + (f"; {total - played:,} were already played" if played < total else "")
            + (f"; {len(sessions)} sessions, {overall:,.1f} s of wall time in all"
               if len(sessions) > 1 and overall else ""))


def cmd_report(args: argparse.Namespace) -> int:
    """``ginbox report``: write a finished run's report into its directory (or ``--out``),
    print the headline; a read-only run directory still gets its report printed."""
    from sim.analysis.report import report

    rep = report(args.dir)  # ValueError (exit 2): DIR is not a finished run
    if args.out is None:
        _print_report(rep, rep.result.out, required=False)
        return 0
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the report folder {out}: {os_text(exc, out)}"
                         ) from None
    _print_report(rep, out, required=True)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``ginbox bench``: delegated to sim.bench (imported only when asked for)."""
    try:
        from sim.bench import main as bench_main
    except ModuleNotFoundError as exc:
        if exc.name != "sim.bench":
            raise
        raise UsageError("the benchmark is not available in this version (no sim.bench)"
                         ) from None
    return int(bench_main(json_output=args.json, cold=args.cold))
