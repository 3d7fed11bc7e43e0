"""``python -m studies.ceiling``'s command line: ``matches`` plays, ``report`` prints the table.

Bad settings are refused before any game is played: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from studies import ceiling
from studies.ceiling import MATCHES, PLAYERS, matches, parse_player
from studies.ceiling.report import markdown


def refuse(message: str) -> NoReturn:
    """Say what is wrong in one line and exit with status 2."""
    print(f"python -m studies.ceiling: {message}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.ceiling",
                                     description=ceiling.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("matches", "report"))
    parser.add_argument("--games", type=int, default=500, help="games per seat of each player")
    parser.add_argument("--seed", type=int, default=90210)
    parser.add_argument("--players", nargs="+", default=list(PLAYERS),
                        help="strategy specs, and clairvoyant[:MC_PARAMS] for mc on the true "
                             f"deal (default: {' '.join(PLAYERS)})")
    parser.add_argument("--only", default=None,
                        help="the matches whose label contains this: "
                             + ", ".join(label for *_, label in MATCHES))
    parser.add_argument("--out", default="matches", help="name of the results")
    parser.add_argument("--force", action="store_true",
                        help="play again the matches already saved for these games and seed")
    args = parser.parse_args(argv)
    if args.command == "report":
        try:
            print(markdown(args.out))
        except ValueError as exc:
            refuse(str(exc))
        return
    if args.games < 1:
        refuse(f"--games must be at least 1 (got {args.games})")
    if args.only and not any(args.only in label for *_, label in MATCHES):
        refuse(f"--only {args.only!r} names no match: expected part of one of "
               + ", ".join(label for *_, label in MATCHES))
    if not args.out or ceiling.slug(args.out) != args.out:
        refuse(f"--out {args.out!r}: expected a plain name (letters, digits, - and _)")
    players = []
    for text in args.players:
        try:
            players.append(parse_player(text))
        except ValueError as exc:
            refuse(f"player {text!r}: {exc}")
    matches(players, args.games, args.seed, args.only, args.out, args.force)
