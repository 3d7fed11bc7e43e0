"""Recorded positions as training arrays: the network's inputs and the expert's labels.

The inputs come from :func:`strategies.net.encode_batch`, the encoding inference runs, applied
to the recorded views; the labels from the records (:mod:`sim.learn.selfplay`): the index of
the move the expert played among the legal moves, the game won, the hand's result and points.
Nothing else of the deal was recorded, so nothing else can be learned from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.learn.selfplay import (
    M_GAME_WON,
    M_HAND_RESULT,
    M_MOVE,
    M_POINTS,
    M_WORLDS,
    Shard,
)
from strategies.net import MAX_LEGAL, POINTS_SCALE, action_of, encode_batch

CARD_WIDTH = 160
"""Card-input columns kept per position (the most seen in self-play is under 100)."""
HAND_WON, HAND_LOST, HAND_DRAWN = 0, 1, 2  # the hand-outcome classes, as the value heads


@dataclass
class Positions:
    """Training arrays, one row a recorded decision."""

    cards: np.ndarray  # int16 (n, CARD_WIDTH): active card inputs, padded
    dense: np.ndarray  # float32 (n, N_DENSE)
    actions: np.ndarray  # int8 (n, MAX_LEGAL): legal actions, padded with -1
    options: np.ndarray  # float32 (n, MAX_LEGAL, N_OPTION)
    played: np.ndarray  # int64 (n,): index in ``actions`` of the expert's move
    game_won: np.ndarray  # float32 (n,)
    hand: np.ndarray  # int64 (n,): HAND_WON, HAND_LOST or HAND_DRAWN
    points: np.ndarray  # float32 (n,): the hand's points over POINTS_SCALE, signed
    search_value: np.ndarray  # float32 (n,): the expert's value of the move it played (its
    # estimated chance of winning the game), or the game's outcome where it did not search

    def __len__(self) -> int:
        return len(self.played)

    @classmethod
    def concat(cls, parts: list[Positions]) -> Positions:
        """One array set of many."""
        fields = cls.__dataclass_fields__
        return cls(**{name: np.concatenate([getattr(p, name) for p in parts])
                      for name in fields})


def positions(shard: Shard) -> Positions:
    """The training arrays of one shard's records."""
    cards, dense, actions, options, counts = encode_batch(shard.views, CARD_WIDTH)
    if len(counts) and counts.max() > CARD_WIDTH:
        raise ValueError(f"a position has {counts.max()} card inputs: more than the "
                         f"{CARD_WIDTH} training keeps")
    meta = shard.meta
    chosen = np.array([action_of(int(m)) for m in meta[:, M_MOVE]], np.int8)
    hit = actions == chosen[:, None]
    if len(hit) and not hit.any(axis=1).all():
        raise ValueError("a recorded move is not among its position's legal moves")
    result = meta[:, M_HAND_RESULT]
    hand = np.where(result == 1, HAND_WON, np.where(result == 0, HAND_LOST, HAND_DRAWN))
    game_won = meta[:, M_GAME_WON].astype(np.float32)
    is_played = shard.candidates == meta[:, M_MOVE][:, None]
    searched = (meta[:, M_WORLDS] > 0) & is_played.any(axis=1)
    value = shard.values[np.arange(len(meta)), is_played.argmax(axis=1)]
    return Positions(cards=cards, dense=dense, actions=actions, options=options,
                     played=hit.argmax(axis=1).astype(np.int64), game_won=game_won,
                     hand=hand.astype(np.int64),
                     points=(meta[:, M_POINTS] / POINTS_SCALE).astype(np.float32),
                     search_value=np.where(searched, value, game_won).astype(np.float32))


def load_positions(paths: Iterable[str | Path]) -> Positions:
    """The training arrays of many shard files, in the order given."""
    parts = [positions(Shard.read(str(p))) for p in paths]
    if not parts:
        raise ValueError("no recorded positions to train on")
    return Positions.concat(parts)


assert MAX_LEGAL == 11
