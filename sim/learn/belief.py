"""``ginbox train`` with ``model = "belief"``: record, train and score the belief.

1. **Records.** Each table's ``games`` are played in chunks of ``chunk_size`` among players
   drawn from its population (:mod:`sim.learn.belief_data`), each chunk written atomically
   as it comes back from a worker, so an interrupted run resumes from the files on disk.
2. **Training.** The belief (:mod:`sim.learn.belief_model`) learns the training chunks'
   records (every ``holdout``-th chunk is held out): Adam on the binary cross-entropy of
   every unseen card, ``epochs`` passes in an order drawn from the seed, weights seeded by
   ``torch.manual_seed(seed)``, so the same file gives the same weights.
3. **Scores on the held-out chunks** (:func:`score`): log-loss per unseen card against a
   uniform guess and against ``develop``'s shaping (:func:`develop_marginals`), by table and
   by opponent, and the reliability table.

Output (``results/train/<name>``): ``training.json``, ``data/``, ``belief.npz`` (the weights
with what made them), ``curve.csv``, ``scores.csv``, ``reliability.csv`` and ``report.md``.
"""

from __future__ import annotations

import io
import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import torch
from joblib import Parallel, delayed

from sim import SOURCE_STAMP, __version__
from sim.engine.hand import HS_HAND
from sim.engine.jit import allocating
from sim.engine.rng import stream_seed
from sim.engine.view import V_ROLE, view_fields
from sim.io.files import atomic_write_bytes, atomic_write_text
from sim.learn.belief_data import BeliefShard, play_chunk
from sim.learn.belief_model import (
    BeliefData,
    BeliefNet,
    batch_tensors,
    belief_data,
    card_bits,
    masked_loss,
    predict,
    to_flat,
)
from sim.learn.belief_spec import BeliefSpec
from sim.runs.progress import Progress
from strategies.builtin import SCRATCH_LEN
from strategies.mc_worlds import S_BASE, inference, sample_world

T = TypeVar("T")
BINS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0)
"""The reliability table's bins of predicted chance."""


def _commit() -> str:
    """The code's commit, for the weights' metadata (what made them)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True,
                              cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def record_chunks(spec: BeliefSpec, out: Path, jobs: int, quiet: bool,
                  write_chunk: Callable[[int, str, int, Path], None]) -> list[Path]:
    """Have ``write_chunk(table_index, table, chunk, path)`` write every chunk not yet on
    disk, in ``jobs`` workers, with a progress bar of chunks on stderr; return every chunk
    file, in order."""
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    todo, paths = [], []
    for t, table in enumerate(spec.tables):
        for chunk in range(spec.chunks):
            path = data / f"{table}-{chunk:05d}.npz"
            paths.append(path)
            if not path.exists():
                todo.append((t, table, chunk, path))
    if not quiet:
        print(f"recording {len(todo)} of {len(paths)} chunks", flush=True)
    bar = Progress("recording", len(paths), len(paths) - len(todo), quiet, unit="chunks")
    for _ in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(write_chunk)(*task) for task in todo):
        bar.update(1)
    bar.close()
    return paths


def split_chunks(spec: BeliefSpec, paths: list[Path], read: Callable[[Path], T]
                 ) -> tuple[list[T], list[T]]:
    """The chunk files read, as the training chunks and the held-out ones."""
    train_shards: list[T] = []
    held: list[T] = []
    for path in paths:
        chunk = int(path.stem.rsplit("-", 1)[1])
        (held if spec.is_holdout(chunk) else train_shards).append(read(path))
    return train_shards, held


def recorded_run(spec: BeliefSpec, out: str | Path | None, jobs: int, quiet: bool,
                 record_run: Callable[[BeliefSpec, Path, int, bool], list[Path]],
                 read: Callable[[Path], T]) -> tuple[Path, float, list[T], list[T]]:
    """A run's start: its folder (``out``, or ``results/train/<name>``) with
    ``training.json``, the clock, and the chunks ``record_run`` left on disk, read and split
    into the training chunks and the held-out ones."""
    folder = Path(out) if out else Path("results") / "train" / spec.name
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / "training.json", json.dumps(spec.to_dict(), indent=2) + "\n")
    started = time.time()
    train_shards, held = split_chunks(spec, record_run(spec, folder, jobs, quiet), read)
    return folder, started, train_shards, held


def cosine_rate(optimiser: torch.optim.Optimizer, spec: BeliefSpec, epoch: int) -> None:
    """Set epoch ``epoch``'s learning rate: ``learning_rate`` decaying to zero by a cosine."""
    for group in optimiser.param_groups:
        group["lr"] = spec.learning_rate * 0.5 * (1 + np.cos(np.pi * (epoch - 1) / spec.epochs))


