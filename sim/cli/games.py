"""The commands about single games: ``play``, ``replay``, ``strategies`` and ``demo``."""

from __future__ import annotations

import argparse
import re
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from sim.analysis.formatting import plural
from sim.analysis.statistics import wilson
from sim.cli.common import UsageError, add_cwd_to_path, stderr_is_terminal
from sim.engine.rules import Rules
from sim.engine.variants import played_by
from sim.play.driver import (
    PlayResult,
    Seeds,
    iter_games,
    play_games,
)
from sim.records.log import LogWriter, iter_log
from strategies.registry import (
    ALIASES,
    StrategySpec,
    build_strategy,
    check_no_person,
    describe,
    is_person,
    parse_strategies,
    parse_strategy,
)

#: Games ``ginbox play`` plays when --games is not given (one when a person plays).
DEFAULT_GAMES = 100
DEMO_STRATEGIES = "greedy-knock,simple,random"


DEMO_GAMES = 300


DEMO_SEED = 1


def format_summary(result: PlayResult, seconds: float, seed: int) -> str:
    """The short text summary printed by ``play`` and ``demo``; ``seconds`` is the games'
    time, loading or compiling the engine excluded."""
    games = result.n_games
    rate = games / seconds if seconds > 0 else float("inf")
    lines = [f"{plural(games, 'game')} of {result.rules.name} gin, seed {seed}: "
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
    for variant in played_by(result.rules):  # the lines each variant played adds
        lines += variant.summary_lines(table, games, width)
    out = result.outcomes()
    hands = out.pop("hands")
    parts = ", ".join(f"{k} {v} ({v / hands:.1%})" if hands else f"{k} {v}"
                      for k, v in out.items())
    lines.append(f"hands: {hands} ({hands / games:.1f} per game): {parts}" if games else
                 "hands: 0")
    if "forfeits" in table:  # games a player's fault ended, counted apart from the rest
        lost = ", ".join(f"seat {r.seat} {r.forfeits}" for r in table.itertuples() if r.forfeits)
        lines.append(f"forfeits: {plural(int(table['forfeits'].sum()), 'game')} ended by a "
                     f"player's fault ({lost}), won by the other side; the hand log says why "
                     "(ended_by)")
    return "\n".join(lines)


def parse_settings(settings: Sequence[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` options as overrides: each value read as a TOML value (``20``,
    ``false``, ``"text"``), else as the text itself (``consensus``); a later KEY wins."""
    out: dict[str, Any] = {}
    for text in settings:
        key, sep, raw = text.partition("=")
        if not sep or not key.strip() or not raw.strip():
            raise UsageError(f"--set {text!r} is not valid: expected KEY=VALUE, e.g. "
                             "--set team_policy=consensus")
        try:
            value = tomllib.loads(f"value = {raw.strip()}")["value"]
        except tomllib.TOMLDecodeError:
            value = raw.strip()
        out[key.strip()] = value
    return out


def _check_strategies(strategies: str, rules: Rules) -> list[StrategySpec]:
    """Fail before playing (and before creating any file) on a bad strategy list, including
    a Python strategy whose constructor fails: each is built once here."""
    specs = parse_strategies(strategies)
    if len(specs) != rules.players:
        names = ", ".join(s.text for s in specs)
        raise ValueError(f"{rules.players_text()}, so --strategies "
                         f"needs {rules.players} names separated by commas: got {len(specs)} "
                         f"({names})")
    for seat, spec in enumerate(specs):
        if spec.factory is not None:
            build_strategy(spec, seat)
    return specs


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
#: Seconds the warm-up may take before :data:`COMPILE_NOTICE` is printed: loading a warm cache
#: takes well under this, compiling on a cold one far longer.
COMPILE_NOTICE_AFTER = 2.0


def announce_compiling() -> None:
    """Say on stderr that the engine is compiling (``--quiet`` or not: a long silence on the
    first run looks like a hang)."""
    print(COMPILE_NOTICE, file=sys.stderr, flush=True)


def warm_up_engine(strategies: Sequence[str], rules: Rules, log: bool = False) -> None:
    """Load the engine (compile it, on a cold cache, saying so on stderr after
    :data:`COMPILE_NOTICE_AFTER` seconds) before a run starts its workers: they then load the
    compiled code from the disk cache instead of each compiling it, silently, at once."""
    specs = parse_strategies(list(strategies))
    announce_if_slow(lambda: _warm_up(specs, rules, log), announce_compiling,
                     COMPILE_NOTICE_AFTER)


def _play(specs: list[StrategySpec], rules: Rules, games: int, seed: int, *, log: bool,
          quiet: bool, on_records: Any = None, keep_games: bool = True,
          decision_timeout: float | None = None) -> tuple[PlayResult, float]:
    """Play ``specs`` (parsed once, by the caller), timing the games alone: the engine is
    loaded (compiled, when the cache is cold, with a line on stderr saying so, ``--quiet``
    or not) before the clock starts, so the rate printed is the games' own."""
    announce_if_slow(lambda: _warm_up(specs, rules, log), announce_compiling,
                     COMPILE_NOTICE_AFTER)
    bar: Any = None
    if not quiet and stderr_is_terminal():  # no bar for pipes, CI, tests
        from tqdm import tqdm

        bar = tqdm(total=games, unit=" games", desc=f"play ({rules.name})", file=sys.stderr,
                   leave=False)
    try:
        start = time.perf_counter()
        result = play_games(specs, rules, games=games, seed=seed, log=log,
                            progress=bar.update if bar is not None else None,
                            on_records=on_records, keep_games=keep_games,
                            decision_timeout=decision_timeout)
        return result, time.perf_counter() - start
    finally:
        if bar is not None:
            bar.close()


def cmd_play(args: argparse.Namespace) -> int:
    """``ginbox play``: play, print the summary, write the log atomically when asked. Only
    running totals are kept, so memory does not grow with ``--games``."""
    scoring = {} if args.scoring is None else {"scoring": args.scoring}
    rules = Rules.resolve(Rules.resolve(args.rules, scoring), parse_settings(args.settings),
                          where="--set ", roles="ginbox play seats by the rules' draw (an "
                          "experiment file's seating fixes the roles)")
    add_cwd_to_path()
    if args.log is not None and not args.log.strip():
        raise UsageError(f"--log needs a file name, got {args.log!r}")
    specs = _check_strategies(args.strategies, rules)
    if any(is_person(spec) for spec in specs):  # a person at this terminal
        check_no_person(specs, batch=False)
        from sim.table.terminal import play_session  # the judge, pandas and plots: only here

        return play_session(rules, args.strategies, args.seed, args.games or 1, args.log)
    args.games = args.games or DEFAULT_GAMES
    options = {"keep_games": False, "decision_timeout": args.decision_timeout}
    if args.log is None:
        result, seconds = _play(specs, rules, args.games, args.seed, log=False,
                                quiet=args.quiet, **options)
        print(format_summary(result, seconds, args.seed))
        return 0
    try:
        # The temporary file is created first, so an unwritable destination fails before
        # any game is played; it replaces FILE only when every line is written.
        with LogWriter(args.log) as writer:
            result, seconds = _play(specs, rules, args.games, args.seed, log=True,
                                    quiet=args.quiet, on_records=writer.write_all, **options)
    except OSError as exc:
        raise UsageError(f"cannot write the log {args.log}: {exc.strerror or exc}") from None
    print(format_summary(result, seconds, args.seed))
    print(f"log: {plural(writer.count, 'hand')} written to {args.log}")
    return 0


def _stream_games(path: str) -> Iterator[list[dict[str, Any]]]:
    """The log's games one by one (never the whole log in memory), each line checked as the
    replay needs it: a malformed line is named by file and line, a game whose hands are out
    of order by file and game; read errors name the file."""
    from sim.records import replay

    try:
        yield from replay.stream_games(iter_log(path, check=replay.check_hand_record))
    except OSError as exc:
        raise UsageError(f"cannot read the log {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        message = str(exc)
        raise UsageError(message if message.startswith(f"{path}:") else f"{path}: {message}"
                         ) from None


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


def _replayed(path: str, records: list[dict[str, Any]]) -> list[Any]:
    """``replay_game(records)``; a game that cannot be replayed (its hands out of order, its
    rules changing) is bad input naming the file."""
    from sim.records import replay

    try:
        return replay.replay_game(records)
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}") from None


def cmd_replay(args: argparse.Namespace) -> int:
    """``ginbox replay``: render and check hands; exit 1 if any differs from the rules. The
    log is read one game at a time and only the game asked for is kept."""
    if args.all and (args.game is not None or args.hand is not None):
        raise UsageError("--all checks every game and hand: leave out --game and --hand")
    seen: set[int] = set()
    if args.all:
        checked = bad = 0
        for recs in _stream_games(args.file):
            seen.add(recs[0]["game"])
            for check in _replayed(args.file, recs):
                checked += 1
                if not check.ok:
                    bad += 1
                    for diff in check.differences:
                        print(f"game {check.game} hand {check.hand}: {diff}")
        if not seen:
            raise UsageError(f"the log {args.file} holds no hands")
        verdict = ("all match the rules" if not bad else
                   f"{bad} differ from the rules")
        print(f"{args.file}: {plural(checked, 'hand')} in {plural(len(seen), 'game')} "
              f"checked: {verdict}")
        return 1 if bad else 0
    game = args.game
    wanted: list[dict[str, Any]] = []
    for recs in _stream_games(args.file):  # reads (and checks) it all
        seen.add(recs[0]["game"])
        if game is None:
            game = recs[0]["game"]
        if recs[0]["game"] == game:
            wanted = recs
    if not seen:
        raise UsageError(f"the log {args.file} holds no hands")
    if not wanted:
        raise UsageError(f"{args.file} has no game {game}: it holds games {_ranges(list(seen))}")
    checks = _replayed(args.file, wanted)
    if args.hand is not None:
        if not 0 <= args.hand < len(checks):
            raise UsageError(f"game {game} has no hand {args.hand}: it has hands "
                             f"0..{len(checks) - 1}")
        checks = [checks[args.hand]]
    for i, check in enumerate(checks):
        if i:
            print()
        print(check.text)
    differing = [c.hand for c in checks if not c.ok]
    print()
    if len(checks) == 1:
        print(checks[0].verdict)
    elif differing:
        print(f"game {game}: {len(differing)} of {plural(len(checks), 'hand')} differ from the "
              f"rules (hands {', '.join(map(str, differing))})")
    else:
        print(f"game {game}: all {len(checks)} hands match the rules")
    return 1 if differing else 0


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
        if info.get("rules_sets"):  # the set a bare name plays, by the rules' preset
            shown = ", ".join(f"{rules} -> {info['name']}@{name}" if name else
                              f"{rules} -> the defaults"
                              for rules, name in info["rules_sets"].items())
            print(f"  {'':<{width}}    no set named: the rules choose ({shown}; custom "
                  "rules: the set for their number of players)")
    aliases = ", ".join(f"{a} = {c}" for a, c in ALIASES.items())
    if aliases:
        print(f"Aliases: {aliases}")
    print("Example: ginbox play --strategies greedy-knock:knock_at=6,simple,random")
    print()
    print("A person's seat (not a bot):")
    print(f"  {'human':<{width}}  you, at this terminal (ginbox play --strategies human,mc,tuned) "
          "or in a web page (ginbox serve)")
    print(f"  {'':<{width}}    hint_samples=1..1024 (default the judge's): worlds valued for "
          "each hint")
    print(f"  {'':<{width}}    batch commands (run, tune, league, exploit) refuse it: "
          "nobody answers in their worker processes")
    print()
    print("Your own strategy: a Python class with take_upcard(view), draw_from_discard(view), "
          "knock(view) and discard(view)")
    print("(see strategies/base.py, BaseStrategy), named by its import path package.module:Class,")
    print("optionally with keyword arguments (passed as strings):")
    print("  ginbox play --strategies mybots.sly:SlyBot,simple,random")
    print("  ginbox play --strategies mybots.sly:SlyBot:depth=2,simple,random")
    print("The module must be importable: installed, on PYTHONPATH, or under the current "
          "directory.")
    print()
    print("An outside player: a program in any language speaking ginbox's JSON-lines protocol,")
    print("agent:PATH[:time_limit=SECONDS], or a Java player of the EAAI framework, eaai:CLASS")
    print("(classpath from GINBOX_EAAI_CLASSPATH); see docs/outside-players.md:")
    print("  ginbox play --strategies agent:examples/agent.py,simple --rules eaai")
    return 0


def _interesting(records: Sequence[Mapping[str, Any]]) -> int:
    """Index of a hand worth showing: an undercut with layoffs, else any undercut, gin, knock."""
    def first(pred: Callable[[Mapping[str, Any]], bool]) -> int | None:
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
    result, seconds = _play(parse_strategies(DEMO_STRATEGIES), rules, DEMO_GAMES, DEMO_SEED,
                            log=True, quiet=True)
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
