"""``ginbox train`` with ``model = "knock"``: record, train and score ``mc``'s knock model.

The model (:mod:`strategies.mc_knock`) says, from what a player has shown, whether he knocks
when he may. Its data are every knock decision of games among a population of players that
knock unlike each other (the heuristics, ``tuned``, players that knock only for gin or as soon
as they may, the network, ``mc``), seated as the belief's records are
(:func:`sim.learn.belief_data.chunk_lineup`, the same numbering of games); the label is
whether the player knocked.

1. **Records**: each table's ``games`` in chunks of ``chunk_size``, each chunk written
   atomically as it comes back from a worker (an interrupted run resumes from the files).
2. **Training**: every ``holdout``-th chunk is held out; Adam on the binary cross-entropy,
   ``epochs`` passes in an order drawn from the seed, weights seeded by
   ``torch.manual_seed(seed)``: the same file gives the same weights.
3. **Scores on the held-out chunks**: log-loss and accuracy of the model against the
   population's knock rate by deadwood (what a model that ignores who is playing knows), for
   every table and every player of the population.

Output (``results/train/<name>``): ``training.json``, ``data/``, ``knock.npz`` (the weights
with what made them), ``curve.csv``, ``scores.csv`` and ``report.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import torch
from torch import nn

from sim.engine.game import GO_LEN
from sim.engine.hand import (
    DEC_KNOCK,
    HS_KNOCK_LIMIT,
    HS_TO_MOVE,
    MOVE_KNOCK,
    best_legal_after,
    stock_count,
)
from sim.engine.jit import allocating, kernel
from sim.engine.view import (
    GI_GINS,
    GI_KNOCK_DEADWOOD,
    GI_KNOCKS,
    V_PLAYERS,
    V_SCORE_OPP,
    V_SCORE_SELF,
    V_TARGET,
)
from sim.io.files import atomic_write_bytes, atomic_write_text
from sim.learn.belief import (
    cluster_interval,
    cosine_rate,
    record_chunks,
    recorded_run,
    weights_file,
)
from sim.learn.belief_data import chunk_table, shard_bytes, shard_fields
from sim.learn.belief_spec import BeliefSpec
from sim.play.loop import play_game, register_hooks
from sim.play.step import GameBuffers, Seating, Streams, new_tables, table_row
from strategies.mc_knock import (
    F_DEADWOOD,
    F_GINS,
    F_KNOCK_DEADWOOD,
    F_KNOCKS,
    F_LIMIT,
    F_OTHER_SCORE,
    F_OWN_SCORE,
    F_PASSED,
    F_PLAYERS,
    F_STOCK,
    F_TARGET,
    N_FACTS,
    N_INPUTS,
    encode_rows,
    pack,
)

META = ("game", "hand", "player")
"""A record's ``meta`` row: game and hand numbers, and the knocker's index in the table's
population."""
M_GAME, M_HAND, M_PLAYER = range(len(META))
ROWS_PER_GAME = 400
"""Room for one game's knock decisions; a game that would overflow is not recorded."""


class KnockRecorder(NamedTuple):
    """The recorder's hooks into the one game loop: the seats' population indices, whether
    each hand player let a knock pass this hand, the records and the counters (``K_*``)."""

    who: np.ndarray
    passed: np.ndarray
    facts: np.ndarray
    knocked: np.ndarray
    meta: np.ndarray
    counters: np.ndarray


K_ROWS, K_GAME, K_HAND, K_OVERFLOW = range(4)


@kernel
def mover_style(table: GameBuffers, f: np.ndarray) -> None:
    """The knock model's facts of the player to move that stay the same within the hand
    (how he ended the game's earlier hands, the scores, the table), into ``f``: what
    :func:`strategies.mc_knock.opponent_style` reads of the opponent from ``mc``'s view."""
    hs, view, info = table.hs, table.player_view, table.game_info
    p = hs[HS_TO_MOVE]
    f[F_KNOCKS] = info[GI_KNOCKS + p]
    f[F_GINS] = info[GI_GINS + p]
    f[F_KNOCK_DEADWOOD] = info[GI_KNOCK_DEADWOOD + p]
    f[F_OWN_SCORE] = view[V_SCORE_SELF]
    f[F_OTHER_SCORE] = view[V_SCORE_OPP]
    f[F_TARGET] = view[V_TARGET]
    f[F_PLAYERS] = view[V_PLAYERS]
    f[F_LIMIT] = hs[HS_KNOCK_LIMIT]


