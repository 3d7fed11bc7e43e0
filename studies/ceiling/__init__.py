"""The ceiling: ``mc`` with perfect information, and where the other bots stand below it.

Run: ``nice -n 10 python -m studies.ceiling matches --games 500 --only "vs simple"`` (every
player of ``--players`` in the match, ``--games`` a seat), then ``python -m studies.ceiling
report`` for the table. One process, one core.

The *clairvoyant* player is ``mc``'s own search (the same candidates, rollout policies,
scoring and decision rule) whose world is the true deal, the opponent's hand and the stock
order, instead of worlds sampled from its view (:mod:`studies.ceiling.play`). Its rollouts
draw no randomness, so one world (the truth) decides as any number of copies would. It
bounds what the search could get from perfect information. ``clairvoyant-hand`` sees the
opponent's hand but not the stock order: ``mc``'s sampled worlds, each dealing him his true
hand (which splits the ceiling's gain between the two hidden things). ``clairvoyant:PARAMS``
gives the search ``mc``'s parameters (``clairvoyant:leaf=4``, ``clairvoyant:weights=PATH``);
so does ``clairvoyant-hand:PARAMS``. Any other
player is a strategy spec (``random``, ``simple``, ``tuned``, ``mc``; ``tuned`` plays the
table's set) played by ginbox's batch loop.

Every match is mirrored as in ``python -m studies.mc_strength``: the player takes each seat in
turn against the match's opponents, on the same seed and game numbers (paired deals: every
player of a match meets the same decks), seated by the rotation. Win rates with 95% Wilson
intervals; the finish mix per hand played: the player's knocks (gins included), gins,
undercuts won (as defender) and suffered (as knocker), points won and conceded; games per
CPU second (``time.process_time``, compile excluded). ``report`` adds, per player, the
paired difference to the clairvoyant and the share of the way from ``random`` to the
clairvoyant (``(p - random) / (clairvoyant - random)``), each with a 95% interval (paired:
the difference's normal interval; the share's from a bootstrap of the deals).

Results go to ``results/ceiling/<out>.csv`` (written atomically), a row per player and match;
each row's game-by-game wins to ``results/ceiling/<out>/<player>.<match>.npy``. A row already
saved for the same games and seed is kept, so an interrupted run resumes at the match it was
playing (``--force`` plays it again).
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.statistics import wilson
from sim.engine.game import (
    GO_ERROR,
    GO_HANDS,
    GO_LEN,
    GO_SCORE,
    GO_SEAT_GINS,
    GO_SEAT_HANDS_WON,
    GO_SEAT_KNOCKS,
    GO_SEAT_UNDERCUT_WINS,
    GO_WINNER,
)
from sim.engine.rules import Rules
from sim.engine.view import V_LEN
from sim.io.files import atomic_write_bytes, atomic_write_text
from sim.play.driver import Seeds, iter_games
from sim.play.step import Seating
from sim.runs.progress import Progress
from strategies.net import NET_WEIGHTS, load_net
from strategies.registry import StrategySpec, parse_strategy, resolve
from studies.ceiling.play import N_COUNTS, SEES_ALL, SEES_HAND, Clairvoyant, play_clairvoyant

MATCHES = (
    ("eaai", ("simple",), "vs simple"),
    ("eaai", ("tuned",), "vs tuned@eaai"),
    ("three-handed", ("discard-tracking", "discard-tracking"), "vs 2 discard-tracking"),
    ("three-handed", ("tuned", "tuned"), "vs 2 tuned"),
)
PLAYERS = ("random", "simple", "tuned", "mc", "clairvoyant")
CLAIRVOYANT = "clairvoyant"
SIGHTS = {CLAIRVOYANT: SEES_ALL, "clairvoyant-hand": SEES_HAND}
"""The clairvoyant players: the whole deal seen, or the opponent's hand alone."""
FLOOR = "random"
OUT = Path("results/ceiling")
BATCH = 50