def weights_file(key: str, weights: np.ndarray, spec: BeliefSpec, started: float,
                 facts: dict[str, Any]) -> bytes:
    """The weights file: the flat weights under ``key`` and, as JSON (no pickles), what made
    them (the command, the file, the seed, the commit, ``facts`` and the time taken)."""
    meta = {"command": "ginbox train", "training": spec.to_dict(), "seed": spec.seed, **facts,
            "version": __version__, "source_stamp": SOURCE_STAMP, "commit": _commit(),
            "seconds": round(time.time() - started, 1)}
    buffer = io.BytesIO()
    arrays = {key: weights, "meta": np.array(json.dumps(meta))}
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]  # numpy types **kwds as allow_pickle
    return buffer.getvalue()


def record(spec: BeliefSpec, out: Path, jobs: int, quiet: bool = False) -> list[Path]:
    """Play every chunk not yet on disk; return every chunk file, in order."""
    def one(t: int, table: str, chunk: int, path: Path) -> None:
        games = min(spec.chunk_size, spec.games - chunk * spec.chunk_size)
        shard = play_chunk(spec.seed, table, t, chunk, spec.chunk_size,
                           spec.population[table], spec.every)
        if games < spec.chunk_size:  # the last chunk keeps only its own games
            keep = shard.meta[:, 0] < chunk * spec.chunk_size + games
            shard = BeliefShard(shard.table, shard.lineup, shard.views[keep],
                                shard.hands[keep], shard.meta[keep], games)
        atomic_write_bytes(path, shard.to_bytes())

    return record_chunks(spec, out, jobs, quiet, one)


def train(spec: BeliefSpec, train_data: BeliefData, valid: BeliefData,
          quiet: bool = False) -> tuple[BeliefNet, list[dict[str, float]]]:
    """Train the belief; return it and its learning curve (held-out loss per epoch)."""
    torch.set_num_threads(spec.threads)
    torch.manual_seed(spec.seed)
    model = BeliefNet(spec.hidden)
    optimiser = torch.optim.Adam(model.parameters(), lr=spec.learning_rate,
                                 weight_decay=spec.weight_decay)
    order = np.random.default_rng(spec.seed)
    curve = []
    for epoch in range(1, spec.epochs + 1):
        model.train()
        cosine_rate(optimiser, spec, epoch)
        perm = order.permutation(len(train_data))
        total, batches = 0.0, 0
        for start in range(0, len(perm), spec.batch):
            cards, dense, features, held, unseen = batch_tensors(
                train_data, perm[start:start + spec.batch])
            loss = masked_loss(model(cards, dense, features), held, unseen)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach())
            batches += 1
        p = predict(model, valid)
        row = {"epoch": epoch, "train_loss": total / max(1, batches),
               "valid_loss": float(_log_loss(p, valid).sum() / valid.unseen.sum())}
        curve.append(row)
        if not quiet:
            print(f"epoch {epoch}: train {row['train_loss']:.4f}, held-out "
                  f"{row['valid_loss']:.4f}", flush=True)
    return model, curve