@kernel
def _keep_knocks(rec: KnockRecorder, seating: Seating, table: GameBuffers, decision: int,
                 seat: int, move: int) -> int:
    """At a knock decision, keep the knocker's facts and whether he knocked."""
    if decision != DEC_KNOCK:
        return move
    c = rec.counters
    hs = table.hs
    p = hs[HS_TO_MOVE]
    n = c[K_ROWS]
    if n >= rec.facts.shape[0]:
        c[K_OVERFLOW] = 1
        return move
    f = rec.facts[n]
    mover_style(table, f)
    f[F_DEADWOOD] = best_legal_after(hs, table.after)
    f[F_STOCK] = stock_count(hs)
    f[F_PASSED] = rec.passed[p]
    rec.knocked[n] = 1 if move == MOVE_KNOCK else 0
    m = rec.meta[n]
    m[M_GAME], m[M_HAND], m[M_PLAYER] = c[K_GAME], c[K_HAND], rec.who[seat]
    c[K_ROWS] = n + 1
    if move != MOVE_KNOCK:
        rec.passed[p] = 1
    return move


@kernel
def _next_hand(rec: KnockRecorder, seating: Seating, table: GameBuffers) -> None:
    rec.counters[K_HAND] += 1
    rec.passed[:] = 0


register_hooks(KnockRecorder, on_decision=_keep_knocks, on_hand_end=_next_hand)


@allocating
def record_knocks(seating: Seating, who: np.ndarray, streams: Streams, first_game: int,
                  games: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Play games ``first_game ..`` (``games`` of them) with the built-ins of ``seating`` and
    keep every knock decision: the facts, whether he knocked, the meta row. Return them and
    the games kept."""
    table = table_row(new_tables(1, 0), 0)
    rows = games * ROWS_PER_GAME
    rec = KnockRecorder(who, np.zeros(2, np.int64), np.zeros((rows, N_FACTS), np.int64),
                        np.zeros(rows, np.int64), np.zeros((rows, len(META)), np.int64),
                        np.zeros(4, np.int64))
    row = np.zeros(GO_LEN, np.int64)
    c = rec.counters
    kept = 0
    for i in range(games):
        g = first_game + i
        game_start = c[K_ROWS]
        c[K_GAME], c[K_HAND], c[K_OVERFLOW] = g, 0, 0
        rec.passed[:] = 0
        if not play_game(seating, table, rec, streams, g, row):
            raise RuntimeError("a built-in played an illegal move")
        if c[K_OVERFLOW]:
            c[K_ROWS] = game_start
            continue
        kept += 1
    n = c[K_ROWS]
    return rec.facts[:n], rec.knocked[:n], rec.meta[:n], kept


class KnockShard(NamedTuple):
    """One chunk's records, with its table and lineup."""

    table: str
    lineup: tuple[int, ...]
    facts: np.ndarray
    knocked: np.ndarray
    meta: np.ndarray
    games: int

    def to_bytes(self) -> bytes:
        """The shard as a compressed ``.npz`` (written atomically by the caller)."""
        return shard_bytes(self._asdict())

    @classmethod
    def read(cls, path: str | Path) -> KnockShard:
        """A shard written by :meth:`to_bytes`."""
        return cls(**shard_fields(path))


def play_chunk(spec: BeliefSpec, table: str, table_index: int, chunk: int) -> KnockShard:
    """Chunk ``chunk`` of a table: its lineup drawn, its games played and recorded (the last
    chunk plays only the games left)."""
    c = chunk_table(spec.seed, table, table_index, chunk, spec.population[table])
    games = min(spec.chunk_size, spec.games - chunk * spec.chunk_size)
    facts, knocked, meta, kept = record_knocks(c.seating, c.who, c.streams,
                                               chunk * spec.chunk_size, games)
    return KnockShard(table, tuple(c.lineup), facts, knocked, meta, kept)


def record(spec: BeliefSpec, out: Path, jobs: int, quiet: bool = False) -> list[Path]:
    """Play every chunk not yet on disk; return every chunk file, in order."""
    def one(t: int, table: str, chunk: int, path: Path) -> None:
        atomic_write_bytes(path, play_chunk(spec, table, t, chunk).to_bytes())

    return record_chunks(spec, out, jobs, quiet, one)


class KnockData(NamedTuple):
    """Records of several chunks, with the table index of each row."""

    facts: np.ndarray
    knocked: np.ndarray
    meta: np.ndarray
    table: np.ndarray

    def rows(self, keep: np.ndarray) -> KnockData:
        return KnockData(*(a[keep] for a in self))


def knock_data(shards: list[KnockShard], tables: tuple[str, ...]) -> KnockData:
    """The shards' records stacked, in order."""
    if not shards:
        return KnockData(np.zeros((0, N_FACTS), np.int64), np.zeros(0, np.int64),
                         np.zeros((0, len(META)), np.int64), np.zeros(0, np.int64))
    return KnockData(np.concatenate([s.facts for s in shards]),
                     np.concatenate([s.knocked for s in shards]),
                     np.concatenate([s.meta for s in shards]),
                     np.concatenate([np.full(len(s.knocked), tables.index(s.table))
                                     for s in shards]))


class KnockNet(nn.Module):
    """The log-odds that a player knocks, from the encoded facts (:data:`N_INPUTS`)."""

    def __init__(self, hidden: int = 16) -> None:
        super().__init__()
        self.hidden = nn.Linear(N_INPUTS, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.hidden(x))).squeeze(-1)


