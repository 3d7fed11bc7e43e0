"""The ``ginbox`` argument parser: every command, option and help text in one place."""

from __future__ import annotations

import argparse

from sim.cli.common import PROG, Parser, int_at_least, seconds, version_text
from sim.cli.games import DEMO_GAMES, DEMO_SEED, DEMO_STRATEGIES
from sim.engine.rules import PRESETS, SCORINGS
from sim.play.driver import (
    MAX_GAMES,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = Parser(prog=PROG, description="Three-handed Gin Rummy simulator.")
    parser.add_argument("--version", action="version", version=f"{PROG} {version_text()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    play = sub.add_parser("play", help="play games and print a summary (optionally a hand log)",
                          description="Play games between strategies and print who won.")
    play.add_argument("--strategies", required=True, metavar="A,B,C",
                      help="one strategy per seat, e.g. greedy-knock,simple,random or "
                           "greedy-knock:knock_at=6,simple,simple (see 'ginbox strategies'); "
                           "human seats a person at this terminal (docs/play.md)")
    play.add_argument("--rules", default="three-handed", metavar="PRESET",
                      help="rules preset: " + ", ".join(PRESETS) + " (default three-handed)")
    play.add_argument("--scoring", metavar="SCORING",
                      help="scoring: " + " or ".join(SCORINGS) + " (default: the preset's); "
                           "hollywood scores three games at once, a game of the summary "
                           "being the match (docs/rules.md)")
    play.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                      dest="settings",
                      help="change one rules field of the preset, as an experiment file's "
                           "overrides do (repeatable), e.g. --set team_policy=consensus "
                           "--set gin_bonus=20 (docs/rules.md lists the fields)")
    play.add_argument("--games", metavar="N",
                      type=int_at_least(1, MAX_GAMES, " (the game numbers the seed streams "
                                                       "give)"),
                      help="number of games (default 100, or 1 with a human seat); memory "
                           "does not grow with N")
    play.add_argument("--seed", type=int_at_least(0), default=0, metavar="S",
                      help="seed; the same seed gives the same games (default 0)")
    play.add_argument("--log", metavar="FILE",
                      help="write the hand log (JSON Lines, one hand per line) to FILE")
    play.add_argument("--decision-timeout", type=seconds, metavar="SECONDS",
                      help="stop with an error when a Python strategy takes longer than "
                           "SECONDS over one decision (Unix only; default: no limit)")
    play.add_argument("--quiet", action="store_true", help="no progress bar")

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
    run.add_argument("--games", type=int_at_least(1), metavar="N",
                     help="games per arm (default: the file's)")
    run.add_argument("--seed", type=int_at_least(0), metavar="S",
                     help="experiment seed (default: the file's)")
    run.add_argument("--jobs", type=int_at_least(1), metavar="J",
                     help="worker processes (default: all usable cores)")
    run.add_argument("--backend", choices=("loky", "dask"), default="loky",
                     help="joblib backend: loky processes (default) or a Dask cluster")
    run.add_argument("--scheduler", metavar="ADDR",
                     help="Dask scheduler address, e.g. tcp://host:8786 (with --backend dask; "
                          "default: start a local cluster of --jobs workers)")
    run.add_argument("--if-cluster-lost", choices=("stop", "local"), default="stop",
                     help="when the Dask scheduler or every worker is lost: stop (default; "
                          "finish later with --resume) or play the rest on this machine")
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
                     help="take over DIR's lock from a run on another host that is gone (a "
                          "lost machine); a live run on this host is never taken over")
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
    tune.add_argument("--jobs", type=int_at_least(1), metavar="J",
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
    exp = sub.add_parser(
        "exploit", help="tune an opponent against one strategy and say how far it beats it",
        description="Tune an exploiter (CMA-ES, as ginbox tune) against TARGET alone (one copy "
                    "two-handed, two three-handed), then play it, its start and the general "
                    "strategies on the same mirrored held-out deals (another seed, seats "
                    "rotated) and print their win rates and the exploitability gap with 95% "
                    "intervals (docs/exploit.md).")
    exp.add_argument("target", metavar="TARGET",
                     help="the strategy to exploit, e.g. simple or greedy-knock:knock_at=0")
    exp.add_argument("--rules", default="three-handed", metavar="PRESET",
                     help="rules preset: " + ", ".join(PRESETS) + " (default three-handed)")
    exp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     dest="settings", help="change one rules field of the preset (repeatable)")
    exp.add_argument("--exploiter", default="tuned", metavar="SPEC",
                     help="the built-in tuned against TARGET, where its search starts "
                          "(default tuned: its set for the rules)")
    exp.add_argument("--params", metavar="P,..",
                     help="the exploiter's parameters searched (default: all of them)")
    exp.add_argument("--general", default="tuned", metavar="A,B",
                     help="general strategies measured beside it on the same deals; the best "
                          "of them is the comparison (default tuned)")
    exp.add_argument("--seed", type=int_at_least(0), default=0, metavar="S",
                     help="seed of the tuning deals and the search (default 0)")
    exp.add_argument("--holdout-seed", type=int_at_least(0), metavar="S",
                     help="seed of the held-out deals (default: derived from --seed)")
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
    exp.add_argument("--jobs", type=int_at_least(1), metavar="J",
                     help="worker processes (default: all usable cores)")
    exp.add_argument("--backend", choices=("loky", "dask"), default="loky",
                     help="joblib backend: loky processes (default) or a Dask cluster")
    exp.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address, as for run")
    exp.add_argument("--out", metavar="DIR",
                     help="output folder (default: results/exploit_<target>_<rules>)")
    exp_again = exp.add_mutually_exclusive_group()
    exp_again.add_argument("--resume", action="store_true",
                           help="finish an interrupted exploit in DIR")
    exp_again.add_argument("--force", action="store_true",
                           help="discard the exploit already in DIR and start over")
    exp.add_argument("--quiet", action="store_true", help="no progress")
    train = sub.add_parser(
        "train", help="train a network by self-play with mc (TOML), resumable",
        description="Expert iteration: mc plays self-play games, a policy and value network "
                    "learns its decisions, the next round's mc searches with the network; "
                    "the strength of every round is measured against fixed opponents "
                    "(docs/learning.md). Needs the learn extra (PyTorch).")
    train.add_argument("file", metavar="FILE", help="training TOML file (see docs/learning.md)")
    train.add_argument("--jobs", type=int_at_least(1), metavar="J",
                       help="worker processes for the games (default: all usable cores)")
    train.add_argument("--backend", choices=("loky", "dask"), default="loky",
                       help="joblib backend: loky processes (default) or a Dask cluster")
    train.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address, as for run")
    train.add_argument("--out", metavar="DIR",
                       help="output folder (default: results/train/<name>)")
    train_again = train.add_mutually_exclusive_group()
    train_again.add_argument("--resume", action="store_true",
                             help="continue an interrupted training in DIR where it stopped")
    train_again.add_argument("--force", action="store_true",
                             help="discard the training already in DIR and start over")
    train.add_argument("--quiet", action="store_true", help="no progress")
    league = sub.add_parser(
        "league", help="play a league (TOML) among strategies and print the ratings",
        description="Play the tables of a league its folder does not hold yet (paired deals, "
                    "resumable), fit ratings (Elo scale, the anchor at 1500, bootstrap 95% "
                    "intervals), print the leaderboard and write it (docs/league.md).")
    league.add_argument("file", metavar="FILE", help="league TOML file (see experiments/)")
    league.add_argument("--games", type=int_at_least(1), metavar="N",
                        help="games per table (default: the file's)")
    league.add_argument("--seed", type=int_at_least(0), metavar="S",
                        help="league seed (default: the file's)")
    league.add_argument("--bootstrap", type=int_at_least(0), metavar="B",
                        help="bootstrap resamples for the intervals (default: the file's, 200)")
    league.add_argument("--jobs", type=int_at_least(1), metavar="J",
                        help="worker processes (default: all usable cores)")
    league.add_argument("--backend", choices=("loky", "dask"), default="loky",
                        help="joblib backend: loky processes (default) or a Dask cluster")
    league.add_argument("--scheduler", metavar="ADDR",
                        help="Dask scheduler address, as for run")
    league.add_argument("--if-cluster-lost", choices=("stop", "local"), default="stop",
                        help="when the Dask scheduler or every worker is lost: stop (default; "
                             "run the command again to finish) or play the rest here")
    league.add_argument("--out", metavar="DIR",
                        help="league folder (default: results/<league name>)")
    league.add_argument("--quiet", action="store_true", help="no progress")

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
    rev.add_argument("--seed", type=int_at_least(0), default=0, metavar="S",
                     help="seed of the judge's worlds (default 0)")
    rev.add_argument("--games", type=int_at_least(1), metavar="N",
                     help="review only the log's first N games")
    rev.add_argument("--jobs", type=int_at_least(1), default=1, metavar="J",
                     help="worker processes (default 1; the same table for any number)")
    rev.add_argument("--out", metavar="DIR", help="write decisions.parquet, decisions.csv, "
                                                  "report.md and plots into DIR")
    rev.add_argument("--costliest", type=int_at_least(0), default=5, metavar="K",
                     help="costliest decisions shown as positions (default 5)")
    rev_again = rev.add_mutually_exclusive_group()
    rev_again.add_argument("--resume", action="store_true",
                           help="go on with the review in DIR from its checkpoint")
    rev_again.add_argument("--force", action="store_true",
                           help="replace the review already in DIR")
    rev.add_argument("--quiet", action="store_true", help="no progress bar")

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

    bench = sub.add_parser("bench", help="measure the engine's speed",
                           description="Measure deadwood evaluations, hands and games per "
                                       "second.")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--cold", action="store_true",
                       help="also time a cold JIT compile: a new interpreter with an empty "
                            "temporary NUMBA_CACHE_DIR (minutes)")
    return parser
