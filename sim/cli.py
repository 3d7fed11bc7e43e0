"""The ``ginbox`` command: play games, replay and check hand logs, list strategies, a demo,
run experiments and report on them.

Exit status: 0 success; 1 ``replay`` found a record that differs from what the rules give;
2 bad input (unknown strategy or preset, malformed ``name:key=value``, wrong number of
strategies, out-of-range number, unreadable or corrupt log, unknown game or hand), reported as
one ``ginbox: error: ...`` line on stderr with no traceback and no half-written file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from sim.analysis.statistics import wilson
from sim.engine.rules import PRESETS, Rules
from sim.play.driver import PlayResult, StrategyError, play_games
from sim.records.log import LogWriter, read_log
from strategies.registry import ALIASES, describe, parse_strategies

PROG = "ginbox"
DEMO_STRATEGIES = "greedy-knock,simple,random"
DEMO_GAMES = 300
DEMO_SEED = 1


class UsageError(Exception):
    """Bad input: reported as one line on stderr, exit status 2."""


class Interrupted(Exception):
    """A signal stopped the command: one line on stderr, exit status 128 + the signal."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and goes through main()."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("ginbox")
    except Exception:  # not installed (running from a source tree)
        return "unknown"


def _int_at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer >= low, with a message saying what is accepted."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not an integer: expected an integer >= {low}") from None
        if value < low:
            raise argparse.ArgumentTypeError(
                f"{value} is out of range: expected an integer >= {low}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = _Parser(prog=PROG, description="Three-handed Gin Rummy simulator.")
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    play = sub.add_parser("play", help="play games and print a summary (optionally a hand log)",
                          description="Play games between strategies and print who won.")
    play.add_argument("--strategies", required=True, metavar="A,B,C",
                      help="one strategy per seat, e.g. greedy-knock,simple,random or "
                           "greedy-knock:knock_at=6,simple,simple (see 'ginbox strategies')")
    play.add_argument("--rules", default="three-handed", metavar="PRESET",
                      help="rules preset: " + ", ".join(PRESETS) + " (default three-handed)")
    play.add_argument("--games", type=_int_at_least(1), default=100, metavar="N",
                      help="number of games (default 100)")
    play.add_argument("--seed", type=_int_at_least(0), default=0, metavar="S",
                      help="seed; the same seed gives the same games (default 0)")
    play.add_argument("--log", metavar="FILE",
                      help="write the hand log (JSON Lines, one hand per line) to FILE")
    play.add_argument("--quiet", action="store_true", help="no progress bar")

    replay = sub.add_parser(
        "replay", help="print logged hands move by move and check them against the rules",
        description="Print hands of a hand log move by move and re-run each through the rules "
                    "to check the recorded result. Default: every hand of the first game in "
                    "the file. Exit 0 when all match, 1 when a record differs from the rules.")
    replay.add_argument("file", metavar="FILE", help="hand log written by 'ginbox play --log'")
    replay.add_argument("--game", type=_int_at_least(0), metavar="G",
                        help="game number (default: the first game in the file)")
    replay.add_argument("--hand", type=_int_at_least(0), metavar="H",
                        help="only this hand of the game (default: every hand)")
    replay.add_argument("--all", action="store_true",
                        help="check every hand of every game; print only differences")

    sub.add_parser("strategies", help="list the strategies and their parameters",
                   description="List the built-in strategies, their parameters and defaults.")
    sub.add_parser("demo", help="play a short demo and replay one interesting hand",
                   description=f"Play {DEMO_GAMES} games of {DEMO_STRATEGIES} (three-handed, "
                               f"seed {DEMO_SEED}), print the summary, then replay and check "
                               "one interesting hand.")
    run = sub.add_parser(
        "run", help="run an experiment (TOML), write its report and print the headline",
        description="Run every arm of an experiment file in parallel chunks (resumable), "
                    "write the results (parquet) and the report (report.md, CSV tables, PNG "
                    "plots) into the results directory, and print the headline table.")
    run.add_argument("file", metavar="FILE", help="experiment TOML file (see experiments/)")
    run.add_argument("--games", type=_int_at_least(1), metavar="N",
                     help="games per arm (default: the file's)")
    run.add_argument("--seed", type=_int_at_least(0), metavar="S",
                     help="experiment seed (default: the file's)")
    run.add_argument("--jobs", type=_int_at_least(1), metavar="J",
                     help="worker processes (default: all usable cores)")
    run.add_argument("--backend", choices=("loky", "dask"), default="loky",
                     help="joblib backend: loky processes (default) or a Dask cluster")
    run.add_argument("--scheduler", metavar="ADDR",
                     help="Dask scheduler address, e.g. tcp://host:8786 (with --backend dask; "
                          "default: start a local cluster of --jobs workers)")
    run.add_argument("--out", metavar="DIR",
                     help="results directory (default: results/<experiment name>)")
    again = run.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="finish the missing chunks of an interrupted run in DIR")
    again.add_argument("--force", action="store_true",
                       help="delete the results already in DIR and run again")
    run.add_argument("--quiet", action="store_true",
                     help="no progress (else a bar on a terminal, a plain line every 30 s "
                          "otherwise)")
    run.add_argument("--break-lock", action="store_true",
                     help="take over DIR's lock from a run that is no longer running (a lost "
                          "machine, a reused pid)")
    run.add_argument("--log", action="store_true",
                     help="also write every chunk's hand log (arm=<i>/chunk-<c>.jsonl); plays "
                          "through the Python driver, far slower: for small runs")

    rep = sub.add_parser(
        "report", help="write the report of a finished run and print the headline",
        description="Write report.md, one CSV per table and PNG plots into DIR (a directory "
                    "written by 'ginbox run') and print the headline table.")
    rep.add_argument("dir", metavar="DIR", help="results directory of a finished run")
    rep.add_argument("--out", metavar="OUT",
                     help="write the report files into OUT instead of DIR (e.g. when DIR is "
                          "read-only)")

    tune = sub.add_parser(
        "tune", help="tune a strategy's parameters by self-play (TOML), resumable",
        description="CMA-ES over a built-in strategy's integer parameters for its game win "
                    "rate against a field, checkpointed every generation; prints the tuned "
                    "strategy and its held-out check (docs/tuning.md).")
    tune.add_argument("file", metavar="FILE", help="tuning TOML file (see docs/tuning.md)")
    tune.add_argument("--jobs", type=_int_at_least(1), metavar="J",
                      help="worker processes (default: all usable cores)")
    tune.add_argument("--backend", choices=("loky", "dask"), default="loky",
                      help="joblib backend: loky processes (default) or a Dask cluster")
    tune.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address, as for run")
    tune.add_argument("--out", metavar="DIR",
                      help="output folder (default: results/<tune name>)")
    tune_again = tune.add_mutually_exclusive_group()
    tune_again.add_argument("--resume", action="store_true",
                            help="continue an interrupted tune in DIR from its checkpoint")
    tune_again.add_argument("--force", action="store_true",
                            help="discard the tune already in DIR and start over")
    tune.add_argument("--quiet", action="store_true", help="no line per generation")
    league = sub.add_parser(
        "league", help="play a league (TOML) among strategies and print the ratings",
        description="Play the tables of a league its folder does not hold yet (paired deals, "
                    "resumable), fit ratings (Elo scale, the anchor at 1500, bootstrap 95%% "
                    "intervals), print the leaderboard and write it (docs/league.md).")
    league.add_argument("file", metavar="FILE", help="league TOML file (see experiments/)")
    league.add_argument("--games", type=_int_at_least(1), metavar="N",
                        help="games per table (default: the file's)")
    league.add_argument("--seed", type=_int_at_least(0), metavar="S",
                        help="league seed (default: the file's)")
    league.add_argument("--bootstrap", type=_int_at_least(0), metavar="B",
                        help="bootstrap resamples for the intervals (default: the file's, 200)")
    league.add_argument("--jobs", type=_int_at_least(1), metavar="J",
                        help="worker processes (default: all usable cores)")
    league.add_argument("--out", metavar="DIR",
                        help="league folder (default: results/<league name>)")
    league.add_argument("--quiet", action="store_true", help="no progress")

    bench = sub.add_parser("bench", help="measure the engine's speed",
                           description="Measure deadwood evaluations, hands and games per "
                                       "second.")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--cold", action="store_true",
                       help="also time a cold JIT compile: a new interpreter with an empty "
                            "temporary NUMBA_CACHE_DIR (minutes)")
    return parser


