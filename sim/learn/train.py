"""Training the network on recorded positions: seeded, checkpointed every epoch, resumable.

Losses: the policy's cross-entropy against the expert's move among the legal moves; the
game-won head's logistic loss; the hand's outcome (won, lost, drawn) as a three-way
cross-entropy; the points of a won or lost hand as squared error on the head of its outcome.
``value_weight`` and ``points_weight`` weigh the value parts against the policy.

Reproducible: the initial weights come from ``torch.manual_seed(seed)``, epoch ``e`` visits
the positions in the order ``numpy.random.default_rng([seed, e])`` shuffles, PyTorch runs
deterministic kernels on a fixed number of threads, and a checkpoint after each epoch holds
the model, the optimiser and the learning curve so far: a run stopped after any epoch and
resumed ends with the same weights, bit for bit, as one run straight through.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP threads must not spin

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from sim.io.files import atomic_write_bytes  # noqa: E402
from sim.learn.data import HAND_LOST, HAND_WON, Positions  # noqa: E402
from sim.learn.model import PolicyValueNet, from_flat  # noqa: E402


@dataclass(frozen=True)
class Schedule:
    """How to train: the hidden sizes, epochs, batch, optimiser settings, loss weights,
    seed and threads."""

    hidden: tuple[int, int] = (128, 64)
    epochs: int = 6
    batch: int = 512
    learning_rate: float = 0.002
    weight_decay: float = 1e-5
    value_weight: float = 1.0
    points_weight: float = 0.5
    search_target: float = 0.5
    seed: int = 0
    threads: int = 1


def _tensors(data: Positions, rows: np.ndarray, search_target: float
             ) -> tuple[torch.Tensor, ...]:
    game = (1.0 - search_target) * data.game_won[rows] + search_target * data.search_value[rows]
    return (torch.from_numpy(data.cards[rows].astype(np.int64)),
            torch.from_numpy(data.dense[rows]),
            torch.from_numpy(data.actions[rows].astype(np.int64)),
            torch.from_numpy(data.options[rows]),
            torch.from_numpy(data.played[rows]),
            torch.from_numpy(game.astype(np.float32)),
            torch.from_numpy(data.game_won[rows]),
            torch.from_numpy(data.hand[rows]),
            torch.from_numpy(data.points[rows]))


def losses(model: PolicyValueNet, batch: tuple[torch.Tensor, ...]) -> dict[str, torch.Tensor]:
    """The loss parts of a batch, and the policy's agreement with the expert; the game head
    learns ``game_won``, the outcome blended with the expert's value (:class:`Schedule`'s
    ``search_target``)."""
    cards, dense, actions, options, played, game_target, game_won, hand, points = batch
    logits, values = model(cards, dense, actions, options)
    policy = F.cross_entropy(logits, played)
    game = F.binary_cross_entropy_with_logits(values[:, 0], game_target)
    outcome = F.cross_entropy(values[:, 1:4], hand)
    won, lost = hand == HAND_WON, hand == HAND_LOST
    squared = torch.where(won, (values[:, 4] - points) ** 2,
                          torch.where(lost, (values[:, 5] + points) ** 2,
                                      torch.zeros_like(points)))
    decided = (won | lost).float()
    points_loss = (squared * decided).sum() / decided.sum().clamp(min=1.0)
    agree = (logits.argmax(dim=1) == played).float().mean()
    brier = ((torch.sigmoid(values[:, 0]) - game_won) ** 2).mean()
    return {"policy": policy, "game": game, "outcome": outcome, "points": points_loss,
            "agreement": agree, "game_brier": brier}


def _total(parts: dict[str, torch.Tensor], schedule: Schedule) -> torch.Tensor:
    return (parts["policy"] + schedule.value_weight * (parts["game"] + parts["outcome"])
            + schedule.points_weight * parts["points"])


def evaluate(model: PolicyValueNet, data: Positions, schedule: Schedule,
             batch: int = 4096) -> dict[str, float]:
    """Mean loss parts (and agreement, Brier score) over ``data``, weighted by rows."""
    sums: dict[str, float] = {}
    model.eval()
    with torch.no_grad():
        for start in range(0, len(data), batch):
            rows = np.arange(start, min(start + batch, len(data)))
            parts = losses(model, _tensors(data, rows, schedule.search_target))
            parts["total"] = _total(parts, schedule)
            for key, value in parts.items():
                sums[key] = sums.get(key, 0.0) + float(value) * len(rows)
    return {key: value / max(1, len(data)) for key, value in sums.items()}


def _setup(schedule: Schedule) -> None:
    torch.set_num_threads(schedule.threads)
    torch.use_deterministic_algorithms(True)


def train(train_data: Positions, valid_data: Positions, schedule: Schedule,
          checkpoint: Path | None = None, init: np.ndarray | None = None,
          progress: Callable[[int], None] | None = None) -> tuple[PolicyValueNet,
                                                                   list[dict[str, Any]]]:
    """Train a network; return the weights of its epoch of least held-out loss and the
    learning curve (a row per epoch: the training loss, the held-out loss parts, the
    policy's agreement with the expert on held-out positions). ``checkpoint``: a file
    written after every epoch and resumed from when it exists; ``init``: flat weights to
    start from (else fresh, from the seed); ``progress(positions)`` after every batch."""
    _setup(schedule)
    torch.manual_seed(schedule.seed)
    model = from_flat(init) if init is not None else PolicyValueNet(*schedule.hidden)
    if model.hidden != tuple(schedule.hidden):
        raise ValueError(f"the starting network has hidden sizes {model.hidden}: expected "
                         f"{tuple(schedule.hidden)}")
    optimiser = torch.optim.Adam(model.parameters(), lr=schedule.learning_rate,
                                 weight_decay=schedule.weight_decay)
    curve: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    first = 0
    if checkpoint is not None and checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=False)
        if state["schedule"] != schedule.__dict__ or state["rows"] != len(train_data):
            raise ValueError(f"{checkpoint}: the checkpoint was made with other settings or "
                             "data; start over without it")
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        curve, first, best = state["curve"], state["epoch"], state["best"]
    for epoch in range(first, schedule.epochs):
        model.train()
        order = np.random.default_rng([schedule.seed, epoch]).permutation(len(train_data))
        total, seen = 0.0, 0
        for start in range(0, len(order), schedule.batch):
            rows = np.sort(order[start:start + schedule.batch])
            batch = _tensors(train_data, rows, schedule.search_target)
            loss = _total(losses(model, batch), schedule)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(rows)
            seen += len(rows)
            if progress is not None:
                progress(len(rows))
        valid = evaluate(model, valid_data, schedule)
        curve.append({"epoch": epoch + 1, "train_loss": total / max(1, seen),
                      **{f"valid_{k}": v for k, v in valid.items()}})
        if best is None or valid["total"] < min(row["valid_total"] for row in curve[:-1]):
            best = {k: v.clone() for k, v in model.state_dict().items()}
        if checkpoint is not None:
            _save(checkpoint, model, optimiser, curve, epoch + 1, schedule, len(train_data),
                  best)
    if best is not None:
        model.load_state_dict(best)
    return model, curve


def _save(path: Path, model: PolicyValueNet, optimiser: torch.optim.Optimizer,
          curve: list[dict[str, Any]], epoch: int, schedule: Schedule, rows: int,
          best: dict[str, Any] | None) -> None:
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                "curve": curve, "epoch": epoch, "schedule": schedule.__dict__,
                "rows": rows, "best": best}, buffer)
    atomic_write_bytes(path, buffer.getvalue())
