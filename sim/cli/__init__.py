"""The ``ginbox`` command: play games, replay and check hand logs, list strategies, a demo,
run experiments and report on them, tune strategies and rate them in leagues, review the
decisions of a hand log.

One module per group of commands: :mod:`sim.cli.games` (play, replay, strategies, demo),
:mod:`sim.cli.runs` (run, report, bench), :mod:`sim.cli.lab` (tune, exploit, league),
:mod:`sim.cli.review` (review), :mod:`sim.cli.serve` (serve); the parser in
:mod:`sim.cli.parser`, what they share in :mod:`sim.cli.common`.

Exit status: 0 success; 1 ``replay`` found a record that differs from what the rules give;
2 bad input (unknown strategy or preset, malformed ``name:key=value``, wrong number of
strategies, out-of-range number, unreadable or corrupt log, unknown game or hand), reported as
one ``ginbox: error: ...`` line on stderr with no traceback and no half-written file.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from sim.analysis.statistics import wilson
from sim.cli.common import (
    PROG,
    Interrupted,
    Output,
    OutputError,
    UsageError,
    one_line,
    silence_stdout,
)
from sim.cli.games import cmd_demo, cmd_play, cmd_replay, cmd_strategies
from sim.cli.lab import cmd_exploit, cmd_league, cmd_train, cmd_tune
from sim.cli.parser import build_parser
from sim.cli.review import cmd_review
from sim.cli.runs import cmd_bench, cmd_report, cmd_run
from sim.cli.serve import cmd_serve
from sim.play.driver import StrategyError
from strategies.eaai import CLASSPATH_VARIABLE

__all__ = ["COMMANDS", "PROG", "Interrupted", "UsageError", "build_parser", "main", "wilson"]

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "play": cmd_play,
    "replay": cmd_replay,
    "strategies": cmd_strategies,
    "demo": cmd_demo,
    "run": cmd_run,
    "report": cmd_report,
    "tune": cmd_tune,
    "exploit": cmd_exploit,
    "league": cmd_league,
    "train": cmd_train,
    "bench": cmd_bench,
    "review": cmd_review,
    "serve": cmd_serve,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ginbox`` command line; returns the exit status."""
    stdout = sys.stdout
    sys.stdout = Output(stdout)
    try:
        args = build_parser().parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)
        if args.eaai_classpath is not None:  # the workers this run starts inherit it
            os.environ[CLASSPATH_VARIABLE] = args.eaai_classpath
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # a full stdout fails here, inside the handlers below
        return code
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except (UsageError, ValueError, StrategyError) as exc:
        print(f"{PROG}: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # 'ginbox ... | head': the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        return 141
    except OutputError as exc:
        sys.stdout = stdout
        silence_stdout()
        print(f"{PROG}: error: cannot write to standard output: "
              f"{one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{PROG}: error: {where}{one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"{PROG}: {one_line(str(exc))}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    finally:
        if isinstance(sys.stdout, Output):
            sys.stdout = stdout