# ---------------------------------------------------------------------------------- play


def format_summary(result: PlayResult, seconds: float, seed: int) -> str:
    """The short text summary printed by ``play`` and ``demo``."""
    games = len(result.games)
    rate = games / seconds if seconds > 0 else float("inf")
    lines = [f"{games} games of {result.rules.name} gin, seed {seed}: "
             f"{seconds:.2f} s, {rate:,.0f} games/s"]
    table = result.summary()
    width = max(8, *(len(s) for s in table["strategy"]))
    lines.append(f"seat  {'strategy':<{width}}  games won  win rate  95% interval    "
                 "hands won  points")
    for row in table.itertuples():
        lo, hi = wilson(int(row.games_won), games)
        lines.append(f"{row.seat:>4}  {row.strategy:<{width}}  {row.games_won:>9}  "
                     f"{row.win_rate:>8.1%}  {lo:>5.1%} - {hi:<6.1%}  {row.hands_won:>9}  "
                     f"{row.points:>6}")
    out = result.outcomes()
    hands = out.pop("hands")
    parts = ", ".join(f"{k} {v} ({v / hands:.1%})" if hands else f"{k} {v}"
                      for k, v in out.items())
    lines.append(f"hands: {hands} ({hands / games:.1f} per game): {parts}" if games else
                 "hands: 0")
    return "\n".join(lines)