def to_flat(model: KnockNet) -> np.ndarray:
    """The flat float32 array :func:`strategies.mc_knock.knock_logit` reads."""
    def t(x: torch.Tensor) -> np.ndarray:
        return x.detach().cpu().numpy()
    return pack(t(model.hidden.weight).T, t(model.hidden.bias), t(model.out.weight)[0],
                float(t(model.out.bias)[0]))


def predict(model: KnockNet, facts: np.ndarray) -> np.ndarray:
    """PyTorch's logits for rows of facts."""
    model.eval()
    with torch.no_grad():
        return model(torch.from_numpy(encode_rows(facts).astype(np.float32))).numpy()


def train(spec: BeliefSpec, train_data: KnockData, valid: KnockData,
          quiet: bool = False) -> tuple[KnockNet, list[dict[str, float]]]:
    """Train the model; return it and its learning curve (held-out loss per epoch)."""
    torch.set_num_threads(spec.threads)
    torch.manual_seed(spec.seed)
    model = KnockNet(spec.hidden)
    optimiser = torch.optim.Adam(model.parameters(), lr=spec.learning_rate,
                                 weight_decay=spec.weight_decay)
    inputs = torch.from_numpy(encode_rows(train_data.facts).astype(np.float32))
    labels = torch.from_numpy(train_data.knocked.astype(np.float32))
    loss_of = nn.BCEWithLogitsLoss()
    order = np.random.default_rng(spec.seed)
    curve = []
    for epoch in range(1, spec.epochs + 1):
        model.train()
        cosine_rate(optimiser, spec, epoch)
        perm = torch.from_numpy(order.permutation(len(labels)))
        total, batches = 0.0, 0
        for start in range(0, len(perm), spec.batch):
            rows = perm[start:start + spec.batch]
            loss = loss_of(model(inputs[rows]), labels[rows])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach())
            batches += 1
        row = {"epoch": epoch, "train_loss": total / max(1, batches),
               "valid_loss": float(log_loss(predict(model, valid.facts), valid.knocked).mean())}
        curve.append(row)
        if not quiet:
            print(f"epoch {epoch}: train {row['train_loss']:.4f}, held-out "
                  f"{row['valid_loss']:.4f}", flush=True)
    return model, curve


def log_loss(logits: np.ndarray, knocked: np.ndarray) -> np.ndarray:
    """Each decision's log-loss (nats) of the logits."""
    return np.logaddexp(0.0, logits) - knocked * logits


