"""``ginbox review``: the judge's verdict on every decision of a hand log (docs/review.md)."""

from __future__ import annotations

import argparse
import shlex
import signal

from sim.cli.common import Interrupted, UsageError, terminate_as_interrupt


def parse_seats(text: str | None) -> list[int] | None:
    """``"0,2"`` as seat numbers; None for every seat."""
    if text is None:
        return None
    try:
        seats = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--seats {text!r} is not valid: expected seat numbers such as 0 or "
                         "0,2") from None
    return seats


def cmd_review(args: argparse.Namespace) -> int:
    """Review, print the Markdown report, and with ``--out`` write the table, report and plots;
    Ctrl-C or SIGTERM keep the games reviewed so far and print how to resume."""
    from sim.review import review

    with terminate_as_interrupt() as terminated:
        try:
            result = review(args.log, seats=parse_seats(args.seats), judge=args.judge,
                            seed=args.seed, games=args.games, jobs=args.jobs, out=args.out,
                            resume=args.resume, force=args.force, quiet=args.quiet)
        except KeyboardInterrupt:
            if args.out is None:
                raise
            argv = ["ginbox", *(a for a in args.argv if a != "--force")]
            what = "terminated (SIGTERM)" if terminated else "interrupted"
            raise Interrupted(f"{what}: the games reviewed so far are kept in {args.out}; "
                              "continue with: " + " ".join(shlex.quote(a) for a in
                                                           [*argv, "--resume"]),
                              128 + (signal.SIGTERM if terminated else signal.SIGINT)
                              ) from None
    print(result.report(costliest=args.costliest))
    if args.out is not None:
        print(f"written to {args.out}: " + ", ".join(p.name for p in result.files))
    return 0
