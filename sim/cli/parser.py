"""The ``ginbox`` argument parser: every command, option and help text in one place."""

from __future__ import annotations

import argparse
from typing import Any

from sim.cli.common import PROG, Parser, int_at_least, seconds, seed_value, version_text
from sim.cli.games import DEMO_GAMES, DEMO_SEED, DEMO_STRATEGIES
from sim.engine.rules import PRESETS, SCORINGS
from sim.play.driver import (
    MAX_GAMES,
)

JOBS_HELP = "worker processes (default: all usable cores)"


def add_parallel(command: argparse.ArgumentParser, jobs_help: str = JOBS_HELP,
                 scheduler_help: str = "Dask scheduler address, as for run",
                 cluster_lost: str | None = None) -> None:
    """The options of every command that plays on workers: ``--jobs``, ``--backend``,
    ``--scheduler`` and, where a lost cluster can be survived, ``--if-cluster-lost``."""
    command.add_argument("--jobs", type=int_at_least(1), metavar="J", help=jobs_help)
    command.add_argument("--backend", choices=("loky", "dask"), default="loky",
                         help="joblib backend: loky processes (default) or a Dask cluster")
    command.add_argument("--scheduler", metavar="ADDR", help=scheduler_help)
    if cluster_lost is not None:
        command.add_argument("--if-cluster-lost", choices=("stop", "local"), default="stop",
                             help="when the Dask scheduler or every worker is lost: stop "
                                  f"(default; {cluster_lost}) or play the rest on this machine")


def add_output(command: argparse.ArgumentParser, out_help: str, resume_help: str | None,
               force_help: str | None, quiet_help: str = "no progress") -> None:
    """``--out DIR`` with ``--resume`` and ``--force`` (one or the other) and ``--quiet``:
    the folder every long command writes into, and how it meets a folder already there."""
    command.add_argument("--out", metavar="DIR", help=out_help)
    if resume_help is not None and force_help is not None:
        again = command.add_mutually_exclusive_group()
        again.add_argument("--resume", action="store_true", help=resume_help)
        again.add_argument("--force", action="store_true", help=force_help)
    command.add_argument("--quiet", action="store_true", help=quiet_help)


def add_rules(command: argparse.ArgumentParser, settings_help: str) -> None:
    """``--rules PRESET`` and the repeatable ``--set KEY=VALUE``."""
    command.add_argument("--rules", default="three-handed", metavar="PRESET",
                         help="rules preset: " + ", ".join(PRESETS) + " (default three-handed)")
    command.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                         dest="settings", help=settings_help)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = Parser(prog=PROG, description="Three-handed Gin Rummy simulator.")
    parser.add_argument("--version", action="version", version=f"{PROG} {version_text()}")
    parser.add_argument("--eaai-classpath", metavar="DIRS",
                        help="the EAAI framework players' classpath for eaai:CLASS strategies "
                             "(folders and jars separated by ':'), instead of the environment's "
                             "GINBOX_EAAI_CLASSPATH (docs/outside-players.md)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in (_play, _replay, _listings, _run, _report, _tune, _exploit, _train, _league,
                _review, _serve, _bench):
        add(sub)
    return parser


def _play(sub: Any) -> None:
    play = sub.add_parser("play", help="play games and print a summary (optionally a hand log)",
                          description="Play games between strategies and print who won.")
    play.add_argument("--strategies", required=True, metavar="A,B,C",
                      help="one strategy per seat, e.g. greedy-knock,simple,random or "
                           "greedy-knock:knock_at=6,simple,simple (see 'ginbox strategies'); "
                           "human seats a person at this terminal (docs/play.md)")
    add_rules(play, "change one rules field of the preset, as an experiment file's "
                    "overrides do (repeatable), e.g. --set team_policy=consensus "
                    "--set gin_bonus=20 (docs/rules.md lists the fields)")
    play.add_argument("--scoring", metavar="SCORING",
                      help="scoring: " + " or ".join(SCORINGS) + " (default: the preset's); "
                           "hollywood scores three games at once, a game of the summary "
                           "being the match (docs/rules.md)")
    play.add_argument("--games", metavar="N",
                      type=int_at_least(1, MAX_GAMES, " (the game numbers the seed streams "
                                                       "give)"),
                      help="number of games (default 100, or 1 with a human seat); memory "
                           "does not grow with N")
    play.add_argument("--seed", type=seed_value, default=0, metavar="S",
                      help="seed; the same seed gives the same games (default 0)")
    play.add_argument("--log", metavar="FILE",
                      help="write the hand log (JSON Lines, one hand per line) to FILE")
    play.add_argument("--decision-timeout", type=seconds, metavar="SECONDS",
                      help="stop with an error when a Python strategy takes longer than "
                           "SECONDS over one decision (Unix only; default: no limit)")
    play.add_argument("--quiet", action="store_true", help="no progress bar")


