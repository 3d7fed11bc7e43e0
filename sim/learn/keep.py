"""``ginbox train`` with ``model = "keep"``: record, train and score ``mc``'s keep model.

The model (:mod:`strategies.mc_keep`) says, from what a player has shown, whether he takes
the pile's top card and which card he throws. Its data are every take of a pile card and
every discard (a knock's apart: the rules narrow it) in games among a population of players
that keep unlike each other, seated as the belief's records are
(:func:`sim.learn.belief_data.chunk_lineup`). The facts are made by the same functions the
rollouts call (:func:`strategies.mc_keep.card_facts`, :func:`strategies.mc_keep.take_facts`).

1. **Records**: each table's ``games`` in chunks of ``chunk_size``, each chunk written
   atomically as it comes back from a worker (an interrupted run resumes from the files).
2. **Training**: every ``holdout``-th chunk is held out; Adam on the cross-entropy of the
   card thrown among the legal discards plus the binary cross-entropy of the take, ``epochs``
   passes in an order drawn from the seed, weights seeded by ``torch.manual_seed(seed)``.
3. **Scores on the held-out chunks**: log-loss and accuracy of the model against the fast
   rule ``mc``'s rollouts play otherwise (its discard or take, with the chance it is right
   on the training chunks), by table and player.

Output (``results/train/<name>``): ``training.json``, ``data/``, ``keep.npz``, ``curve.csv``,
``scores.csv`` and ``report.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import torch
from numba.cpython.unsafe.numbers import trailing_zeros
from torch import nn

from sim.engine.game import GO_LEN
from sim.engine.hand import (
    AF_TIES,
    DEC_DISCARD,
    DEC_DRAW,
    DEC_OFFER,
    HS_HAND,
    HS_PHASE,
    HS_PILE_LEN,
    HS_TO_MOVE,
    MOVE_DRAW_DISCARD,
    PH_KNOCK_DISCARD,
    best_legal_after,
    deadwood_table,
    forbidden_discard,
)
from sim.engine.jit import allocating, kernel
from sim.engine.melds import pick_highest
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
from sim.learn.knock import mover_style
from sim.play.loop import play_game, register_hooks
from sim.play.step import GameBuffers, Seating, Streams, new_tables, table_row
from strategies.mc_keep import (
    C_FAST,
    N_CARD_FACTS,
    N_CARD_INPUTS,
    N_STYLE_INPUTS,
    N_TAKE_FACTS,
    N_TAKE_INPUTS,
    T_MELD,
    card_facts,
    encode_card_rows,
    encode_style_rows,
    encode_take_rows,
    pack,
    take_facts,
)
from strategies.mc_knock import N_FACTS

META = ("game", "hand", "player")
M_GAME, M_HAND, M_PLAYER = range(len(META))
ROWS_PER_GAME = 1000
"""Room for one game's takes, and as much for its discards; a game that would overflow is not
recorded."""
MOST_CARDS = 11
"""Legal discards a decision may have (an 11-card hand)."""


class KeepRecorder(NamedTuple):
    """The recorder's hooks into the one game loop: the seats' population indices, the
    records of takes and of discards, and the counters (``K_*``)."""

    who: np.ndarray
    take_style: np.ndarray
    take_facts: np.ndarray
    took: np.ndarray
    take_meta: np.ndarray
    discard_style: np.ndarray
    cards: np.ndarray
    legal: np.ndarray
    thrown: np.ndarray
    discard_meta: np.ndarray
    counters: np.ndarray


K_TAKES, K_DISCARDS, K_GAME, K_HAND, K_OVERFLOW = range(5)


@kernel
def _keep_take(rec: KeepRecorder, table: GameBuffers, decision: int, seat: int,
               move: int) -> None:
    c = rec.counters
    n = c[K_TAKES]
    if n >= rec.took.shape[0]:
        c[K_OVERFLOW] = 1
        return
    mover_style(table, rec.take_style[n])
    take_facts(table.hs, table.pile, decision, rec.take_facts[n])
    rec.took[n] = 1 if move == MOVE_DRAW_DISCARD else 0
    m = rec.take_meta[n]
    m[M_GAME], m[M_HAND], m[M_PLAYER] = c[K_GAME], c[K_HAND], rec.who[seat]
    c[K_TAKES] = n + 1


@kernel
def _keep_discard(rec: KeepRecorder, table: GameBuffers, seat: int, move: int) -> None:
    c = rec.counters
    n = c[K_DISCARDS]
    if n >= rec.thrown.shape[0]:
        c[K_OVERFLOW] = 1
        return
    hs, after = table.hs, table.after
    mover_style(table, rec.discard_style[n])
    forbidden = forbidden_discard(hs)
    best = best_legal_after(hs, after)
    fast = pick_highest(after[AF_TIES])
    deadwood_table(hs[HS_HAND + hs[HS_TO_MOVE]], forbidden, after)
    m = hs[HS_HAND + hs[HS_TO_MOVE]]
    k = 0
    while m:
        card = trailing_zeros(m)
        m &= m - 1
        if card == forbidden:
            continue
        card_facts(hs, after, card, best, fast, rec.cards[n, k])
        if card == move:
            rec.thrown[n] = k
        k += 1
    rec.legal[n] = k
    meta = rec.discard_meta[n]
    meta[M_GAME], meta[M_HAND], meta[M_PLAYER] = c[K_GAME], c[K_HAND], rec.who[seat]
    c[K_DISCARDS] = n + 1


@kernel
def _keep_move(rec: KeepRecorder, seating: Seating, table: GameBuffers, decision: int,
               seat: int, move: int) -> int:
    """At a take of a pile card, keep its facts and whether he took; at a discard (not a
    knock's), every legal discard's facts and which he threw."""
    hs = table.hs
    if (decision == DEC_OFFER or decision == DEC_DRAW) and hs[HS_PILE_LEN] > 0:
        _keep_take(rec, table, decision, seat, move)
    elif decision == DEC_DISCARD and hs[HS_PHASE] != PH_KNOCK_DISCARD:
        _keep_discard(rec, table, seat, move)
    return move


@kernel
def _next_hand(rec: KeepRecorder, seating: Seating, table: GameBuffers) -> None:
    rec.counters[K_HAND] += 1


register_hooks(KeepRecorder, on_decision=_keep_move, on_hand_end=_next_hand)


def _recorder(who: np.ndarray, games: int) -> KeepRecorder:
    rows = games * ROWS_PER_GAME
    return KeepRecorder(
        who, np.zeros((rows, N_FACTS), np.int64), np.zeros((rows, N_TAKE_FACTS), np.int64),
        np.zeros(rows, np.int64), np.zeros((rows, len(META)), np.int64),
        np.zeros((rows, N_FACTS), np.int64),
        np.zeros((rows, MOST_CARDS, N_CARD_FACTS), np.int64), np.zeros(rows, np.int64),
        np.zeros(rows, np.int64), np.zeros((rows, len(META)), np.int64), np.zeros(5, np.int64))


@allocating
def _play(seating: Seating, rec: KeepRecorder, streams: Streams, first_game: int,
          games: int) -> int:
    """Play the games into ``rec``; return the games kept (one that overflowed is dropped)."""
    table = table_row(new_tables(1, 0), 0)
    row = np.zeros(GO_LEN, np.int64)
    c = rec.counters
    kept = 0
    for i in range(games):
        takes, discards = c[K_TAKES], c[K_DISCARDS]
        c[K_GAME], c[K_HAND], c[K_OVERFLOW] = first_game + i, 0, 0
        if not play_game(seating, table, rec, streams, first_game + i, row):
            raise RuntimeError("a built-in played an illegal move")
        if c[K_OVERFLOW]:
            c[K_TAKES], c[K_DISCARDS] = takes, discards
            continue
        kept += 1
    return kept


class KeepShard(NamedTuple):
    """One chunk's records, with its table and lineup (facts stored as int16)."""

    table: str
    lineup: tuple[int, ...]
    take_style: np.ndarray
    take_facts: np.ndarray
    took: np.ndarray
    take_meta: np.ndarray
    discard_style: np.ndarray
    cards: np.ndarray
    legal: np.ndarray
    thrown: np.ndarray
    discard_meta: np.ndarray
    games: int

    def to_bytes(self) -> bytes:
        """The shard as a compressed ``.npz`` (written atomically by the caller)."""
        return shard_bytes(self._asdict())

    @classmethod
    def read(cls, path: str | Path) -> KeepShard:
        """A shard written by :meth:`to_bytes`."""
        return cls(**shard_fields(path))


def play_chunk(spec: BeliefSpec, table: str, table_index: int, chunk: int) -> KeepShard:
    """Chunk ``chunk`` of a table: its lineup drawn, its games played and recorded."""
    c = chunk_table(spec.seed, table, table_index, chunk, spec.population[table])
    games = min(spec.chunk_size, spec.games - chunk * spec.chunk_size)
    rec = _recorder(c.who, games)
    kept = _play(c.seating, rec, c.streams, chunk * spec.chunk_size, games)
    t, d = rec.counters[K_TAKES], rec.counters[K_DISCARDS]
    return KeepShard(table, tuple(c.lineup), rec.take_style[:t].astype(np.int16),
                     rec.take_facts[:t].astype(np.int16), rec.took[:t].astype(np.int8),
                     rec.take_meta[:t], rec.discard_style[:d].astype(np.int16),
                     rec.cards[:d].astype(np.int16), rec.legal[:d].astype(np.int8),
                     rec.thrown[:d].astype(np.int8), rec.discard_meta[:d], kept)


def record(spec: BeliefSpec, out: Path, jobs: int, quiet: bool = False) -> list[Path]:
    """Play every chunk not yet on disk; return every chunk file, in order."""
    def one(t: int, table: str, chunk: int, path: Path) -> None:
        atomic_write_bytes(path, play_chunk(spec, table, t, chunk).to_bytes())

    return record_chunks(spec, out, jobs, quiet, one)


class KeepData(NamedTuple):
    """Records of several chunks (facts as int64), with the table index of each row."""

    take_style: np.ndarray
    take_facts: np.ndarray
    took: np.ndarray
    take_meta: np.ndarray
    take_table: np.ndarray
    discard_style: np.ndarray
    cards: np.ndarray
    legal: np.ndarray
    thrown: np.ndarray
    discard_meta: np.ndarray
    discard_table: np.ndarray


def keep_data(shards: list[KeepShard], tables: tuple[str, ...]) -> KeepData:
    """The shards' records stacked, in order."""
    def stack(field: str, shape: tuple[int, ...]) -> np.ndarray:
        parts = [np.asarray(getattr(s, field), np.int64) for s in shards]
        return np.concatenate(parts) if parts else np.zeros((0, *shape), np.int64)

    def table_of(field: str) -> np.ndarray:
        parts = [np.full(len(getattr(s, field)), tables.index(s.table)) for s in shards]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    return KeepData(stack("take_style", (N_FACTS,)), stack("take_facts", (N_TAKE_FACTS,)),
                    stack("took", ()), stack("take_meta", (len(META),)), table_of("took"),
                    stack("discard_style", (N_FACTS,)),
                    stack("cards", (MOST_CARDS, N_CARD_FACTS)), stack("legal", ()),
                    stack("thrown", ()), stack("discard_meta", (len(META),)),
                    table_of("thrown"))


class KeepNet(nn.Module):
    """The style layer and the card's and take's weights made from it
    (:mod:`strategies.mc_keep`)."""

    def __init__(self, hidden: int = 8) -> None:
        super().__init__()
        self.style = nn.Linear(N_STYLE_INPUTS, hidden)
        self.card = nn.Parameter(torch.randn(N_CARD_INPUTS, hidden + 1) * 0.1)
        self.take = nn.Parameter(torch.randn(N_TAKE_INPUTS, hidden + 1) * 0.1)

    def _made(self, style: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.style(style))
        return torch.cat([h, torch.ones_like(h[:, :1])], 1) @ rows.T

    def card_scores(self, style: torch.Tensor, cards: torch.Tensor,
                    legal: torch.Tensor) -> torch.Tensor:
        """Each legal discard's score (``-inf`` past the legal ones): rows of ``cards`` are
        ``(decision, card, input)``."""
        scores = (cards * self._made(style, self.card)[:, None, :]).sum(-1)
        slots = torch.arange(cards.shape[1])[None, :]
        return scores.masked_fill(slots >= legal[:, None], float("-inf"))

    def take_logits(self, style: torch.Tensor, takes: torch.Tensor) -> torch.Tensor:
        """The take's log-odds."""
        return (takes * self._made(style, self.take)).sum(-1)


def to_flat(model: KeepNet) -> np.ndarray:
    """The flat float32 array :mod:`strategies.mc_keep` reads."""
    def t(x: torch.Tensor) -> np.ndarray:
        return x.detach().cpu().numpy()
    return pack(t(model.style.weight).T, t(model.style.bias), t(model.card), t(model.take))


class Encoded(NamedTuple):
    """Records as the network's float32 inputs."""

    take_style: torch.Tensor
    takes: torch.Tensor
    took: torch.Tensor
    discard_style: torch.Tensor
    cards: torch.Tensor
    legal: torch.Tensor
    thrown: torch.Tensor


def encode(data: KeepData) -> Encoded:
    """The records' inputs (:func:`strategies.mc_keep.encode_card` and kin)."""
    def f32(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, np.float32))
    cards = encode_card_rows(data.cards).reshape(len(data.thrown), MOST_CARDS, N_CARD_INPUTS)
    return Encoded(f32(encode_style_rows(data.take_style)),
                   f32(encode_take_rows(data.take_facts)), f32(data.took),
                   f32(encode_style_rows(data.discard_style)), f32(cards),
                   torch.from_numpy(data.legal), torch.from_numpy(data.thrown))


