"""A trained policy as a strategy: a numpy linear or small MLP policy over the observation.

A policy is a list of layers ``(W, b)``: ``W`` of shape (inputs, outputs), ``tanh`` between
layers, the first taking the observation of :mod:`sim.env.encoding` (``OBS_LEN`` inputs), the
last giving one logit per action (``N_ACTIONS``). One layer is a linear policy. It plays the
legal action with the highest logit (or samples the masked softmax). Save it with
:func:`save_policy` and play it anywhere a strategy name goes::

    ginbox play "sim.env.policy:NumpyPolicy:path=policy.npz" random --rules eaai

The strategy builds the environments' observation from the plain-Python View it is handed
(:func:`sim.env.encoding.view_array`), with the same compiled encoder the environments use, so
a policy trained in ``VectorEnv`` sees exactly what it saw in training.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from sim.engine.hand import new_after
from sim.engine.view import View
from sim.env.encoding import (
    A_DRAW_PILE,
    A_KNOCK,
    A_TAKE_UPCARD,
    N_ACTIONS,
    OBS_LEN,
    card_of_action,
    encode_observation,
    fill_action_mask,
    view_array,
)
from sim.io.files import atomic_write_bytes, read_npz
from strategies.base import BaseStrategy

Layers = list[tuple[np.ndarray, np.ndarray]]


def check_layers(layers: Layers) -> Layers:
    """The layers as float64 arrays, checked: a ValueError names what does not fit."""
    if not layers:
        raise ValueError("a policy needs at least one layer (W, b)")
    out: Layers = []
    inputs = OBS_LEN
    for i, (w, b) in enumerate(layers):
        w = np.asarray(w, np.float64)
        b = np.asarray(b, np.float64)
        if w.ndim != 2 or w.shape[0] != inputs or b.shape != (w.shape[1],):
            raise ValueError(f"layer {i}: W has shape {w.shape} and b {b.shape}; expected W of "
                             f"shape ({inputs}, k) and b of shape (k,)")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise ValueError(f"layer {i} holds a NaN or an infinity")
        out.append((w, b))
        inputs = w.shape[1]
    if inputs != N_ACTIONS:
        raise ValueError(f"the last layer gives {inputs} outputs: expected one per action "
                         f"({N_ACTIONS})")
    return out


def save_policy(path: str | os.PathLike[str], layers: Layers) -> None:
    """Write the layers to an ``.npz`` file (``W0``, ``b0``, ``W1``, ...), atomically."""
    arrays = {}
    for i, (w, b) in enumerate(check_layers(layers)):
        arrays[f"W{i}"], arrays[f"b{i}"] = w, b
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]  # numpy types **kwds as allow_pickle
    atomic_write_bytes(Path(path), buffer.getvalue())


def load_policy(path: str | os.PathLike[str]) -> Layers:
    """The layers saved by :func:`save_policy` (a clear ValueError for anything else)."""
    try:
        data = read_npz(path)
    except OSError as exc:
        raise ValueError(f"cannot read the policy {str(path)!r}: {exc.strerror or exc}"
                         ) from None
    except ValueError as exc:
        raise ValueError(f"cannot read the policy {str(path)!r}: {exc}") from None
    layers = []
    i = 0
    while f"W{i}" in data and f"b{i}" in data:
        layers.append((data[f"W{i}"], data[f"b{i}"]))
        i += 1
    if not layers:
        raise ValueError(f"{str(path)!r} holds no policy layers (expected arrays W0, b0, ...)")
    return check_layers(layers)


def logits(layers: Layers, obs: np.ndarray) -> np.ndarray:
    """The action logits for one observation or a batch (rows)."""
    x = np.asarray(obs, np.float64)
    for i, (w, b) in enumerate(layers):
        x = x @ w + b
        if i < len(layers) - 1:
            x = np.tanh(x)
    return x


def choose(layers: Layers, obs: np.ndarray, masks: np.ndarray,
           rng: np.random.Generator | None = None) -> np.ndarray | int:
    """The legal action(s) with the highest logit; with ``rng``, sampled from the softmax
    over the legal actions instead. Works on one observation or a batch."""
    legal = np.asarray(masks) > 0
    z = np.where(legal, logits(layers, obs), -np.inf)
    if rng is None:
        return z.argmax(axis=-1)  # 0 for a row with no legal action (a finished game)
    top = z.max(axis=-1, keepdims=True)
    p = np.where(legal, np.exp(z - np.where(np.isfinite(top), top, 0.0)), 0.0)
    p[~legal.any(axis=-1)] = 1.0 / N_ACTIONS
    p /= p.sum(axis=-1, keepdims=True)
    u = rng.random(p.shape[:-1] + (1,))
    return (p.cumsum(axis=-1) < u).sum(axis=-1).clip(0, N_ACTIONS - 1)


class NumpyPolicy(BaseStrategy):
    """Plays a saved numpy policy (see the module doc): ``sim.env.policy:NumpyPolicy:path=FILE``,
    optionally ``sample=1`` to sample the softmax (from the game's random stream) instead of
    playing the best legal action."""

    name = "numpy-policy"

    def __init__(self, path: str | os.PathLike[str] | None = None, sample: str | int = 0,
                 layers: Layers | None = None) -> None:
        if layers is None:
            if path is None:
                raise ValueError("give path=FILE (a policy saved by sim.env.policy.save_policy)")
            layers = load_policy(path)
        self.layers = check_layers(layers)
        self.sample = str(sample) not in ("0", "", "False", "false")
        self._after = new_after()
        self._mask = np.zeros(N_ACTIONS, np.int8)
        self._buf = np.zeros(64, np.int64)
        self._obs = np.zeros(OBS_LEN, np.float32)
        self._card: int | None = None  # the discard chosen with a knock decision

    def observe(self, view: View) -> tuple[np.ndarray, np.ndarray]:
        """The observation and action mask the environments would give for this view."""
        arr = view_array(view)
        encode_observation(arr, self._obs, False)
        fill_action_mask(arr, self._after, self._buf, self._mask)
        return self._obs.copy(), self._mask.copy()

    def action(self, view: View) -> int:
        """The policy's action at this decision."""
        obs, mask = self.observe(view)
        return int(choose(self.layers, obs, mask, view.rng if self.sample else None))

    def take_upcard(self, view: View) -> bool:
        return self.action(view) == A_TAKE_UPCARD

    def draw_from_discard(self, view: View) -> bool:
        return self.action(view) == A_DRAW_PILE

    def knock(self, view: View) -> bool:
        """The knock question and the discard are one action: remember the card."""
        action = self.action(view)
        self._card = int(card_of_action(action))
        return action >= A_KNOCK

    def discard(self, view: View) -> int:
        card, self._card = self._card, None
        if card is not None:
            return card
        return int(card_of_action(self.action(view)))