def _replay(sub: Any) -> None:
    replay = sub.add_parser(
        "replay", help="print logged hands move by move and check them against the rules",
        description="Print hands of a hand log move by move and re-run each through the rules "
                    "to check the recorded result. Default: every hand of the first game in "
                    "the file. Exit 0 when all match, 1 when a record differs from the rules.")
    replay.add_argument("file", metavar="FILE", help="hand log written by 'ginbox play --log'")
    replay.add_argument("--game", type=int_at_least(0), metavar="G",
                        help="game number (default: the first game in the file)")
    replay.add_argument("--hand", type=int_at_least(0), metavar="H",
                        help="only this hand of the game (default: every hand)")
    replay.add_argument("--all", action="store_true",
                        help="check every hand of every game; print only differences")


def _listings(sub: Any) -> None:
    sub.add_parser("strategies", help="list the strategies and their parameters",
                   description="List the built-in strategies, their parameters and defaults.")
    sub.add_parser("demo", help="play a short demo and replay one interesting hand",
                   description=f"Play {DEMO_GAMES} games of {DEMO_STRATEGIES} (three-handed, "
                               f"seed {DEMO_SEED}), print the summary, then replay and check "
                               "one interesting hand.")


def _run(sub: Any) -> None:
    run = sub.add_parser(
        "run", help="run an experiment (TOML), write its report and print the headline",
        description="Run every arm of an experiment file in parallel chunks (resumable), "
                    "write the results (parquet) and the report (report.md, CSV tables, PNG "
                    "plots) into the results directory, and print the headline table.")
    run.add_argument("file", metavar="FILE", help="experiment TOML file (see experiments/)")
    run.add_argument("--games", type=int_at_least(1), metavar="N",
                     help="games per arm (default: the file's)")
    run.add_argument("--seed", type=seed_value, metavar="S",
                     help="experiment seed (default: the file's)")
    add_parallel(run, scheduler_help="Dask scheduler address, e.g. tcp://host:8786 (with "
                                     "--backend dask; default: start a local cluster of "
                                     "--jobs workers)",
                 cluster_lost="finish later with --resume")
    add_output(run, "results directory (default: results/<experiment name>)",
               "finish the missing chunks of an interrupted run in DIR",
               "delete the results already in DIR and run again",
               "no progress (else a bar on a terminal, a plain line every 30 s otherwise)")
    run.add_argument("--break-lock", action="store_true",
                     help="take over DIR's lock from a run on another host that is gone (a "
                          "lost machine); a live run on this host is never taken over")
    run.add_argument("--log", action="store_true",
                     help="also write every chunk's hand log (arm=<i>/chunk-<c>.jsonl); plays "
                          "through the Python driver, far slower: for small runs")


def _report(sub: Any) -> None:
    rep = sub.add_parser(
        "report", help="write the report of a finished run and print the headline",
        description="Write report.md, one CSV per table and PNG plots into DIR (a directory "
                    "written by 'ginbox run') and print the headline table.")
    rep.add_argument("dir", metavar="DIR", help="results directory of a finished run")
    rep.add_argument("--out", metavar="OUT",
                     help="write the report files into OUT instead of DIR (e.g. when DIR is "
                          "read-only)")


