"""Train ``mc``'s leaf evaluator (:mod:`strategies.mc_eval`) on ``tuned`` self-play.

Run: ``python -m studies.mc_eval [--chunks 4] [--hands 10000] [--seed 2026] [--ship]
[--against simple]``.

1. **Positions.** Chunk ``c`` of each reference table (``eaai``, ``three-handed``) plays
   ``--hands`` hands of ``tuned`` (the shipped set for the table) in both seats through the
   engine's hand kernels, deals from sub-stream ``c`` of the seed, and keeps every draw
   decision: the evaluator's features of the mover's view and the hand's outcome for him
   (won, lost or drawn, and the points). Chunks are saved under
   ``results/mc_eval/data/`` (atomically) and a rerun reuses the ones already there, so an
   interrupted run resumes; chunk ``--chunks`` (one past the last) is held out.
2. **Fit.** For each table (the view's player count picks its weights), four
   ridge-penalized models on the positions of its first ``k`` chunks
   (numpy only): logistic regressions (Newton's method) for the chances that the mover
   wins and that he loses, least squares for the points of his wins and of his losses
   (each on the positions of hands so decided). ``k`` runs over 1, 2, 4, ... ``--chunks``:
   the learning curve (held-out Brier score of the win and loss chances and root mean
   square error of the points) goes to ``results/mc_eval/curve.csv``.
3. **Model.** The fit on every chunk is written to ``results/mc_eval/mc_eval.npz``, with
   ``--ship`` to the shipped :data:`strategies.mc_eval.MODEL_FILE`; its ``meta`` records the
   command, seed, schedule and held-out scores.

``--against simple`` plays ``tuned`` against ``simple`` instead (a study of an evaluator
for one opponent; its chunks are saved apart, ``..._vs_simple.npy``).

Same seed and schedule, same weights (the self-play is deterministic and the fit is a
linear solve).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from sim.engine.game import shuffle_deck
from sim.engine.hand import (
    DEC_DRAW,
    DEC_OVER,
    END_DRAW,
    END_TURN_LIMIT,
    OK,
    deal,
    hand_outcome,
    held,
    to_move,
)
from sim.engine.jit import allocating, kernel
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import fill_hand_info
from sim.io.files import atomic_write, atomic_write_bytes, atomic_write_text
from sim.play.loop import play_hand, register_hooks
from sim.play.step import GameBuffers, Seating, clear_memory, new_tables, table_row
from strategies.builtin import N_PARAMS, simple_decide
from strategies.mc_eval import MODEL_FILE, MODELS, N_FEATURES, eval_features
from strategies.tuned import N_TUNED_PARAMS, load_table_set, tuned_move

TABLES = ("eaai", "three-handed")
"""The reference tables whose self-play trains the models: the two-player weights and the
three-player ones (the view's player count says which it reads)."""
MAX_DRAWS_KEPT = 48
"""Draw decisions kept per hand (a hand is rarely longer)."""
NEWTON_STEPS = 6
"""Newton steps of the logistic fits (from a constant model; converged well before)."""
RIDGE = 1e-3
"""Ridge penalty on the standardized features (times the positions)."""
AGAINST = ("tuned", "simple")
"""``tuned``'s opponents in the training positions (``--against``)."""
VERSION = 1
OUT = Path("results/mc_eval")


class PositionRecorder(NamedTuple):
    """The hooks of the one hand loop (:func:`sim.play.loop.play_hand`) that play ``tuned``
    (and ``simple`` in ``simple_seat``) and keep the features of ``tuned``'s draw
    decisions: the rows, the mover of each row of the hand, the counters (``P_*``) and the
    strategies' parameters and workspace."""

    out: np.ndarray
    movers: np.ndarray
    counters: np.ndarray
    tuned_params: np.ndarray
    tuned_scratch: np.ndarray
    simple_params: np.ndarray


P_ROWS, P_KEPT, P_SIMPLE_SEAT = range(3)
"""The recorder's counters: rows written, draw decisions kept this hand, and the seat
``simple`` plays this hand (-1: none)."""


@kernel
def _play_and_keep(rec: PositionRecorder, seating: Seating, table: GameBuffers, decision: int,
                   seat: int, move: int) -> int:
    """Keep a draw decision's features (the view, the opponent's hand), then ``tuned``'s
    move, or ``simple``'s in its seat (drawing from the hand's one stream, as the deal did)."""
    hs, view, after = table.hs, table.player_view, table.after
    mover = to_move(hs)
    c = rec.counters
    if decision == DEC_DRAW and c[P_KEPT] < MAX_DRAWS_KEPT and mover != c[P_SIMPLE_SEAT]:
        eval_features(view, held(hs, 1 - mover), rec.out[c[P_ROWS], :N_FEATURES])
        rec.movers[c[P_KEPT]] = mover
        c[P_KEPT] += 1
        c[P_ROWS] += 1
    if mover == c[P_SIMPLE_SEAT]:
        return simple_decide(decision, rec.simple_params, view, after, table.mem[mover],
                             table.rng[0:1], table.scratch)
    load_table_set(view, rec.tuned_params)
    return tuned_move(decision, rec.tuned_params, view, after, rec.tuned_scratch)


register_hooks(PositionRecorder, on_decision=_play_and_keep)


@allocating
def self_play_positions(rules: np.ndarray, players: int, target: int, hands: int,
                        seed: np.uint64, against_simple: bool = False) -> np.ndarray:
    """``hands`` hands of ``tuned`` against itself; a row per draw decision: the features
    of the mover's view, then his outcome (1 won, 0 lost, -1 drawn) and the points. With
    ``against_simple`` its opponent is ``simple`` (seat 0 in even hands, seat 1 in odd
    ones) and only ``tuned``'s draw decisions are kept: the evaluator of a search that meets
    ``simple``.

    Each hand is played alone (no game around it: every score 0), by the one hand loop with
    every seat the recorder's; hand ``g`` deals and ``simple`` draws from stream ``g`` of
    ``seed``."""
    table = table_row(new_tables(1, 0), 0)
    seating = Seating(rules, np.full(3, -1, np.int64), np.zeros((3, N_PARAMS), np.int64),
                      0b111)
    rec = PositionRecorder(np.zeros((hands * MAX_DRAWS_KEPT, N_FEATURES + 2), np.int64),
                           np.zeros(MAX_DRAWS_KEPT, np.int64), np.zeros(3, np.int64),
                           np.zeros(N_TUNED_PARAMS, np.int64), np.zeros(64, np.int64),
                           np.zeros(N_PARAMS, np.int64))
    fill_hand_info(table.game_info, target, players)
    out, c = rec.out, rec.counters
    for g in range(hands):
        table.rng[0] = stream_seed(seed, g)
        shuffle_deck(table.deck, table.rng[0:1])
        deal(table.hs, table.pile, table.deck, rules)
        clear_memory(table.mem)
        c[P_SIMPLE_SEAT] = g % 2 if against_simple else -1
        first = c[P_ROWS]
        c[P_KEPT] = 0
        decision, _, err = play_hand(seating, table, rec)
        if decision != DEC_OVER or err != OK:
            raise RuntimeError("illegal move in the evaluator's self-play")
        end, winner, points = hand_outcome(table.hs)
        drawn = end == END_DRAW or end == END_TURN_LIMIT
        for r in range(first, c[P_ROWS]):
            if drawn:
                out[r, N_FEATURES] = -1
            else:
                out[r, N_FEATURES] = 1 if winner == rec.movers[r - first] else 0
            out[r, N_FEATURES + 1] = 0 if drawn else points
    return out[:c[P_ROWS]]


def chunk(table: str, index: int, hands: int, seed: int, data: Path,
          against: str = "tuned") -> np.ndarray:
    """Chunk ``index`` of ``table``'s positions, played or read back from ``data``; with
    ``against="simple"`` they are ``tuned``'s against ``simple``."""
    vs = "" if against == "tuned" else f"_vs_{against}"
    path = data / f"{table}_{seed}_{hands}_{index}{vs}.npy"
    if path.is_file():
        return np.load(path).astype(np.int64)
    rules = Rules.preset(table)
    base = np.uint64(stream_seed(np.uint64(seed), 1000 * TABLES.index(table) + index))
    rows = self_play_positions(rules.to_array(), rules.players, rules.target, hands, base,
                               bool(vs))
    assert np.abs(rows).max() < 2 ** 15
    buffer = io.BytesIO()
    np.save(buffer, rows.astype(np.int16))  # every feature fits; a quarter of the space
    atomic_write_bytes(path, buffer.getvalue(), mkdir=True)
    return rows


def moments(rows: np.ndarray) -> np.ndarray:
    """The sufficient statistics of the four least-squares fits on ``rows``: per model,
    ``[n, sum y, sum y^2, sum x (F), sum x y (F), sum x x^T (F x F)]`` flattened. Why
    moments: chunks add up, so memory stays one chunk whatever the schedule."""
    x = rows[:, :N_FEATURES].astype(np.float64)
    outcome = rows[:, N_FEATURES]
    points = rows[:, N_FEATURES + 1].astype(np.float64)
    targets = [(np.ones(len(x), bool), (outcome == 1).astype(np.float64)),
               (np.ones(len(x), bool), (outcome == 0).astype(np.float64)),
               (outcome == 1, points), (outcome == 0, points)]
    out = np.zeros((len(MODELS), 3 + 2 * N_FEATURES + N_FEATURES * N_FEATURES))
    for m, (keep, y) in enumerate(targets):
        xm, ym = x[keep], y[keep]
        out[m, :3] = len(xm), ym.sum(), (ym * ym).sum()
        out[m, 3:3 + N_FEATURES] = xm.sum(axis=0)
        out[m, 3 + N_FEATURES:3 + 2 * N_FEATURES] = xm.T @ ym
        out[m, 3 + 2 * N_FEATURES:] = (xm.T @ xm).ravel()
    return out


def fit(stats: np.ndarray) -> np.ndarray:
    """The four models' weights (rows in ``MODELS`` order) from summed :func:`moments`:
    ridge least squares on standardized features (column 0, the bias, unpenalized), folded
    back to weights on the raw integer features."""
    f = N_FEATURES
    weights = np.zeros((len(MODELS), f))
    for m in range(len(MODELS)):
        n, sy = stats[m, 0], stats[m, 1]
        sx = stats[m, 3:3 + f]
        sxy = stats[m, 3 + f:3 + 2 * f]
        sxx = stats[m, 3 + 2 * f:].reshape(f, f)
        mean = sx[1:] / n
        cov = sxx[1:, 1:] / n - np.outer(mean, mean)
        scale = np.sqrt(np.maximum(np.diag(cov), 0.0))
        scale[scale < 1e-9] = 1.0
        zz = n * cov / np.outer(scale, scale)
        zy = (sxy[1:] - mean * sy) / scale
        beta = np.linalg.solve(zz + RIDGE * n * np.eye(f - 1), zy)
        weights[m, 1:] = beta / scale
        weights[m, 0] = sy / n - (mean / scale) @ beta
    return weights


def logistic(weights: np.ndarray, stats: np.ndarray, load: Callable[[int], np.ndarray],
             k: int) -> np.ndarray:
    """Refit the two chance models (win, loss) as ridge logistic regressions by Newton's
    method, one pass over the first ``k`` chunks (``load(c)``) per step, started from the
    least-squares weights' standardization: why, a linear chance clipped at 0 and 1 is
    miscalibrated in the tails, where the search's close decisions are."""
    f = N_FEATURES
    out = weights.copy()
    for m in (0, 1):
        n = stats[m, 0]
        mean = stats[m, 3:3 + f][1:] / n
        sxx = stats[m, 3 + 2 * f:].reshape(f, f)
        scale = np.sqrt(np.maximum(np.diag(sxx[1:, 1:] / n - np.outer(mean, mean)), 0.0))
        scale[scale < 1e-9] = 1.0
        rate = stats[m, 1] / n
        beta = np.zeros(f)  # on [1, standardized features]
        beta[0] = np.log(rate / (1 - rate))
        penalty = RIDGE * n * np.diag(np.r_[0.0, np.ones(f - 1)])
        for _ in range(NEWTON_STEPS):
            grad = -penalty @ beta
            hess = penalty.copy()
            for c in range(k):
                rows = load(c)
                z = np.c_[np.ones(len(rows)), (rows[:, 1:N_FEATURES] - mean) / scale]
                y = (rows[:, N_FEATURES] == (1 if m == 0 else 0)).astype(np.float64)
                p = 1.0 / (1.0 + np.exp(-(z @ beta)))
                grad += z.T @ (y - p)
                hess += (z * (p * (1 - p))[:, None]).T @ z
            beta = beta + np.linalg.solve(hess, grad)
        out[m, 1:] = beta[1:] / scale
        out[m, 0] = beta[0] - (mean / scale) @ beta[1:]
    return out


def chances(weights: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The models' win and loss chances on feature rows ``x`` (as
    :func:`strategies.mc_eval.hand_estimate`: logistic, the loss capped by the win)."""
    win = 1.0 / (1.0 + np.exp(-(x @ weights[0])))
    return win, np.minimum(1.0 - win, 1.0 / (1.0 + np.exp(-(x @ weights[1]))))


def scores(weights: np.ndarray, rows: np.ndarray) -> dict[str, float]:
    """Held-out scores: Brier of the win and loss chances (and of the base rate, for
    scale), root mean square error of each win's points, calibration (mean predicted minus
    observed win chance)."""
    x = rows[:, :N_FEATURES].astype(np.float64)
    outcome = rows[:, N_FEATURES]
    points = rows[:, N_FEATURES + 1]
    win, loss = chances(weights, x)
    yw, yl = outcome == 1, outcome == 0
    out = {"brier_win": float(np.mean((win - yw) ** 2)),
           "brier_win_base": float(np.var(yw)),
           "brier_loss": float(np.mean((loss - yl) ** 2)),
           "brier_loss_base": float(np.var(yl)),
           "win_bias": float(win.mean() - yw.mean())}
    for m, mask in ((2, yw), (3, yl)):
        pred = np.maximum(1.0, x[mask] @ weights[m])
        out[f"rmse_{MODELS[m]}"] = float(np.sqrt(np.mean((pred - points[mask]) ** 2)))
    return out


def train(chunks: int, hands: int, seed: int, ship: bool, out: Path = OUT,
          against: str = "tuned") -> dict[str, object]:
    """Play (or reuse) the chunks, draw the learning curve, write the model (one set of
    weights per table: two-player first); its metadata. ``against`` is ``tuned``'s opponent
    in the positions: ``tuned`` (self-play, the shipped model) or ``simple``."""
    if against not in AGAINST:
        raise ValueError(f"against must be one of {', '.join(AGAINST)}, not {against!r}")
    data = out / "data"
    curve = []
    weights = np.zeros((len(TABLES), len(MODELS), N_FEATURES))
    held = {}
    positions = 0
    for t, table in enumerate(TABLES):
        held_out = chunk(table, chunks, hands, seed, data, against)
        stats = 0.0
        k = 0
        next_point = 1

        def load(c: int, table: str = table) -> np.ndarray:
            return chunk(table, c, hands, seed, data, against)

        while k < chunks:
            rows = load(k)
            stats = stats + moments(rows)
            positions += len(rows)
            k += 1
            if k < next_point and k < chunks:
                continue
            next_point *= 2
            weights[t] = logistic(fit(stats), stats, load, k)
            curve.append({"table": table, "chunks": k, "hands": k * hands,
                          **scores(weights[t], held_out)})
            print(" ".join(f"{key}={value:.4g}" if isinstance(value, float) else
                           f"{key}={value}" for key, value in curve[-1].items()), flush=True)
        held[table] = {key: value for key, value in curve[-1].items()
                       if key not in ("table", "chunks", "hands")}
    atomic_write_text(out / "curve.csv", pd.DataFrame(curve).to_csv(index=False), mkdir=True)
    vs = "" if against == "tuned" else f" --against {against}"
    meta: dict[str, object] = {
        "version": VERSION, "command": f"python -m studies.mc_eval --chunks {chunks} "
        f"--hands {hands} --seed {seed}{vs}", "tables": list(TABLES), "seed": seed,
        "chunks": chunks, "hands_per_chunk": hands, "positions": positions, "held_out": held}
    if against != "tuned":
        meta["against"] = against
    targets = [out / "mc_eval.npz"] + ([MODEL_FILE] if ship else [])
    for path in targets:
        atomic_write(path, lambda tmp: _write_model(tmp, weights, meta), mkdir=True)
    return meta


def _write_model(tmp: Path, weights: np.ndarray, meta: dict[str, object]) -> None:
    with tmp.open("wb") as f:
        np.savez(f, weights=weights, meta=np.array(json.dumps(meta, sort_keys=True)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.mc_eval", description=__doc__)
    parser.add_argument("--chunks", type=int, default=4, help="training chunks per table")
    parser.add_argument("--hands", type=int, default=10_000, help="hands per chunk")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--ship", action="store_true",
                        help=f"also write the shipped model ({MODEL_FILE.name})")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--against", choices=AGAINST, default="tuned",
                        help="tuned's opponent in the positions: tuned (self-play, the "
                             "shipped model) or simple (only tuned's positions kept)")
    args = parser.parse_args(argv)
    if args.chunks < 1 or args.hands < 1:
        print("--chunks and --hands must be at least 1", file=sys.stderr)
        raise SystemExit(2)
    meta = train(args.chunks, args.hands, args.seed, args.ship, args.out, args.against)
    print(json.dumps(meta["held_out"]))
