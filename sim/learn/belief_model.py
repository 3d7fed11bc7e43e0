"""The belief in PyTorch, for training: the same computation as
:func:`strategies.mc_belief.belief_logits`, and the records as training arrays.

The card planes enter as a 0/1 matrix times the first layer's rows (the compiled pass adds
the same rows for the active inputs), the dense inputs as a linear layer whose bias is the
first layer's; one ReLU layer; each card's logit is its output row's product with the hidden
layer plus the per-card features (scaled by ``FEATURE_SCALE``) weighted by gates the hidden
layer computes. :func:`to_flat` gives the flat array compiled code reads; tests/test_belief.py
checks the two passes agree on recorded positions.

Needs the ``learn`` extra (PyTorch, CPU).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from sim.engine.cards import FULL_MASK
from sim.engine.view import view_fields
from sim.learn.belief_data import M_GAME, M_OPPONENT, BeliefShard
from strategies.mc_belief import (
    FEATURE_SCALE,
    N_CARD_FEATURES,
    N_CARD_INPUTS,
    N_DENSE,
    encode_batch,
    pack,
)

CODES = np.array([suit * 16 + rank for suit in range(4) for rank in range(13)], np.int64)
"""The card code of each card index (suit-major, ace first)."""


class BeliefNet(nn.Module):
    """Each card's log-odds of being in the opponent's hand (52, by card index)."""

    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.cards = nn.Linear(N_CARD_INPUTS, hidden, bias=False)
        self.dense = nn.Linear(N_DENSE, hidden)
        self.out = nn.Linear(hidden, 52)
        self.gate = nn.Linear(hidden, N_CARD_FEATURES)
        self.register_buffer("scale", torch.tensor(FEATURE_SCALE, dtype=torch.float32))
        nn.init.normal_(self.cards.weight, std=0.05)

    @property
    def hidden(self) -> int:
        return self.out.in_features

    def forward(self, cards: torch.Tensor, dense: torch.Tensor,
                features: torch.Tensor) -> torch.Tensor:
        """Logits (batch, 52) from the card matrix, the dense inputs and the unscaled
        per-card features (batch, 52, ``N_CARD_FEATURES``)."""
        h = torch.relu(self.cards(cards) + self.dense(dense))
        gates = self.gate(h) * self.scale
        return self.out(h) + torch.einsum("bck,bk->bc", features, gates)


def to_flat(model: BeliefNet) -> np.ndarray:
    """The flat float32 array :func:`strategies.mc_belief.belief_logits` reads."""
    def t(x: torch.Tensor) -> np.ndarray:
        return x.detach().cpu().numpy()
    return pack({"card_weights": t(model.cards.weight).T, "dense_weights": t(model.dense.weight).T,
                 "bias1": t(model.dense.bias), "out_weights": t(model.out.weight),
                 "out_bias": t(model.out.bias), "gate_weights": t(model.gate.weight),
                 "gate_bias": t(model.gate.bias)})


@dataclass
class BeliefData:
    """Training arrays, one row a recorded decision."""

    views: np.ndarray  # int64 (n, V_LEN): what the mover saw
    cards: np.ndarray  # uint8 (n, N_CARD_INPUTS)
    dense: np.ndarray  # float32 (n, N_DENSE)
    features: np.ndarray  # uint8 (n, 52, N_CARD_FEATURES)
    held: np.ndarray  # uint8 (n, 52): the opponent holds the card
    unseen: np.ndarray  # uint8 (n, 52): the card is unseen (his unknown cards and the stock)
    game: np.ndarray  # int64 (n,): a game key unique across tables
    opponent: np.ndarray  # int64 (n,): the opponent's index in his table's population
    table: np.ndarray  # int64 (n,): the table's index
    turn: np.ndarray  # int64 (n,)

    def __len__(self) -> int:
        return len(self.turn)

    def rows(self, keep: np.ndarray) -> BeliefData:
        """The rows ``keep`` (a boolean mask or indices)."""
        return BeliefData(**{name: getattr(self, name)[keep]
                             for name in self.__dataclass_fields__})


def card_bits(masks: np.ndarray) -> np.ndarray:
    """Masks (n,) as 0/1 by card index (n, 52), uint8."""
    return ((masks[:, None] >> CODES[None, :]) & 1).astype(np.uint8)


def belief_data(shards: Sequence[BeliefShard], tables: Sequence[str]) -> BeliefData:
    """The training arrays of shards (their tables indexed by ``tables``)."""
    parts = []
    for shard in shards:
        views = shard.views
        cards, dense, features = encode_batch(views)
        seen = view_fields(views)
        known = seen.opp_took & ~seen.pile_mask & ~seen.hand
        unseen = np.int64(FULL_MASK) & ~seen.hand & ~seen.pile_mask & ~known
        t = tables.index(shard.table)
        parts.append(BeliefData(
            views=views, cards=cards, dense=dense, features=features,
            held=card_bits(shard.hands & unseen), unseen=card_bits(unseen),
            game=shard.meta[:, M_GAME] * len(tables) + t,
            opponent=shard.meta[:, M_OPPONENT], table=np.full(len(views), t, np.int64),
            turn=seen.turn))
    if not parts:
        raise ValueError("no recorded positions to train on")
    return BeliefData(**{name: np.concatenate([getattr(p, name) for p in parts])
                         for name in BeliefData.__dataclass_fields__})


def batch_tensors(data: BeliefData, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
    """The tensors of some rows: inputs, labels and the mask of cards scored."""
    return (torch.from_numpy(data.cards[rows].astype(np.float32)),
            torch.from_numpy(data.dense[rows]),
            torch.from_numpy(data.features[rows].astype(np.float32)),
            torch.from_numpy(data.held[rows].astype(np.float32)),
            torch.from_numpy(data.unseen[rows].astype(np.float32)))


def masked_loss(logits: torch.Tensor, held: torch.Tensor, unseen: torch.Tensor) -> torch.Tensor:
    """Mean binary cross-entropy over the unseen cards."""
    loss = nn.functional.binary_cross_entropy_with_logits(logits, held, reduction="none")
    return (loss * unseen).sum() / unseen.sum().clamp(min=1.0)


def predict(model: BeliefNet, data: BeliefData, batch: int = 8192) -> np.ndarray:
    """The model's probabilities (n, 52) for every row."""
    out = np.zeros((len(data), 52), np.float64)
    model.eval()
    with torch.no_grad():
        for start in range(0, len(data), batch):
            rows = np.arange(start, min(start + batch, len(data)))
            cards, dense, features, _, _ = batch_tensors(data, rows)
            out[rows] = torch.sigmoid(model(cards, dense, features)).double().numpy()
    return out