def _tune(sub: Any) -> None:
    tune = sub.add_parser(
        "tune", help="tune a strategy's parameters by self-play (TOML), resumable",
        description="CMA-ES over a built-in strategy's integer parameters for its game win "
                    "rate against a field, checkpointed every generation; prints the tuned "
                    "strategy and its held-out check (docs/tuning.md).")
    tune.add_argument("file", metavar="FILE", help="tuning TOML file (see docs/tuning.md)")
    add_parallel(tune)
    add_output(tune, "output folder (default: results/<tune name>)",
               "continue an interrupted tune in DIR from its checkpoint",
               "discard the tune already in DIR and start over", "no line per generation")


def _exploit(sub: Any) -> None:
    exp = sub.add_parser(
        "exploit", help="tune an opponent against one strategy and say how far it beats it",
        description="Tune an exploiter (CMA-ES, as ginbox tune) against TARGET alone (one copy "
                    "two-handed, two three-handed), then play it, its start and the general "
                    "strategies on the same mirrored held-out deals (another seed, seats "
                    "rotated) and print their win rates and the exploitability gap with 95% "
                    "intervals (docs/exploit.md).")
    exp.add_argument("target", metavar="TARGET",
                     help="the strategy to exploit, e.g. simple or greedy-knock:knock_at=0")
    add_rules(exp, "change one rules field of the preset (repeatable)")
    exp.add_argument("--exploiter", default="tuned", metavar="SPEC",
                     help="the built-in tuned against TARGET, where its search starts "
                          "(default tuned: its set for the rules)")
    exp.add_argument("--params", metavar="P,..",
                     help="the exploiter's parameters searched (default: all of them)")
    exp.add_argument("--general", default="tuned", metavar="A,B",
                     help="general strategies measured beside it on the same deals; the best "
                          "of them is the comparison (default tuned)")
    exp.add_argument("--seed", type=seed_value, default=0, metavar="S",
                     help="seed of the tuning deals and the search (default 0)")
    exp.add_argument("--holdout-seed", type=seed_value, metavar="S",
                     help="seed of the held-out deals (default: derived from --seed)")
    _exploit_budget(exp)
    add_parallel(exp)
    add_output(exp, "output folder (default: results/exploit_<target>_<rules>)",
               "finish an interrupted exploit in DIR",
               "discard the exploit already in DIR and start over")


def _exploit_budget(exp: argparse.ArgumentParser) -> None:
    """The search's budget: generations, population, games, the held-out check."""
    exp.add_argument("--generations", type=int_at_least(1, 10_000), default=8, metavar="G",
                     help="CMA-ES generations (default 8)")
    exp.add_argument("--population", type=int_at_least(2, 1000), metavar="P",
                     help="candidates per generation (default: cma's, 4 + 3 ln(params))")
    exp.add_argument("--games", type=int_at_least(1, 10_000_000), default=1000, metavar="N",
                     help="games each candidate plays per generation (default 1000)")
    exp.add_argument("--select-games", type=int_at_least(0, 10_000_000), default=1000,
                     metavar="N", help="selection deals of the tuning seed on which the "
                                       "search's result and its start compete to be the "
                                       "exploiter (0: the result; default 1000)")
    exp.add_argument("--holdout-games", type=int_at_least(1, 10_000_000), default=2000,
                     metavar="N", help="held-out deals, each played once per seat by every "
                                       "compared strategy (default 2000)")
    exp.add_argument("--sigma0", type=float, default=0.3, metavar="X",
                     help="initial step as a share of each parameter's range, in (0, 1] "
                          "(default 0.3)")
    exp.add_argument("--chunk-size", type=int_at_least(1, 10_000_000), default=500,
                     metavar="N", help="games per parallel task (results do not depend on it)")


def _train(sub: Any) -> None:
    train = sub.add_parser(
        "train", help="train a network by self-play with mc (TOML), resumable",
        description="Expert iteration: mc plays self-play games, a policy and value network "
                    "learns its decisions, the next round's mc searches with the network; "
                    "the strength of every round is measured against fixed opponents "
                    "(docs/learning.md). Needs the learn extra (PyTorch).")
    train.add_argument("file", metavar="FILE", help="training TOML file (see docs/learning.md)")
    add_parallel(train, jobs_help="worker processes for the games (default: all usable cores)")
    add_output(train, "output folder (default: results/train/<name>)",
               "continue an interrupted training in DIR where it stopped",
               "discard the training already in DIR and start over")