def predict(model: KeepNet, enc: Encoded) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's take logits and discard scores (``-inf`` past the legal ones)."""
    model.eval()
    with torch.no_grad():
        return (model.take_logits(enc.take_style, enc.takes).numpy(),
                model.card_scores(enc.discard_style, enc.cards, enc.legal).numpy())


def discard_loss(scores: np.ndarray, thrown: np.ndarray) -> np.ndarray:
    """Each discard's log-loss (nats): minus the log softmax of the card thrown."""
    top = scores.max(1, keepdims=True)
    log_total = top[:, 0] + np.log(np.exp(scores - top).sum(1))
    return log_total - scores[np.arange(len(thrown)), thrown]


def take_loss(logits: np.ndarray, took: np.ndarray) -> np.ndarray:
    """Each take's log-loss (nats)."""
    return np.logaddexp(0.0, logits) - took * logits


def _held_loss(model: KeepNet, enc: Encoded) -> tuple[float, float]:
    logits, scores = predict(model, enc)
    return (float(discard_loss(scores, enc.thrown.numpy()).mean()),
            float(take_loss(logits, enc.took.numpy()).mean()))


def train(spec: BeliefSpec, train_data: KeepData, valid: KeepData,
          quiet: bool = False) -> tuple[KeepNet, list[dict[str, float]]]:
    """Train the model; return it and its learning curve (held-out losses per epoch). Each
    step learns one batch of discards and one of takes, as many steps as the longer needs."""
    torch.set_num_threads(spec.threads)
    torch.manual_seed(spec.seed)
    model = KeepNet(spec.hidden)
    optimiser = torch.optim.Adam(model.parameters(), lr=spec.learning_rate,
                                 weight_decay=spec.weight_decay)
    enc, held = encode(train_data), encode(valid)
    order = np.random.default_rng(spec.seed)
    take_loss_of = nn.BCEWithLogitsLoss()
    curve = []
    for epoch in range(1, spec.epochs + 1):
        model.train()
        cosine_rate(optimiser, spec, epoch)
        discards = torch.from_numpy(order.permutation(len(enc.thrown)))
        takes = torch.from_numpy(order.permutation(len(enc.took)))
        steps = max(-(-len(discards) // spec.batch), -(-len(takes) // spec.batch))
        total = 0.0
        for step in range(steps):
            d = discards[(step * spec.batch) % max(1, len(discards)):][:spec.batch]
            t = takes[(step * spec.batch) % max(1, len(takes)):][:spec.batch]
            scores = model.card_scores(enc.discard_style[d], enc.cards[d], enc.legal[d])
            loss = nn.functional.cross_entropy(scores, enc.thrown[d]) + take_loss_of(
                model.take_logits(enc.take_style[t], enc.takes[t]), enc.took[t])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach())
        discard_held, take_held = _held_loss(model, held)
        row = {"epoch": epoch, "train_loss": total / max(1, steps),
               "valid_discard_loss": discard_held, "valid_take_loss": take_held}
        curve.append(row)
        if not quiet:
            print(f"epoch {epoch}: train {row['train_loss']:.4f}, held-out discard "
                  f"{discard_held:.4f}, take {take_held:.4f}", flush=True)
    return model, curve


def fast_rule_guesses(train_data: KeepData, held: KeepData) -> tuple[np.ndarray, np.ndarray]:
    """The fast rule's guesses, scored as chances learned on the training records: the take
    log-odds by whether the card fits a best meld, and discard scores giving the fast rule's
    card its training share of the throws and the other legal cards the rest, evenly."""
    meld = train_data.take_facts[:, T_MELD] > 0
    logits = np.zeros(len(held.took))
    held_meld = held.take_facts[:, T_MELD] > 0
    for side in (False, True):
        rate = (train_data.took[meld == side].sum() + 1) / ((meld == side).sum() + 2)
        logits[held_meld == side] = np.log(rate / (1 - rate))
    fast_thrown = train_data.cards[np.arange(len(train_data.thrown)), train_data.thrown, C_FAST]
    share = (fast_thrown.sum() + 1) / (len(fast_thrown) + 2)
    slots = np.arange(MOST_CARDS)[None, :]
    others = np.maximum(held.legal - 1, 1)[:, None]
    scores = np.where(held.cards[:, :, C_FAST] > 0, np.log(share),
                      np.log((1 - share) / others))
    return logits, np.where(slots < held.legal[:, None], scores, -np.inf)


def score(model: KeepNet, train_data: KeepData, held: KeepData, spec: BeliefSpec
          ) -> pd.DataFrame:
    """Log-loss per decision (95% interval from a bootstrap of games) and accuracy of the
    model and of the fast rule on the held-out takes and discards, by table and player."""
    model_logits, model_scores = predict(model, encode(held))
    fast_logits, fast_scores = fast_rule_guesses(train_data, held)
    guesses = {"model": (model_logits, model_scores), "fast rule": (fast_logits, fast_scores)}
    rows = []
    for kind in ("discard", "take"):
        meta = held.discard_meta if kind == "discard" else held.take_meta
        table = held.discard_table if kind == "discard" else held.take_table
        groups = {"all": np.ones(len(meta), bool)}
        for t, name in enumerate(spec.tables):
            for i, player in enumerate(spec.population[name]):
                groups[f"{name}: {player}"] = (table == t) & (meta[:, M_PLAYER] == i)
        games = meta[:, M_GAME] + 1_000_000_000 * table  # a game of each table apart
        for group, keep in groups.items():
            if not keep.any():
                continue
            for guess, (logits, scores) in guesses.items():
                if kind == "discard":
                    loss = discard_loss(scores[keep], held.thrown[keep])
                    right = scores[keep].argmax(1) == held.thrown[keep]
                else:
                    loss = take_loss(logits[keep], held.took[keep])
                    right = (logits[keep] >= 0) == (held.took[keep] > 0)
                mean, low, high = cluster_interval(loss, np.ones(len(loss)), games[keep],
                                                   spec.seed)
                rows.append({"kind": kind, "group": group, "guess": guess,
                             "decisions": int(keep.sum()), "log_loss": mean, "low": low,
                             "high": high, "accuracy": float(right.mean())})
    return pd.DataFrame(rows)


def run_keep_training(spec: BeliefSpec, out: str | Path | None = None, jobs: int = 1,
                      quiet: bool = False) -> Path:
    """Record, train and score (see the module docstring); return the output folder."""
    folder, started, train_shards, held_shards = recorded_run(spec, out, jobs, quiet, record,
                                                              KeepShard.read)
    train_data = keep_data(train_shards, spec.tables)
    held = keep_data(held_shards, spec.tables)
    counts = (len(train_data.thrown), len(train_data.took), len(held.thrown), len(held.took))
    if not quiet:
        print(f"training on {counts[0]:,} discards and {counts[1]:,} takes, {counts[2]:,} and "
              f"{counts[3]:,} held out", flush=True)
    model, curve = train(spec, train_data, held, quiet)
    pd.DataFrame(curve).to_csv(folder / "curve.csv", index=False)
    scores = score(model, train_data, held, spec)
    scores.to_csv(folder / "scores.csv", index=False)
    facts = {"discards": counts[0], "takes": counts[1], "held_out_discards": counts[2],
             "held_out_takes": counts[3], "curve": curve}
    atomic_write_bytes(folder / "keep.npz",
                       weights_file("keep", to_flat(model), spec, started, facts))
    atomic_write_text(folder / "report.md", _report(spec, curve, scores, counts))
    return folder


def _report(spec: BeliefSpec, curve: list[dict[str, float]], scores: pd.DataFrame,
            counts: tuple[int, int, int, int]) -> str:
    """``report.md``: the scores, as the command prints them."""
    last = curve[-1]
    lines = [f"# Keep model `{spec.name}`", "",
             f"Trained on {counts[0]:,} discards and {counts[1]:,} takes ({counts[2]:,} and "
             f"{counts[3]:,} held out), seed {spec.seed}; held-out loss "
             f"{last['valid_discard_loss']:.4f} nats a discard, {last['valid_take_loss']:.4f} "
             "a take.", ""]
    for kind in ("discard", "take"):
        lines += [f"## Held-out {kind}s (log-loss in nats, 95% intervals from a bootstrap of "
                  "games; accuracy: the most likely move was played)", "",
                  "| player | decisions | guess | log-loss | accuracy |",
                  "| --- | ---: | --- | --- | ---: |"]
        for r in scores[scores["kind"] == kind].itertuples():
            lines.append(f"| {r.group} | {r.decisions:,} | {r.guess} | {r.log_loss:.4f} "
                         f"({r.low:.4f}-{r.high:.4f}) | {r.accuracy:.1%} |")
        lines.append("")
    return "\n".join(lines)