def _check_strategies(strategies: str, rules: Rules) -> None:
    """Fail before playing (and before creating any file) on a bad strategy list."""
    specs = parse_strategies(strategies)
    if len(specs) != rules.players:
        names = ", ".join(s.text for s in specs)
        raise ValueError(f"{rules.name} rules seat {rules.players} players, so --strategies "
                         f"needs {rules.players} names separated by commas: got {len(specs)} "
                         f"({names})")


def _play(strategies: str, rules: Rules, games: int, seed: int, log: bool,
          quiet: bool, on_records: Any = None) -> tuple[PlayResult, float]:
    bar: Any = None
    if not quiet:
        from tqdm import tqdm

        # disable=None: no bar when stderr is not a terminal (pipes, CI, tests)
        bar = tqdm(total=games, unit="game", file=sys.stderr, disable=None, leave=False)
    try:
        start = time.perf_counter()
        result = play_games(strategies, rules, games=games, seed=seed, log=log,
                            progress=bar.update if bar is not None else None,
                            on_records=on_records)
        return result, time.perf_counter() - start
    finally:
        if bar is not None:
            bar.close()


def cmd_play(args: argparse.Namespace) -> int:
    """``ginbox play``: play, print the summary, write the log atomically when asked."""
    rules = Rules.preset(args.rules)
    if os.getcwd() not in sys.path:  # user strategies named module:Class next to the user
        sys.path.append(os.getcwd())
    _check_strategies(args.strategies, rules)
    if args.log is None:
        result, seconds = _play(args.strategies, rules, args.games, args.seed, False, args.quiet)
        print(format_summary(result, seconds, args.seed))
        return 0
    try:
        # The temporary file is created first, so an unwritable destination fails before
        # any game is played; it replaces FILE only when every line is written.
        with LogWriter(args.log) as writer:
            result, seconds = _play(args.strategies, rules, args.games, args.seed, True,
                                    args.quiet, on_records=writer.write_all)
    except OSError as exc:
        raise UsageError(f"cannot write the log {args.log}: {exc.strerror or exc}") from None
    print(format_summary(result, seconds, args.seed))
    print(f"log: {writer.count} hands written to {args.log}")
    return 0