@dataclass(frozen=True)
class Player:
    """A player of the matches: a strategy spec, or with ``sees`` set (``SEES_*``), ``mc``'s
    search seeing the truth, with the spec's parameters and the network ``net``."""

    text: str
    spec: StrategySpec
    sees: int | None
    net: np.ndarray

    @property
    def clairvoyant(self) -> bool:
        return self.sees is not None


def parse_player(text: str) -> Player:
    """``clairvoyant`` or ``clairvoyant-hand``, either with ``:MC_PARAMS``, else a built-in
    strategy spec; a ValueError saying what is wrong."""
    name, _, rest = text.partition(":")
    if name.strip() in SIGHTS:
        spec = parse_strategy("mc" + (f":{rest}" if rest else ""))
        net = load_net(spec.weights)[0] if spec.weights else NET_WEIGHTS
        return Player(text, spec, SIGHTS[name.strip()], net)
    spec = parse_strategy(text)
    if not spec.compiled:
        raise ValueError(f"{text!r} is not a built-in strategy: the matches play built-ins "
                         "(and the clairvoyant) only")
    return Player(text, spec, None, NET_WEIGHTS)


def seat_rows(player: Player, rules: Rules, others: Sequence[str], seat: int, games: int,
              seeds: Seeds, counts: np.ndarray) -> Iterator[np.ndarray]:
    """The statistics rows of games ``0 .. games - 1`` with ``player`` in ``seat`` and
    ``others`` in the other seats (in order), seated by the rotation, batch by batch; the
    clairvoyant's decision counts are added to ``counts``."""
    if player.sees is None:
        lineup = list(others)
        lineup.insert(seat, player.text)
        for rows, _ in iter_games(rules, lineup, games, seeds, rotate=True, batch=BATCH):
            yield rows
        return
    specs = resolve(list(others), rules)
    specs.insert(seat, player.spec.for_rules(rules))
    ids = np.array([0 if i == seat else s.strategy_id for i, s in enumerate(specs)]
                   + [0] * (3 - len(specs)), np.int64)
    params = np.stack([s.params_array() for s in specs]
                      + [specs[0].params_array()] * (3 - len(specs)))
    seating = Seating(rules.to_array(), ids, params, 1 << seat)
    seer = Clairvoyant(specs[seat].params_array(), player.net, player.sees,
                       np.zeros(V_LEN, np.int64), counts)
    for start in range(0, games, BATCH):
        out = np.zeros((min(BATCH, games - start), GO_LEN), np.int64)
        play_clairvoyant(seating, seer, seeds.streams(rotate=True), start, out)
        if out[:, GO_ERROR].any():
            raise RuntimeError("the clairvoyant seat played an illegal move")
        yield out


def warm_up(player: Player, rules: Rules, others: Sequence[str]) -> None:
    """Compile (or load from the cache) what ``player`` plays, so no timing includes it."""
    for _ in seat_rows(player, rules, others, 0, 1, Seeds.from_seed(0),
                       np.zeros(N_COUNTS, np.int64)):
        pass


def finish_mix(rows: np.ndarray, seat: int) -> dict[str, int]:
    """The seat's totals over ``rows``: hands played, knocks (gins included), gins, undercuts
    won as defender, undercuts suffered as knocker, hand points won and conceded."""
    n = rows[:, GO_SCORE:GO_SCORE + 3].sum(axis=1)
    won = rows[:, GO_SEAT_HANDS_WON + seat]
    knocks = rows[:, GO_SEAT_KNOCKS + seat]
    undercut_wins = rows[:, GO_SEAT_UNDERCUT_WINS + seat]
    return {"hands": int(rows[:, GO_HANDS].sum()), "knocks": int(knocks.sum()),
            "gins": int(rows[:, GO_SEAT_GINS + seat].sum()),
            "undercut_wins": int(undercut_wins.sum()),
            "undercut": int((knocks - (won - undercut_wins)).sum()),
            "points": int(rows[:, GO_SCORE + seat].sum()),
            "conceded": int((n - rows[:, GO_SCORE + seat]).sum())}