def _log_loss(p: np.ndarray, data: BeliefData) -> np.ndarray:
    """Per-card log-loss (nats) of chances ``p`` on the unseen cards, 0 elsewhere."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    loss = -(data.held * np.log(p) + (1 - data.held) * np.log(1 - p))
    return loss * data.unseen


def uniform_chances(data: BeliefData) -> np.ndarray:
    """Every unseen card alike: his unknown cards over the unseen cards."""
    seen = view_fields(data.views)
    known = seen.opp_took & ~seen.pile_mask & ~seen.hand
    need = 10 - card_bits(known).sum(1)
    chance = need / np.maximum(data.unseen.sum(1), 1)
    return np.repeat(chance[:, None], 52, axis=1)


@allocating
def develop_marginals(views: np.ndarray, develop: int, samples: int,
                      seed: np.uint64) -> np.ndarray:
    """Each card's share of the opponent's hands in ``samples`` worlds ``mc`` would draw for
    each view with ``develop`` (uniform draws, the hand of least deadwood kept; no belief),
    by card code: the chances ``develop``'s shaping implies."""
    n = views.shape[0]
    out = np.zeros((n, 64), np.float64)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    for r in range(n):
        for k in range(samples):
            sample_world(views[r], scratch, stream_seed(seed, r * samples + k),
                         inference(develop=develop))
            m = scratch[S_BASE + HS_HAND + 1 - views[r, V_ROLE]]
            for c in range(64):
                if (m >> c) & 1:
                    out[r, c] += 1.0
    return out / samples


def develop_chances(data: BeliefData, develop: int, samples: int, seed: int) -> np.ndarray:
    """:func:`develop_marginals` by card index, shrunk toward the uniform guess by two worlds'
    weight (a card no world dealt him keeps a chance above zero)."""
    counts = develop_marginals(data.views, develop, samples, np.uint64(seed))
    codes = np.array([suit * 16 + rank for suit in range(4) for rank in range(13)])
    shares = counts[:, codes]
    return (shares * samples + 2 * uniform_chances(data)) / (samples + 2)


def cluster_interval(loss: np.ndarray, cards: np.ndarray, game: np.ndarray,
                      seed: int) -> tuple[float, float, float]:
    """Mean of ``loss`` per card and its 95% interval from a bootstrap of the games (2,000
    resamples; the cards of one game are not independent)."""
    keys, inverse = np.unique(game, return_inverse=True)
    sums = np.bincount(inverse, loss, len(keys))
    counts = np.bincount(inverse, cards, len(keys))
    draw = np.random.default_rng(seed)
    picks = draw.integers(0, len(keys), (2000, len(keys)))
    boot = sums[picks].sum(1) / counts[picks].sum(1)
    return (float(sums.sum() / counts.sum()), float(np.quantile(boot, 0.025)),
            float(np.quantile(boot, 0.975)))


def score(chances: dict[str, np.ndarray], data: BeliefData, groups: dict[str, np.ndarray],
          seed: int) -> pd.DataFrame:
    """Log-loss per unseen card (nats) of each guess in ``chances``, in each group of rows
    (``groups``: a name and a boolean mask), with the difference to the first guess; 95%
    intervals from a bootstrap of the games."""
    rows = []
    names = list(chances)
    losses = {name: _log_loss(p, data).sum(1) for name, p in chances.items()}
    cards = data.unseen.sum(1).astype(np.float64)
    for group, keep in groups.items():
        if not keep.any():
            continue
        for name in names:
            mean, low, high = cluster_interval(losses[name][keep], cards[keep],
                                                data.game[keep], seed)
            diff = cluster_interval(losses[name][keep] - losses[names[0]][keep], cards[keep],
                                     data.game[keep], seed)
            rows.append({"group": group, "guess": name, "positions": int(keep.sum()),
                         "cards": int(cards[keep].sum()), "log_loss": mean, "low": low,
                         "high": high, "vs_" + names[0]: diff[0], "vs_low": diff[1],
                         "vs_high": diff[2]})
    return pd.DataFrame(rows)


