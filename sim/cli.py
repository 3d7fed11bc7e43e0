"""The ``ginbox`` command: play games, replay and check hand logs, list strategies, a demo,
run experiments and report on them.

Exit status: 0 success; 1 ``replay`` found a record that differs from what the rules give;
2 bad input (unknown strategy or preset, malformed ``name:key=value``, wrong number of
strategies, out-of-range number, unreadable or corrupt log, unknown game or hand), reported as
one ``ginbox: error: ...`` line on stderr with no traceback and no half-written file.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from sim.analysis.statistics import wilson
from sim.engine.rules import PRESETS, Rules
from sim.play.driver import (
    MAX_GAMES,
    PlayResult,
    Seeds,
    StrategyError,
    check_timeout,
    iter_games,
    play_games,
)
from sim.records.log import LogWriter, iter_log
from strategies.registry import (
    ALIASES,
    StrategySpec,
    build_strategy,
    describe,
    parse_strategies,
    parse_strategy,
)

PROG = "ginbox"
DEMO_STRATEGIES = "greedy-knock,simple,random"
DEMO_GAMES = 300
DEMO_SEED = 1


class UsageError(Exception):
    """Bad input: reported as one line on stderr, exit status 2."""


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


def _int_at_least(low: int, high: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer >= low (and <= high), with a message saying what is
    accepted (and ``why`` there is a ceiling)."""
    at_least = f"an integer >= {low}"
    accepted = at_least if high is None else f"an integer {low}..{high}{why}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not an integer: expected {at_least}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is out of range: expected {at_least}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is out of range: expected {accepted}")
        return value

    parse.__name__ = accepted
    return parse


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    try:
        return check_timeout(float(text))  # type: ignore[return-value]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not valid: expected a number of seconds > 0") from None


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
    play.add_argument("--games", default=100, metavar="N",
                      type=_int_at_least(1, MAX_GAMES, " (the game numbers the seed streams "
                                                       "give)"),
                      help="number of games (default 100); memory does not grow with N")
    play.add_argument("--seed", type=_int_at_least(0), default=0, metavar="S",
                      help="seed; the same seed gives the same games (default 0)")
    play.add_argument("--log", metavar="FILE",
                      help="write the hand log (JSON Lines, one hand per line) to FILE")
    play.add_argument("--decision-timeout", type=_seconds, metavar="SECONDS",
                      help="stop with an error when a Python strategy takes longer than "
                           "SECONDS over one decision (Unix only; default: no limit)")
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
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--log", action="store_true",
                     help="also write every chunk's hand log (arm=<i>/chunk-<c>.jsonl); plays "
                          "through the Python driver, far slower: for small runs")

    rep = sub.add_parser(
        "report", help="write the report of a finished run and print the headline",
        description="Write report.md, one CSV per table and PNG plots into DIR (a directory "
                    "written by 'ginbox run') and print the headline table.")
    rep.add_argument("dir", metavar="DIR", help="results directory of a finished run")

    bench = sub.add_parser("bench", help="measure the engine's speed",
                           description="Measure deadwood evaluations, hands and games per "
                                       "second.")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


# ---------------------------------------------------------------------------------- play


def format_summary(result: PlayResult, seconds: float, seed: int) -> str:
    """The short text summary printed by ``play`` and ``demo``."""
    games = result.n_games
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


def _check_strategies(strategies: str, rules: Rules) -> list[StrategySpec]:
    """Fail before playing (and before creating any file) on a bad strategy list, including
    a Python strategy whose constructor fails: each is built once here."""
    specs = parse_strategies(strategies)
    if len(specs) != rules.players:
        names = ", ".join(s.text for s in specs)
        raise ValueError(f"{rules.name} rules seat {rules.players} players, so --strategies "
                         f"needs {rules.players} names separated by commas: got {len(specs)} "
                         f"({names})")
    for seat, spec in enumerate(specs):
        if spec.factory is not None:
            build_strategy(spec, seat)
    return specs


