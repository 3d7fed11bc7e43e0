"""The strength-lab commands: ``tune`` (self-play parameter search), ``exploit`` (how far a
tuned opponent beats one strategy), ``league`` (ratings) and ``train`` (a network by
self-play)."""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
from typing import Any

from sim.analysis.formatting import plural
from sim.cli.common import Interrupted, add_cwd_to_path, terminate_as_interrupt


def cmd_tune(args: argparse.Namespace) -> int:
    """``ginbox tune``: search, checkpoint every generation, print the tuned strategy and its
    held-out check; Ctrl-C or SIGTERM leave the last checkpoint and print how to resume."""
    from sim.tune import load_tune, tune

    add_cwd_to_path()
    spec = load_tune(args.file)  # ValueError (exit 2) before anything is written
    with terminate_as_interrupt() as terminated:
        try:
            result = tune(spec, out=args.out, jobs=args.jobs, backend=args.backend,
                          scheduler=args.scheduler, resume=args.resume, force=args.force,
                          quiet=args.quiet)
        except KeyboardInterrupt:
            argv = ["ginbox", "tune", args.file] + (["--out", args.out] if args.out else [])
            what = "terminated (SIGTERM)" if terminated else "interrupted"
            raise Interrupted(f"{what}: the last finished generation is saved; continue "
                              "with: " + " ".join(shlex.quote(a) for a in [*argv, "--resume"]),
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
    print(result.headline())
    print()
    caution = "" if result.warning is None else " (with the warning above)"
    print(f"tuned strategy written to {result.out / 'tuned.txt'}{caution}; learning curve: "
          f"{result.out / 'learning_curve.csv'} and .png")
    return 0


def cmd_exploit(args: argparse.Namespace) -> int:
    """``ginbox exploit``: tune against TARGET, check on mirrored held-out deals, print the
    gap; Ctrl-C or SIGTERM keep what is done and print how to resume."""
    from sim.cli.games import parse_settings
    from sim.tune.exploit import ExploitSpec, exploit

    add_cwd_to_path()

    def names(text: str | None) -> tuple[str, ...] | None:
        return None if text is None else tuple(p.strip() for p in text.split(",") if p.strip())

    spec = ExploitSpec(target=args.target, rules=args.rules,
                       overrides=parse_settings(args.settings), exploiter=args.exploiter,
                       params=names(args.params), general=names(args.general) or (),
                       seed=args.seed, holdout_seed=args.holdout_seed,
                       generations=args.generations, population=args.population,
                       games_per_candidate=args.games, select_games=args.select_games,
                       holdout_games=args.holdout_games,
                       sigma0=args.sigma0, chunk_size=args.chunk_size)
    with terminate_as_interrupt() as terminated:
        try:
            result = exploit(spec, out=args.out, jobs=args.jobs, backend=args.backend,
                             scheduler=args.scheduler, resume=args.resume, force=args.force,
                             quiet=args.quiet)
        except KeyboardInterrupt:
            argv = [a for a in ["ginbox", *args.argv] if a not in ("--force", "--resume")]
            what = "terminated (SIGTERM)" if terminated else "interrupted"
            raise Interrupted(f"{what}: what is done is saved; continue with: "
                              + " ".join(shlex.quote(a) for a in [*argv, "--resume"]),
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
    print(result.headline())
    files = ", ".join(str(result.out / f) for f in ("report.txt", "exploit.json", "holdout.csv",
                                                    "tune"))
    print(f"\nfiles: {files}")
    return 0


def cmd_league(args: argparse.Namespace) -> int:
    """``ginbox league``: play what the league's folder lacks, rate, print, write the files."""
    from sim.league import leaderboard_text, load_league, run_league
    from sim.league.output import FILES
    from sim.runs.cluster import ClusterLost
    from sim.runs.experiment import rotation_warning

    add_cwd_to_path()
    spec = load_league(args.file)  # ValueError (exit 2) before anything is written
    warning = rotation_warning(args.games or spec.games, spec.players)
    if warning is not None:
        print(f"ginbox: warning: {warning}", file=sys.stderr, flush=True)
    with terminate_as_interrupt() as terminated:
        try:
            result = run_league(args.file, games=args.games, seed=args.seed, jobs=args.jobs,
                                backend=args.backend, scheduler=args.scheduler,
                                if_cluster_lost=args.if_cluster_lost, out=args.out,
                                quiet=args.quiet, bootstrap=args.bootstrap)
        except ClusterLost as exc:
            raise Interrupted(f"{exc.reason}: the finished chunks are saved; run the same command "
                              "again to finish the league", 1) from None
        except KeyboardInterrupt:
            what = "terminated (SIGTERM)" if terminated else "interrupted"
            raise Interrupted(f"{what}: the finished chunks are saved; run the same command "
                              "again to finish the league",
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
    already = result.games_total - result.games_played
    print(f"played {plural(result.games_played, 'game')} into {result.out}"
          + (f"; {already:,} were already played" if already else ""))
    print()
    print(leaderboard_text(result.spec, result.leaderboard))
    if result.forfeits:  # counted apart: each is in the table as a loss of the offender
        print("\nforfeits: " + plural(sum(result.forfeits.values()), "game") + " ended by a "
              "player's fault, each won by the other side: "
              + ", ".join(f"{name} {n:,}" for name, n in result.forfeits.items()))
    print(f"\nfiles: {', '.join(str(result.out / f) for f in FILES)}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    """``ginbox train``: the rounds of expert iteration; Ctrl-C or SIGTERM keep every shard
    and epoch done and print how to resume."""
    from sim.learn import TrainingSpec, load_any_training, run_training

    spec = load_any_training(args.file)  # ValueError (exit 2) before anything is written
    if not isinstance(spec, TrainingSpec):
        return _train_belief(args, spec)
    with terminate_as_interrupt() as terminated:
        try:
            result = run_training(spec, out=args.out, jobs=args.jobs, backend=args.backend,
                                  scheduler=args.scheduler, resume=args.resume,
                                  force=args.force, quiet=args.quiet)
        except KeyboardInterrupt:
            argv = ["ginbox", "train", args.file] + (["--out", args.out] if args.out else [])
            what = "terminated (SIGTERM)" if terminated else "interrupted"
            raise Interrupted(f"{what}: every finished shard and epoch is saved; continue "
                              "with: " + " ".join(shlex.quote(a) for a in [*argv, "--resume"]),
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
    print((result.out / "report.md").read_text(), end="")
    print(f"\nnetwork written to {result.weights}; play it with "
          f"--strategies net:weights={result.weights}")
    return 0


def _train_belief(args: argparse.Namespace, spec: Any) -> int:
    """``ginbox train`` of a ``model = "belief"``, ``"knock"`` or ``"keep"`` file: record,
    train, score; the recorded chunks survive an interruption (rerun the same command to
    continue)."""
    from sim.learn.belief import run_belief_training
    from sim.learn.keep import run_keep_training
    from sim.learn.knock import run_knock_training
    from sim.runs.workers import usable_cpus

    run = {"knock": run_knock_training, "keep": run_keep_training}.get(spec.model,
                                                                         run_belief_training)
    try:
        folder = run(spec, out=args.out, jobs=args.jobs or usable_cpus(), quiet=args.quiet)
    except KeyboardInterrupt:
        raise Interrupted("interrupted: every recorded chunk is saved; rerun the same command "
                          "to continue", 128 + signal.SIGINT) from None
    print((folder / "report.md").read_text(), end="")
    if spec.model == "knock":
        print(f"\nknock model written to {folder / 'knock.npz'}; ship it as "
              "strategies/knock_v1.npz and play it with --strategies mc:opp_model=3")
    elif spec.model == "keep":
        print(f"\nkeep model written to {folder / 'keep.npz'}; ship it as "
              "strategies/keep_v1.npz and play it with --strategies mc:opp_model=4")
    else:
        print(f"\nbelief written to {folder / 'belief.npz'}; ship it as "
              "strategies/belief_v1.npz and play it with --strategies mc:belief=1")
    return 0
