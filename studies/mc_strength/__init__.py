"""Strength and speed of ``mc``: the reference matches and a strength-against-budget curve.

Run: ``nice -n 5 python -m studies.mc_strength matches --games 500`` (every match) or
``... curve --games 200 --samples 16 32 64 128 256``. One process, one core.

Every match is mirrored: the lineup is played once as given and once with ``mc`` in each
other seat, on the same seed and game numbers, so every arm meets the same decks (paired
deals) and ``mc`` holds every seat; games are seated by the rotation (each seat holds each
initial role equally often). The win rate is over all of ``mc``'s games, with a 95% Wilson
interval (conservative for mirrored games, whose results are positively paired). Speed is
``mc``'s games per CPU second (``time.process_time``) in the two-player ``vs simple`` match.
Results go to ``results/mc_strength/<command>.csv`` (written atomically); the curve also
writes ``curve.png``. Seeds: 90210 for the report (the defaults were chosen on seed 7).

``matches`` also saves each match's game-by-game wins (``<name>.<match>.npy``), so two
variants played on the same seed and games compare game by game: ``... paired --runs
matches_A.vs_2_discard-tracking matches_B.vs_2_discard-tracking`` prints the difference in
points with a 95% interval from the paired differences.
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.statistics import wilson
from sim.engine.game import game_column
from sim.engine.rules import Rules
from sim.io.files import atomic_write_bytes, atomic_write_text
from sim.play.driver import Seeds, iter_games
from sim.runs.progress import Progress

MATCHES = (
    ("eaai", ["simple"], "vs simple"),
    ("eaai", ["discard-tracking:knock_at=0"], "vs discard-tracking:knock_at=0"),
    ("eaai", ["tuned@eaai"], "vs tuned@eaai"),
    ("three-handed", ["discard-tracking", "discard-tracking"], "vs 2 discard-tracking"),
    ("three-handed", ["simple", "simple"], "vs 2 simple"),
    ("three-handed", ["tuned", "tuned"], "vs 2 tuned"),
)
OUT = Path("results/mc_strength")


def match(mc: str, rules_name: str, others: list[str], games: int, seed: int,
          label: str) -> tuple[dict[str, object], np.ndarray]:
    """Play ``games`` games per seat of ``mc`` (mirrored lineups); its wins and speed, and
    whether it won each game (seat by seat, in game order: the same order for any ``mc``, so
    two runs pair game by game)."""
    rules = Rules.preset(rules_name)
    seeds = Seeds.from_seed(seed)
    n = len(others) + 1
    won = played = 0
    knocks = gins = hands = 0
    cpu = 0.0
    outcomes = []
    bar = Progress(f"{label} ({mc})", games * n)
    for seat in range(n):
        lineup = list(others)
        lineup.insert(seat, mc)
        start = time.process_time()
        for rows, _ in iter_games(rules, lineup, games, seeds, rotate=True, batch=50):
            outcomes.append(game_column(rows, "winner") == seat)
            won += int(outcomes[-1].sum())
            played += len(rows)
            hands += int(game_column(rows, "hands").sum())
            knocks += int(game_column(rows, f"knocks_{seat}").sum())
            gins += int(game_column(rows, f"gins_{seat}").sum())
            bar.update(len(rows))
        cpu += time.process_time() - start
    bar.close()
    lo, hi = wilson(won, played)
    return {"match": label, "rules": rules_name, "mc": mc, "games": played, "won": won,
            "win_rate": won / played, "low": lo, "high": hi, "seed": seed,
            "games_per_cpu_s": played / cpu, "hands": hands,
            "mc_knocks_per_hand": knocks / hands, "mc_gins_per_hand": gins / hands}, \
        np.concatenate(outcomes)


def _save(rows: list[dict[str, object]], name: str, merge: bool = False) -> pd.DataFrame:
    """Write ``rows`` as ``<name>.csv``. With ``merge``, the rows an earlier run saved there
    for other matches are kept (why: ``matches --only`` run by run under one ``--out`` then
    builds one table instead of each run overwriting the last one's)."""
    frame = pd.DataFrame(rows)
    path = OUT / f"{name}.csv"
    if merge and path.is_file():
        earlier = pd.read_csv(path)
        if "match" in earlier.columns:
            kept = earlier[~earlier["match"].isin(frame["match"])]
            frame = pd.concat([kept, frame], ignore_index=True) if len(kept) else frame
    OUT.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, frame.to_csv(index=False))
    return frame