def _stderr_is_terminal() -> bool:
    """Whether progress (and the compile notice) can be shown: stderr is a terminal."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def announce_if_slow(work: Callable[[], object], notice: Callable[[], object],
                     delay: float) -> None:
    """Run ``work()``; call ``notice()`` (from a timer thread) if it is still running after
    ``delay`` seconds. A warm numba cache loads in well under the delay; only a cold one
    (the first run, or after an upgrade) compiles for long enough to be announced."""
    timer = threading.Timer(delay, notice)
    timer.daemon = True
    timer.start()
    try:
        work()
    finally:
        timer.cancel()


def _warm_up(specs: Sequence[StrategySpec], rules: Rules, log: bool) -> None:
    """Play one game on the code path the run takes, with every Python strategy replaced by
    a compiled one: loads (or, on a cold cache, compiles) the engine before the progress bar
    starts, without running user code."""
    python = any(not s.compiled for s in specs)
    stand_ins = [s if s.compiled or s.kernel is not None else parse_strategy("random")
                 for s in specs]
    for _ in iter_games(rules, stand_ins, 1, Seeds.from_seed(0), log=log or python, batch=1):
        pass


COMPILE_NOTICE = "compiling the engine (first run only)..."


def _play(strategies: str, rules: Rules, games: int, seed: int, log: bool,
          quiet: bool, on_records: Any = None, keep_games: bool = True,
          decision_timeout: float | None = None) -> tuple[PlayResult, float]:
    bar: Any = None
    if not quiet and _stderr_is_terminal():  # no bar for pipes, CI, tests
        from tqdm import tqdm

        specs = parse_strategies(strategies)
        announce_if_slow(lambda: _warm_up(specs, rules, log),
                         lambda: print(COMPILE_NOTICE, file=sys.stderr, flush=True), 2.0)
        bar = tqdm(total=games, unit="game", file=sys.stderr, leave=False)
    try:
        start = time.perf_counter()
        result = play_games(strategies, rules, games=games, seed=seed, log=log,
                            progress=bar.update if bar is not None else None,
                            on_records=on_records, keep_games=keep_games,
                            decision_timeout=decision_timeout)
        return result, time.perf_counter() - start
    finally:
        if bar is not None:
            bar.close()


def _add_cwd_to_path() -> None:
    """User strategies named module:Class next to the user are importable (a deleted
    current directory has nothing to import: skipped, not an error)."""
    try:
        cwd = os.getcwd()
    except OSError:
        return
    if cwd not in sys.path:
        sys.path.append(cwd)


def cmd_play(args: argparse.Namespace) -> int:
    """``ginbox play``: play, print the summary, write the log atomically when asked. Only
    running totals are kept, so memory does not grow with ``--games``."""
    rules = Rules.preset(args.rules)
    _add_cwd_to_path()
    if args.log is not None and not args.log.strip():
        raise UsageError(f"--log needs a file name, got {args.log!r}")
    _check_strategies(args.strategies, rules)
    options = {"keep_games": False, "decision_timeout": args.decision_timeout}
    if args.log is None:
        result, seconds = _play(args.strategies, rules, args.games, args.seed, False,
                                args.quiet, **options)
        print(format_summary(result, seconds, args.seed))
        return 0
    try:
        # The temporary file is created first, so an unwritable destination fails before
        # any game is played; it replaces FILE only when every line is written.
        with LogWriter(args.log) as writer:
            result, seconds = _play(args.strategies, rules, args.games, args.seed, True,
                                    args.quiet, on_records=writer.write_all, **options)
    except OSError as exc:
        raise UsageError(f"cannot write the log {args.log}: {exc.strerror or exc}") from None
    print(format_summary(result, seconds, args.seed))
    print(f"log: {writer.count} hands written to {args.log}")
    return 0


# ---------------------------------------------------------------------------------- replay


def _stream_log(path: str) -> Iterator[dict[str, Any]]:
    """The log's records one by one (never the whole log in memory); read errors name it."""
    try:
        yield from iter_log(path)
    except OSError as exc:
        raise UsageError(f"cannot read the log {path}: {exc.strerror or exc}") from None


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
    """``ginbox replay``: render and check hands; exit 1 if any differs from the rules. The
    log is read one game at a time and only the game asked for is kept."""
    from sim.records import replay

    if args.all and (args.game is not None or args.hand is not None):
        raise UsageError("--all checks every game and hand: leave out --game and --hand")
    seen: set[int] = set()
    if args.all:
        checked = bad = 0
        for recs in replay.stream_games(_stream_log(args.file)):
            seen.add(recs[0]["game"])
            for check in replay.replay_game(recs):
                checked += 1
                if not check.ok:
                    bad += 1
                    for diff in check.differences:
                        print(f"game {check.game} hand {check.hand}: {diff}")
        if not seen:
            raise UsageError(f"the log {args.file} holds no hands")
        verdict = ("all match the rules" if not bad else
                   f"{bad} differ from the rules")
        print(f"{args.file}: {checked} hands in {len(seen)} games checked: {verdict}")
        return 1 if bad else 0
    game = args.game
    wanted: list[dict[str, Any]] = []
    for recs in replay.stream_games(_stream_log(args.file)):  # reads (and checks) it all
        seen.add(recs[0]["game"])
        if game is None:
            game = recs[0]["game"]
        if recs[0]["game"] == game:
            wanted = recs
    if not seen:
        raise UsageError(f"the log {args.file} holds no hands")
    if not wanted:
        raise UsageError(f"{args.file} has no game {game}: it holds games {_ranges(list(seen))}")
    checks = replay.replay_game(wanted)
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
    """``ginbox demo`` (what ``make run`` runs): a short match and one replayed hand."""
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