# ---------------------------------------------------------------------------------- replay


def _load_log(path: str) -> list[dict[str, Any]]:
    try:
        records = read_log(path)
    except OSError as exc:
        raise UsageError(f"cannot read the log {path}: {exc.strerror or exc}") from None
    if not records:
        raise UsageError(f"the log {path} holds no hands")
    return records


def _ranges(numbers: Sequence[int]) -> str:
    """``0..4, 7`` for a sorted list of integers (for 'what is accepted' messages)."""
    spans: list[str] = []
    nums = sorted(numbers)
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        spans.append(str(nums[i]) if i == j else f"{nums[i]}..{nums[j]}")
        i = j + 1
    return ", ".join(spans)


def cmd_replay(args: argparse.Namespace) -> int:
    """``ginbox replay``: render and check hands; exit 1 if any differs from the rules."""
    from sim.records.replay import group_games, replay_game

    if args.all and (args.game is not None or args.hand is not None):
        raise UsageError("--all checks every game and hand: leave out --game and --hand")
    games = group_games(_load_log(args.file))
    if args.all:
        checked = bad = 0
        for recs in games.values():
            for check in replay_game(recs):
                checked += 1
                if not check.ok:
                    bad += 1
                    for diff in check.differences:
                        print(f"game {check.game} hand {check.hand}: {diff}")
        verdict = ("all match the rules" if not bad else
                   f"{bad} differ from the rules")
        print(f"{args.file}: {checked} hands in {len(games)} games checked: {verdict}")
        return 1 if bad else 0
    game = args.game if args.game is not None else next(iter(games))
    if game not in games:
        raise UsageError(f"{args.file} has no game {game}: it holds games {_ranges(list(games))}")
    checks = replay_game(games[game])
    if args.hand is not None:
        if not 0 <= args.hand < len(checks):
            raise UsageError(f"game {game} has no hand {args.hand}: it has hands "
                             f"0..{len(checks) - 1}")
        checks = [checks[args.hand]]
    for i, check in enumerate(checks):
        if i:
            print()
        print(check.text)
    bad = [c.hand for c in checks if not c.ok]
    print()
    if len(checks) == 1:
        print(checks[0].verdict)
    elif bad:
        print(f"game {game}: {len(bad)} of {len(checks)} hands differ from the rules "
              f"(hands {', '.join(map(str, bad))})")
    else:
        print(f"game {game}: all {len(checks)} hands match the rules")
    return 1 if bad else 0


# ---------------------------------------------------------------------------------- others


def cmd_strategies(args: argparse.Namespace) -> int:
    """``ginbox strategies``: the built-ins, their parameters, and how to plug in your own."""
    infos = describe()
    width = max(len(i["name"]) for i in infos)
    print("Built-in strategies (one per seat: --strategies A,B,C; parameters as "
          "name:key=value,key=value):")
    for info in infos:
        print(f"  {info['name']:<{width}}  {info['description']}")
        for pname, p in info["params"].items():
            default = "the knock limit of the rules" if p["default"] is None else p["default"]
            lo, hi = p["range"]
            doc = re.sub(r"\s*\(default:[^)]*\)\s*$", "", p["doc"])
            print(f"  {'':<{width}}    {pname}={lo}..{hi} (default {default}): {doc}")
        if info.get("sets"):
            shown = ", ".join(
                f"{info['name']}@{name} ({', '.join(f'{k}={v}' for k, v in values.items())})"
                if values else f"{info['name']}@{name} (the defaults)"
                for name, values in info["sets"].items())
            print(f"  {'':<{width}}    sets: {shown}")
    aliases = ", ".join(f"{a} = {c}" for a, c in ALIASES.items())
    if aliases:
        print(f"Aliases: {aliases}")
    print("Example: ginbox play --strategies greedy-knock:knock_at=6,simple,random")
    print()
    print("Your own strategy: a Python class with take_upcard(view), draw_from_discard(view), "
          "knock(view) and discard(view)")
    print("(see strategies/base.py, BaseStrategy), named by its import path package.module:Class,")
    print("optionally with keyword arguments (passed as strings):")
    print("  ginbox play --strategies mybots.sly:SlyBot,simple,random")
    print("  ginbox play --strategies mybots.sly:SlyBot:depth=2,simple,random")
    print("The module must be importable: installed, on PYTHONPATH, or under the current "
          "directory.")
    return 0