def matches(games: int, seed: int, mc: str, only: str | None, out: str | None) -> None:
    """Play the matches; save the table (a match's row replaces the one an earlier run under
    the same name saved for it; other matches' rows are kept), and each match's game-by-game
    wins for ``paired`` (``<name>.<match>.npy``, the match's label with spaces as
    underscores)."""
    rows = []
    name = out or ("matches" if not only else f"matches_{only.replace(' ', '_')}")
    for rules_name, others, label in MATCHES:
        if only and only not in label:
            continue
        r, won = match(mc, rules_name, others, games, seed, label)
        rows.append(r)
        print(f"{label:32s} {r['win_rate']:6.1%} [{r['low']:.1%}, {r['high']:.1%}] of "
              f"{r['games']} games, {r['games_per_cpu_s']:.1f} games/CPU s", flush=True)
        _save(rows, name, merge=True)
        _save_wins(won, f"{name}.{label.replace(' ', '_')}")


def _save_wins(won: np.ndarray, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    np.save(buffer, won.astype(np.bool_))
    atomic_write_bytes(OUT / f"{name}.npy", buffer.getvalue())


def paired(first: str, second: str) -> None:
    """The mean game-by-game difference of two saved runs of one match on the same seed and
    games (``first`` minus ``second``), in points with its 95% interval (normal, from the
    paired differences: far tighter than the two Wilson intervals apart). Runs of different
    ``--games`` are compared on their common first games of each seat."""
    for run in (first, second):
        if not (OUT / f"{run}.npy").is_file():
            raise SystemExit(f"no saved run {run!r} in {OUT} (run `matches --out NAME` first; "
                             "a run is NAME.<match label with underscores>)")
    a = np.load(OUT / f"{first}.npy").astype(np.int64)
    b = np.load(OUT / f"{second}.npy").astype(np.int64)
    if len(a) != len(b):
        seats = _seats(first)
        if len(a) % seats or len(b) % seats:
            raise SystemExit(f"{first} has {len(a)} games and {second} {len(b)}: paired runs "
                             "must play the same match and seed")
        common = min(len(a), len(b)) // seats
        a = a.reshape(seats, -1)[:, :common].ravel()
        b = b.reshape(seats, -1)[:, :common].ravel()
        print(f"comparing the first {common:,} games of each of mc's {seats} seats (the runs "
              "played different --games; their first games are the same deals)")
    d = a - b
    mean = d.mean()
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    print(f"{first} {a.mean():.1%} - {second} {b.mean():.1%} = {100 * mean:+.1f} points "
          f"({100 * (mean - half):+.1f} to {100 * (mean + half):+.1f}), {len(d)} paired games")


def _seats(run: str) -> int:
    """How many seats ``mc`` held in a saved run: the players of its match's rules, read from
    the run's CSV row (the ``.npy`` keeps the games seat by seat)."""
    name, _, label = run.partition(".")
    if not (OUT / f"{name}.csv").is_file():
        raise SystemExit(f"runs of different lengths: no {name}.csv in {OUT} to tell the seats")
    frame = pd.read_csv(OUT / f"{name}.csv")
    rows = frame[frame["match"].str.replace(" ", "_") == label]
    if rows.empty:
        raise SystemExit(f"no match {label!r} in {OUT / (name + '.csv')}")
    return Rules.preset(rows["rules"].iloc[0]).players


def with_samples(mc: str, samples: int) -> str:
    """``mc`` (a spec such as ``mc`` or ``mc:leaf=4``) with its ``samples`` set."""
    return f"{mc}{',' if ':' in mc else ':'}samples={samples}"


def curve(games: int, seed: int, samples: list[int], mc: str = "mc", out: str | None = None,
          beside: list[str] | tuple[str, ...] = ()) -> None:
    """Strength against ``simple`` (``eaai``) at each budget in ``samples`` of ``mc``. Saves
    ``<out>.csv``, each point's game-by-game wins (``<out>.samples_<n>.npy``, so two curves
    on one seed pair point by point with ``paired``) and ``<out>.png``, drawn beside the
    saved curves named in ``beside``."""
    name = out or "curve"
    rows = []
    for s in samples:
        row, won = match(with_samples(mc, s), "eaai", ["simple"], games, seed, "vs simple")
        row["samples"] = s
        rows.append(row)
        print(f"samples={s:5d} {row['win_rate']:6.1%} [{row['low']:.1%}, {row['high']:.1%}] "
              f"of {row['games']} games, {row['games_per_cpu_s']:.1f} games/CPU s", flush=True)
        frame = _save(rows, name)
        _save_wins(won, f"{name}.samples_{s}")
    curves = {mc: frame}
    for other in beside:
        path = OUT / f"{other}.csv"
        if not path.is_file():
            raise SystemExit(f"no saved curve {other!r} in {OUT} (run `curve --out {other}`)")
        saved = pd.read_csv(path)
        curves[str(saved["mc"].iloc[0]).rsplit("samples=", 1)[0].rstrip(",:") or other] = saved
    _plot(curves, name)


def _budget(frame: pd.DataFrame) -> list[int]:
    """The budget of each point (older curves saved it only inside the ``mc`` spec)."""
    if "samples" in frame.columns:
        return [int(s) for s in frame["samples"]]
    return [int(m.rsplit("samples=", 1)[1].split(",")[0]) for m in frame["mc"]]


def _plot(curves: dict[str, pd.DataFrame], name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for shift, (label, frame) in enumerate(curves.items()):
        x = np.array(_budget(frame), dtype=float) * 1.06 ** shift  # side by side, not on top
        ax.errorbar(x, frame["win_rate"], yerr=[frame["win_rate"] - frame["low"],
                                                frame["high"] - frame["win_rate"]],
                    marker="o", capsize=2, label=label)
        for xi, y, g in zip(x, frame["win_rate"], frame["games_per_cpu_s"], strict=True):
            ax.annotate(f"{g:.0f}/s", (xi, y), textcoords="offset points", xytext=(4, -12),
                        fontsize=7)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("samples (most worlds per decision)")
    ax.set_ylabel("win rate against simple (eaai), 95% CI")
    if len(curves) > 1:
        ax.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    atomic_write_bytes(OUT / f"{name}.png", buffer.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.mc_strength", description=__doc__)
    parser.add_argument("command", choices=("matches", "curve", "paired"))
    parser.add_argument("--games", type=int, default=500, help="games per seat of mc")
    parser.add_argument("--seed", type=int, default=90210)
    parser.add_argument("--mc", default="mc")
    parser.add_argument("--only", default=None)
    parser.add_argument("--out", default=None,
                        help="name of the results (matches: default matches, or by --only; "
                        "curve: default curve)")
    parser.add_argument("--samples", type=int, nargs="*", default=[16, 32, 64, 128, 256])
    parser.add_argument("--beside", nargs="*", default=[],
                        help="curve: saved curves (their --out) to draw beside this one")
    parser.add_argument("--runs", nargs=2, metavar=("FIRST", "SECOND"),
                        help="paired: two saved runs' game-by-game wins (<out>.<match>)")
    args = parser.parse_args()
    if args.command == "paired":
        if not args.runs:
            parser.error("paired needs --runs FIRST SECOND")
        paired(*args.runs)
    elif args.command == "matches":
        matches(args.games, args.seed, args.mc, args.only, args.out)
    else:
        curve(args.games, args.seed, args.samples, args.mc, args.out, args.beside)