def _write_report(rep: Any) -> str:
    """Write a report into its run's directory; the text to print (headline, where)."""
    out = rep.result.out
    kinds = [p.suffix for p in rep.write(out)]
    where = (f"report: {out / 'report.md'} ({kinds.count('.csv')} CSV tables, "
             f"{kinds.count('.png')} PNG plots)")
    return rep.headline() + "\n\n" + where


def cmd_run(args: argparse.Namespace) -> int:
    """``ginbox run``: run an experiment, write its report into the run directory, print the
    headline. The Dask backend starts worker processes by spawning; the ``ginbox`` script and
    ``python -m sim`` both guard their entry point, so the workers do not rerun the command."""
    from sim.analysis.report import report
    from sim.play.runner import run_experiment

    _add_cwd_to_path()
    result = run_experiment(args.file, games=args.games, seed=args.seed, jobs=args.jobs,
                            backend=args.backend, scheduler=args.scheduler, out=args.out,
                            resume=args.resume, force=args.force, quiet=args.quiet,
                            log=args.log)
    done = _run_summary(result)
    text = _write_report(report(result))
    print(done)
    print()
    print(text)
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
    """``ginbox report``: write a finished run's report into its directory, print the
    headline."""
    from sim.analysis.report import report

    text = _write_report(report(args.dir))  # ValueError (exit 2): DIR is not a finished run
    print(text)
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
    return int(bench_main(json_output=args.json))


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "play": cmd_play,
    "replay": cmd_replay,
    "strategies": cmd_strategies,
    "demo": cmd_demo,
    "run": cmd_run,
    "report": cmd_report,
    "bench": cmd_bench,
}


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


class _OutputError(OSError):
    """Standard output could not be written (a full disk, an I/O error)."""


class _Output:
    """Standard output, with its write errors told apart from those of files."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.errno, exc.strerror) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.errno, exc.strerror) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so Python's exit does not fail on it again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ginbox`` command line; returns the exit status."""
    stdout = sys.stdout
    sys.stdout = _Output(stdout)  # type: ignore[assignment]
    try:
        args = build_parser().parse_args(argv)
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # a full stdout fails here, inside the handlers below
        return code
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except (UsageError, ValueError, StrategyError) as exc:
        print(f"{PROG}: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # 'ginbox ... | head': the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        return 141
    except _OutputError as exc:
        sys.stdout = stdout
        _silence_stdout()
        print(f"{PROG}: error: cannot write to standard output: "
              f"{_one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{PROG}: error: {where}{_one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    finally:
        if isinstance(sys.stdout, _Output):
            sys.stdout = stdout