def _league(sub: Any) -> None:
    league = sub.add_parser(
        "league", help="play a league (TOML) among strategies and print the ratings",
        description="Play the tables of a league its folder does not hold yet (paired deals, "
                    "resumable), fit ratings (Elo scale, the anchor at 1500, bootstrap 95% "
                    "intervals), print the leaderboard and write it (docs/league.md).")
    league.add_argument("file", metavar="FILE", help="league TOML file (see experiments/)")
    league.add_argument("--games", type=int_at_least(1), metavar="N",
                        help="games per table (default: the file's)")
    league.add_argument("--seed", type=seed_value, metavar="S",
                        help="league seed (default: the file's)")
    league.add_argument("--bootstrap", type=int_at_least(0), metavar="B",
                        help="bootstrap resamples for the intervals (default: the file's, 200)")
    add_parallel(league, cluster_lost="run the command again to finish")
    add_output(league, "league folder (default: results/<league name>)", None, None)


def _review(sub: Any) -> None:
    rev = sub.add_parser(
        "review", help="judge every decision of a hand log: losses, labels, error rates",
        description="Replay each game of a hand log, check it against the rules, and ask the "
                    "judge (mc valuing every option) what each decision of the chosen seats "
                    "cost in game-win probability; print the Markdown report and, with --out, "
                    "write the table (parquet, CSV), the report and win-probability plots "
                    "(docs/review.md).")
    rev.add_argument("log", metavar="LOG", nargs="+",
                     help="hand log (JSON Lines) as 'ginbox play --log' writes it, several, or a "
                          "folder of them (a run's arm=<i>/ folder of chunk logs)")
    rev.add_argument("--seats", metavar="S,..", help="review only these seats (default: all)")
    rev.add_argument("--judge", default="mc", metavar="SPEC",
                     help="the judge: mc with parameters, e.g. mc:samples=1024 for a closer "
                          "verdict (default: mc)")
    rev.add_argument("--seed", type=seed_value, default=0, metavar="S",
                     help="seed of the judge's worlds (default 0)")
    rev.add_argument("--games", type=int_at_least(1), metavar="N",
                     help="review only the log's first N games")
    rev.add_argument("--jobs", type=int_at_least(1), default=1, metavar="J",
                     help="worker processes (default 1; the same table for any number)")
    rev.add_argument("--costliest", type=int_at_least(0), default=5, metavar="K",
                     help="costliest decisions shown as positions (default 5)")
    add_output(rev, "write decisions.parquet, decisions.csv, report.md and plots into DIR",
               "go on with the review in DIR from its checkpoint",
               "replace the review already in DIR", "no progress bar")


def _serve(sub: Any) -> None:
    serve = sub.add_parser(
        "serve", help="play against the bots in a web page (a local server)",
        description="Start a local web table: choose the rules and the bots, play by clicking "
                    "cards, ask for hints, read the review of the finished game and download "
                    "its hand log (docs/play.md). Needs the web extra.")
    serve.add_argument("--host", default="127.0.0.1", metavar="HOST",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int_at_least(1, 65535), default=8765, metavar="N",
                       help="port (default 8765)")
    serve.add_argument("--hint-samples", type=int_at_least(1, 1024), metavar="N",
                       help="worlds the judge samples for hints and the review (default: "
                            "the judge's)")
    serve.add_argument("--workers", type=int_at_least(1, 64), metavar="N",
                       help="processes that play the games, each request with a CPU deadline "
                            "(default: the usable cores)")
    serve.add_argument("--no-browser", action="store_true",
                       help="do not open the table in a browser")


def _bench(sub: Any) -> None:
    bench = sub.add_parser("bench", help="measure the engine's speed",
                           description="Measure deadwood evaluations, hands and games per "
                                       "second.")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--cold", action="store_true",
                       help="also time a cold JIT compile: a new interpreter with an empty "
                            "temporary NUMBA_CACHE_DIR (minutes)")