def rate_by_deadwood(data: KnockData) -> np.ndarray:
    """The population's knock rate at each deadwood 0..10 (add-one smoothed), as logits:
    the guess of a model that does not read who is playing."""
    d = np.clip(data.facts[:, F_DEADWOOD], 0, 10)
    knocks = np.bincount(d, data.knocked, 11)
    seen = np.bincount(d, minlength=11)
    rate = (knocks + 1) / (seen + 2)
    return np.log(rate / (1 - rate))


def score(model: KnockNet, train_data: KnockData, held: KnockData, spec: BeliefSpec
          ) -> pd.DataFrame:
    """Log-loss per decision (95% interval from a bootstrap of games) and accuracy of the
    model and of the knock rate by deadwood, on the held-out decisions where he could knock
    with deadwood (gin decisions apart: every player knocks for gin), by table and player."""
    guesses = {"model": predict(model, held.facts),
               "rate by deadwood": rate_by_deadwood(train_data)[
                   np.clip(held.facts[:, F_DEADWOOD], 0, 10)]}
    groups = {"all": held.facts[:, F_DEADWOOD] > 0}
    for t, table in enumerate(spec.tables):
        for i, name in enumerate(spec.population[table]):
            groups[f"{table}: {name}"] = groups["all"] & (held.table == t) & \
                (held.meta[:, M_PLAYER] == i)
    rows = []
    games = held.meta[:, M_GAME] + 1_000_000_000 * held.table  # a game of each table apart
    for group, keep in groups.items():
        if not keep.any():
            continue
        for name, logits in guesses.items():
            loss = log_loss(logits[keep], held.knocked[keep])
            mean, low, high = cluster_interval(loss, np.ones(len(loss)), games[keep],
                                                spec.seed)
            rows.append({"group": group, "guess": name, "decisions": int(keep.sum()),
                         "knock_share": float(held.knocked[keep].mean()), "log_loss": mean,
                         "low": low, "high": high,
                         "accuracy": float(((logits[keep] >= 0) == held.knocked[keep]).mean())})
    return pd.DataFrame(rows)


def run_knock_training(spec: BeliefSpec, out: str | Path | None = None, jobs: int = 1,
                       quiet: bool = False) -> Path:
    """Record, train and score (see the module docstring); return the output folder."""
    folder, started, train_shards, held_shards = recorded_run(spec, out, jobs, quiet, record,
                                                              KnockShard.read)
    train_data = knock_data(train_shards, spec.tables)
    held = knock_data(held_shards, spec.tables)
    if not quiet:
        print(f"training on {len(train_data.knocked):,} knock decisions, "
              f"{len(held.knocked):,} held out", flush=True)
    model, curve = train(spec, train_data, held, quiet)
    pd.DataFrame(curve).to_csv(folder / "curve.csv", index=False)
    scores = score(model, train_data, held, spec)
    scores.to_csv(folder / "scores.csv", index=False)
    facts = {"decisions": len(train_data.knocked), "held_out": len(held.knocked),
             "curve": curve}
    atomic_write_bytes(folder / "knock.npz",
                       weights_file("knock", to_flat(model), spec, started, facts))
    report = _report(spec, curve, scores, len(train_data.knocked), len(held.knocked))
    atomic_write_text(folder / "report.md", report)
    return folder


def _report(spec: BeliefSpec, curve: list[dict[str, float]], scores: pd.DataFrame,
            decisions: int, held: int) -> str:
    """``report.md``: the scores, as the command prints them."""
    lines = [f"# Knock model `{spec.name}`", "",
             f"Trained on {decisions:,} knock decisions ({held:,} held out), seed {spec.seed}; "
             f"held-out loss {curve[-1]['valid_loss']:.4f} nats per decision.", "",
             "## Held-out knock decisions with deadwood (log-loss in nats, 95% intervals from "
             "a bootstrap of games)", "",
             "| player | decisions | knocked | guess | log-loss | accuracy |",
             "| --- | ---: | ---: | --- | --- | ---: |"]
    for r in scores.itertuples():
        lines.append(f"| {r.group} | {r.decisions:,} | {r.knock_share:.1%} | {r.guess} | "
                     f"{r.log_loss:.4f} ({r.low:.4f}-{r.high:.4f}) | {r.accuracy:.1%} |")
    return "\n".join(lines) + "\n"