def _interesting(records: list[dict[str, Any]]) -> int:
    """Index of a hand worth showing: an undercut with layoffs, else any undercut, gin, knock."""
    def first(pred: Callable[[dict[str, Any]], bool]) -> int | None:
        return next((i for i, r in enumerate(records) if pred(r)), None)

    for pred in (lambda r: r["result"]["end"] == "undercut" and bool(r["result"]["layoffs"]),
                 lambda r: r["result"]["end"] == "undercut",
                 lambda r: r["result"]["end"] == "gin",
                 lambda r: r["result"]["end"] == "knock"):
        i = first(pred)
        if i is not None:
            return i
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """``ginbox demo``: a short match and one replayed hand."""
    from sim.records.replay import replay_hand

    rules = Rules.preset("three-handed")
    print(f"ginbox demo: {DEMO_GAMES} games of three-handed gin, {DEMO_STRATEGIES} "
          f"(seed {DEMO_SEED})")
    print()
    result, seconds = _play(DEMO_STRATEGIES, rules, DEMO_GAMES, DEMO_SEED, True, True)
    print(format_summary(result, seconds, DEMO_SEED))
    records = result.log or []
    i = _interesting(records)
    record = records[i]
    previous = records[i - 1] if i > 0 and records[i - 1]["game"] == record["game"] else None
    check = replay_hand(record, previous)
    print()
    print(f"One {record['result']['end']} hand, replayed move by move and checked against "
          "the rules:")
    print()
    print(check.text)
    print()
    print("Next: ginbox play --strategies greedy-knock,simple,random --games 1000 "
          "--log hands.jsonl")
    print("      ginbox replay hands.jsonl --game 0      ginbox strategies")
    return 0 if check.ok else 1


def _os_text(exc: OSError, where: Path | None = None) -> str:
    """An OS error as text with the file it concerns, unless that is ``where`` or one of
    ginbox's temporaries (the directory already says where)."""
    from sim.records.files import is_temp

    text = exc.strerror or str(exc)
    name = exc.filename
    if name and Path(name) != where and not is_temp(name):
        text += f" ({name})"
    return text


def _print_report(rep: Any, directory: Path, required: bool) -> None:
    """Write the report's files into ``directory`` and print the headline and where they are.

    When the files cannot be written (a read-only results folder, a full disk) the headline
    is still printed, with a warning saying so, unless the files were asked for (``required``:
    ``report --out``), which is an error.
    """
    try:
        kinds = [p.suffix for p in rep.write(directory)]
    except OSError as exc:
        message = f"cannot write the report files into {directory}: {_os_text(exc, directory)}"
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


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[list[int]]:
    """While a run plays, SIGTERM stops it as Ctrl-C does: the workers are stopped, the
    manifest says ``interrupted`` and the run can be resumed. A second SIGTERM kills at once."""
    received: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        received.append(signum)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield received
        return
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def _results_dir(args: argparse.Namespace) -> Path | None:
    """Where ``run`` writes: --out, else results/<experiment name> (None if unreadable)."""
    if args.out:
        return Path(args.out)
    from sim.play.experiment import load_experiment

    try:
        return Path("results") / load_experiment(args.file).name
    except ValueError:
        return None


def _interrupted(args: argparse.Namespace, terminated: bool) -> str:
    """What an interrupted ``run`` left, and the command that finishes it."""
    from sim.play.storage import read_manifest

    what = "terminated (SIGTERM)" if terminated else "interrupted"
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
    return (f"{what}: {done} of {len(chunks)} chunks are saved in {out}; finish the run with: "
            + " ".join(shlex.quote(a) for a in [*argv, "--resume"]))