def match(player: Player, rules_name: str, others: Sequence[str], games: int, seed: int,
          label: str) -> tuple[dict[str, object], np.ndarray]:
    """``player`` in each seat in turn, ``games`` games a seat; its row (wins, interval, finish
    mix per hand, speed) and whether it won each game, seat by seat in game order (the same
    order for every player, so two players' games pair deal by deal)."""
    rules = Rules.preset(rules_name)
    seeds = Seeds.from_seed(seed)
    n = rules.players
    totals: dict[str, int] = {}
    counts = np.zeros(N_COUNTS, np.int64)
    outcomes = []
    cpu = 0.0
    warm_up(player, rules, others)
    bar = Progress(f"{label} ({player.text})", games * n)
    for seat in range(n):
        start = time.process_time()
        for rows in seat_rows(player, rules, others, seat, games, seeds, counts):
            outcomes.append(rows[:, GO_WINNER] == seat)
            for key, value in finish_mix(rows, seat).items():
                totals[key] = totals.get(key, 0) + value
            bar.update(len(rows))
        cpu += time.process_time() - start
    bar.close()
    won_games = np.concatenate(outcomes)
    won, played, hands = int(won_games.sum()), len(won_games), totals["hands"]
    lo, hi = wilson(won, played)
    row: dict[str, object] = {
        "player": player.text, "match": label, "rules": rules_name, "seed": seed,
        "games": played, "won": won, "win_rate": won / played, "low": lo, "high": hi,
        "games_per_cpu_s": played / cpu, "hands": hands,
        **{f"{key}_per_hand": totals[key] / hands for key in
           ("knocks", "gins", "undercut_wins", "undercut", "points", "conceded")}}
    if player.clairvoyant:
        row["searched_share"] = counts[1] / max(1, counts[0])
        row["overridden_share"] = counts[2] / max(1, counts[1])
    return row, won_games


def slug(text: str) -> str:
    """A player's or match's name as a file name part."""
    return re.sub(r"[^A-Za-z0-9@=-]+", "_", text).strip("_")


def wins_path(out: str, player: str, label: str) -> Path:
    return OUT / out / f"{slug(player)}.{slug(label)}.npy"


def load_table(out: str) -> pd.DataFrame:
    """The saved rows of ``<out>.csv`` (an empty table when there are none)."""
    path = OUT / f"{out}.csv"
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def _save(row: dict[str, object], won: np.ndarray, out: str) -> None:
    """Add ``row`` (replacing an earlier one of the same player and match) and its wins."""
    buffer = io.BytesIO()
    np.save(buffer, won.astype(np.bool_))
    path = wins_path(out, str(row["player"]), str(row["match"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue())
    frame = load_table(out)
    if len(frame):
        frame = frame[(frame["player"] != row["player"]) | (frame["match"] != row["match"])]
    frame = pd.concat([frame, pd.DataFrame([row])], ignore_index=True) if len(frame) else \
        pd.DataFrame([row])
    atomic_write_text(OUT / f"{out}.csv", frame.to_csv(index=False))


def _done(frame: pd.DataFrame, player: str, label: str, played: int, seed: int,
          out: str) -> bool:
    """Is the row of ``player`` in ``label`` already saved for ``played`` games and seed?"""
    if frame.empty:
        return False
    rows = frame[(frame["player"] == player) & (frame["match"] == label)
                 & (frame["seed"] == seed) & (frame["games"] == played)]
    return not rows.empty and wins_path(out, player, label).is_file()


def matches(players: Sequence[Player], games: int, seed: int, only: str | None, out: str,
            force: bool) -> None:
    """Play every player in every match (``only``: those whose label contains it)."""
    for rules_name, others, label in MATCHES:
        if only and only not in label:
            continue
        for player in players:
            played = games * Rules.preset(rules_name).players
            if not force and _done(load_table(out), player.text, label, played, seed, out):
                print(f"{label:24s} {player.text:24s} kept (saved for these games and seed)")
                continue
            row, won = match(player, rules_name, others, games, seed, label)
            _save(row, won, out)
            print(f"{label:24s} {player.text:24s} {row['win_rate']:6.1%} "
                  f"[{row['low']:.1%}, {row['high']:.1%}] of {row['games']} games, "
                  f"{row['games_per_cpu_s']:.1f} games/CPU s", flush=True)