def reliability(p: np.ndarray, data: BeliefData) -> pd.DataFrame:
    """The reliability table: per bin of predicted chance, the unseen cards in it, their
    mean predicted chance and the share the opponent held (95% Wilson interval)."""
    scored = data.unseen.astype(bool)
    pred, held = p[scored], data.held[scored].astype(np.float64)
    rows = []
    for low, high in zip(BINS[:-1], BINS[1:], strict=True):
        keep = (pred >= low) & ((pred < high) | (high == 1.0))
        n = int(keep.sum())
        if n == 0:
            continue
        share = float(held[keep].mean())
        z = 1.959964
        centre = (share + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        rows.append({"bin": f"{low:.2f}-{high:.2f}", "cards": n,
                     "predicted": float(pred[keep].mean()), "held": share,
                     "held_low": centre - half, "held_high": centre + half})
    return pd.DataFrame(rows)


def run_belief_training(spec: BeliefSpec, out: str | Path | None = None, jobs: int = 1,
                        quiet: bool = False, score_rows: int = 100_000) -> Path:
    """Record, train and score (see the module docstring); return the output folder."""
    folder, started, train_shards, held_shards = recorded_run(spec, out, jobs, quiet, record,
                                                              BeliefShard.read)
    train_data = belief_data(train_shards, spec.tables)
    held = belief_data(held_shards, spec.tables)
    if not quiet:
        print(f"training on {len(train_data):,} positions, {len(held):,} held out", flush=True)
    model, curve = train(spec, train_data, held, quiet)
    weights = to_flat(model)
    pd.DataFrame(curve).to_csv(folder / "curve.csv", index=False)
    # the scores: every guess on the same held-out positions (whole games, in order)
    keys, counts = np.unique(held.game, return_counts=True)
    take = keys[:max(1, int(np.searchsorted(np.cumsum(counts), score_rows)))]
    sample = held.rows(np.isin(held.game, take))
    chances = {"uniform": uniform_chances(sample),
               "develop=40": develop_chances(sample, 40, 64, spec.seed),
               "belief": predict(model, sample)}
    groups = {"all": np.ones(len(sample), bool)}
    for t, table in enumerate(spec.tables):
        groups[table] = sample.table == t
        for i, name in enumerate(spec.population[table]):
            groups[f"{table} vs {name}"] = (sample.table == t) & (sample.opponent == i)
    scores = score(chances, sample, groups, spec.seed)
    scores.to_csv(folder / "scores.csv", index=False)
    table = reliability(chances["belief"], sample)
    table.to_csv(folder / "reliability.csv", index=False)
    buffer = weights_file("belief", weights, spec, started,
                          {"positions": len(train_data), "held_out": len(held), "curve": curve})
    atomic_write_bytes(folder / "belief.npz", buffer)
    report = _report(spec, curve, scores, table, len(train_data), len(held))
    atomic_write_text(folder / "report.md", report)
    return folder


def _report(spec: BeliefSpec, curve: list[dict[str, float]], scores: pd.DataFrame,
            table: pd.DataFrame, positions: int, held: int) -> str:
    """``report.md``: the scores and the reliability table, as the command prints them."""
    lines = [f"# Belief `{spec.name}`", "",
             f"Trained on {positions:,} positions ({held:,} held out), seed {spec.seed}; "
             f"held-out loss {curve[-1]['valid_loss']:.4f} nats per unseen card.", "",
             "## Log-loss per unseen card (nats, 95% intervals from a bootstrap of games)", "",
             "| positions | guess | log-loss | vs uniform |", "| --- | --- | --- | --- |"]
    for r in scores.itertuples():
        lines.append(f"| {r.group} | {r.guess} | {r.log_loss:.4f} ({r.low:.4f}-{r.high:.4f}) "
                     f"| {r.vs_uniform:+.4f} ({r.vs_low:+.4f} to {r.vs_high:+.4f}) |")
    lines += ["", "## Reliability (the belief on the held-out positions)", "",
              "| predicted | cards | mean predicted | share held (95%) |",
              "| --- | ---: | ---: | --- |"]
    for r in table.itertuples():
        lines.append(f"| {r.bin} | {r.cards:,} | {r.predicted:.3f} | {r.held:.3f} "
                     f"({r.held_low:.3f}-{r.held_high:.3f}) |")
    return "\n".join(lines) + "\n"