def cmd_run(args: argparse.Namespace) -> int:
    """``ginbox run``: run an experiment, write its report into the run directory, print the
    headline. The Dask backend starts worker processes by spawning; the ``ginbox`` script and
    ``python -m sim`` both guard their entry point, so the workers do not rerun the command."""
    from sim.analysis.report import report
    from sim.play.runner import run_experiment

    if os.getcwd() not in sys.path:  # user strategies named module:Class next to the user
        sys.path.append(os.getcwd())
    with _terminate_as_interrupt() as terminated:
        try:
            result = run_experiment(args.file, games=args.games, seed=args.seed,
                                    jobs=args.jobs, backend=args.backend,
                                    scheduler=args.scheduler, out=args.out, resume=args.resume,
                                    force=args.force, quiet=args.quiet, log=args.log,
                                    break_lock=args.break_lock)
        except KeyboardInterrupt:
            raise Interrupted(_interrupted(args, bool(terminated)),
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
        except OSError as exc:
            where = _results_dir(args)
            raise UsageError(f"cannot write the run's results into {where}: "
                             f"{_os_text(exc, where)}") from None
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
        return f"nothing to run: all {total:,} games in {result.out} were already played"
    wall, rate = session.get("wall_seconds"), session.get("games_per_s")
    return (f"ran {played:,} games into {result.out}"
            + (f" in {wall:.1f} s ({rate:,.0f} games/s)" if wall and rate else "")
            + (f"; {total - played:,} were already played" if played < total else ""))


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
        raise UsageError(f"cannot create the report folder {out}: {_os_text(exc, out)}"
                         ) from None
    _print_report(rep, out, required=True)
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    """``ginbox tune``: search, checkpoint every generation, print the tuned strategy and its
    held-out check; Ctrl-C or SIGTERM leave the last checkpoint and print how to resume."""
    from sim.tune import load_tune, tune

    sys.path.extend([os.getcwd()] if os.getcwd() not in sys.path else [])  # user field
    spec = load_tune(args.file)  # ValueError (exit 2) before anything is written
    with _terminate_as_interrupt() as terminated:
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
    print(f"tuned strategy written to {result.out / 'tuned.txt'}; learning curve: "
          f"{result.out / 'learning_curve.csv'} and .png")


def cmd_league(args: argparse.Namespace) -> int:
    """``ginbox league``: play what the league's folder lacks, rate, print, write the files."""
    from sim.league import leaderboard_text, run_league
    from sim.league.output import FILES

    if os.getcwd() not in sys.path:  # user strategies named module:Class next to the user
        sys.path.append(os.getcwd())
    with _terminate_as_interrupt() as terminated:
        try:
            result = run_league(args.file, games=args.games, seed=args.seed, jobs=args.jobs,
                                out=args.out, quiet=args.quiet, bootstrap=args.bootstrap)
        except KeyboardInterrupt:
            what = "terminated (SIGTERM)" if terminated else "interrupted"
            raise Interrupted(f"{what}: the finished chunks are saved; run the same command "
                              "again to finish the league",
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
    already = result.games_total - result.games_played
    print(f"played {result.games_played:,} games into {result.out}"
          + (f"; {already:,} were already played" if already else ""))
    print()
    print(leaderboard_text(result.spec, result.leaderboard))
    print(f"\nfiles: {', '.join(str(result.out / f) for f in FILES)}")
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


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "play": cmd_play,
    "replay": cmd_replay,
    "strategies": cmd_strategies,
    "demo": cmd_demo,
    "run": cmd_run,
    "report": cmd_report,
    "tune": cmd_tune,
    "league": cmd_league,
    "bench": cmd_bench,
}


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ginbox`` command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except (UsageError, ValueError, StrategyError) as exc:
        print(f"{PROG}: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # 'ginbox ... | head': the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        print(f"{PROG}: error:{where} {_one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"{PROG}: {_one_line(str(exc))}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
