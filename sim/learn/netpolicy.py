"""The network as a policy over the environments' actions: how PPO plays ``net`` in VectorEnv.

The environments (:mod:`sim.env.encoding`) answer three decisions with 108 actions: the
offer, the draw, and a discard that may be a knock ("knock and discard KD" is one action).
The network (:mod:`strategies.net`) answers the engine's four decisions one at a time, as
``net`` plays them: the offer, the draw, "knock?", the discard. At the environment's knock
decision the policy so takes two steps: knock or not, then the discard from the view the
engine shows after that answer (its decision a discard, ``knocked`` set as answered). The
action's probability is the product of the two, so PPO's ratio is exact, and the greedy
policy plays ``net``'s move at every decision.

The options of a step are the engine's legal moves in the network's order
(:func:`strategies.net.encode_batch`), and each is kept only if the environment's action mask
allows it: the mask the environment gives is the authority (tests check that the two agree).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import torch

from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)
from sim.engine.view import view_fields
from sim.env.encoding import (
    A_DISCARD,
    A_DRAW_PILE,
    A_DRAW_STOCK,
    A_KNOCK,
    A_PASS,
    A_TAKE_UPCARD,
    INDEX_OF_CARD,
    N_ACTIONS,
)
from sim.learn.data import CARD_WIDTH
from sim.learn.model import PolicyValueNet
from strategies.net import N_ACTIONS as NET_ACTIONS
from strategies.net import card_index, encode_batch

KNOCKED = 4
"""The stage kind of a discard after a knock (the other kinds are the view's decision)."""
NO_KNOCK_ANY, KNOCK_ANY = N_ACTIONS, N_ACTIONS + 1
"""Extra mask columns: some plain discard is legal, some knocking discard is legal."""


def _net_action(move: int) -> int:
    return 52 + move - MOVE_PASS


def _env_actions() -> np.ndarray:
    """The environment's action of each network action, by stage kind (-1: none)."""
    table = np.full((5, NET_ACTIONS), -1, np.int64)
    table[DEC_OFFER, _net_action(MOVE_PASS)] = A_PASS
    table[DEC_OFFER, _net_action(MOVE_DRAW_DISCARD)] = A_TAKE_UPCARD
    table[DEC_DRAW, _net_action(MOVE_DRAW_DISCARD)] = A_DRAW_PILE
    table[DEC_DRAW, _net_action(MOVE_DRAW_STOCK)] = A_DRAW_STOCK
    table[DEC_KNOCK, _net_action(MOVE_KNOCK)] = KNOCK_ANY
    table[DEC_KNOCK, _net_action(MOVE_NO_KNOCK)] = NO_KNOCK_ANY
    table[DEC_DISCARD, :52] = A_DISCARD + np.arange(52)
    table[KNOCKED, :52] = A_KNOCK + np.arange(52)
    return table


ENV_ACTION = _env_actions()
ILLEGAL = -1e9
"""The logit of an option the mask rules out: its probability is exactly 0, and unlike -inf
it keeps every gradient finite (0 times -inf in the entropy's is NaN)."""
KNOCK = _net_action(MOVE_KNOCK)
assert all(INDEX_OF_CARD[c] == card_index(c) for c in np.flatnonzero(INDEX_OF_CARD >= 0)), \
    "the network and the environments number the cards alike"


@dataclass
class Inputs:
    """The network's inputs for a batch of positions, and which options the mask allows."""

    cards: np.ndarray  # int16 (n, CARD_WIDTH): active card inputs, padded
    counts: np.ndarray  # int32 (n,): how many card inputs each row has
    dense: np.ndarray  # float32 (n, N_DENSE)
    actions: np.ndarray  # int8 (n, MAX_LEGAL): the options' network actions, -1 padded
    options: np.ndarray  # float32 (n, MAX_LEGAL, N_OPTION)
    legal: np.ndarray  # bool (n, MAX_LEGAL): options the environment's mask allows
    env: np.ndarray  # int64 (n, MAX_LEGAL): each option's environment action (-1: none)

    def __len__(self) -> int:
        return len(self.counts)

    def take(self, rows: np.ndarray) -> Inputs:
        return Inputs(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    @classmethod
    def concat(cls, parts: list[Inputs]) -> Inputs:
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                      for f in fields(cls)})


def encode(views: np.ndarray, masks: np.ndarray, kinds: np.ndarray) -> Inputs:
    """The inputs of positions (view arrays) of the given stage kinds, masked by the
    environment's action masks (one row each)."""
    cards, dense, actions, options, counts = encode_batch(views, CARD_WIDTH)
    if len(counts) and counts.max() > CARD_WIDTH:
        raise ValueError(f"a position has {counts.max()} card inputs: more than {CARD_WIDTH}")
    extended = np.concatenate([masks.astype(np.bool_),
                               masks[:, A_DISCARD:A_KNOCK].any(axis=1, keepdims=True),
                               masks[:, A_KNOCK:].any(axis=1, keepdims=True)], axis=1)
    env = ENV_ACTION[kinds[:, None], np.maximum(actions, 0)]
    env = np.where(actions >= 0, env, -1)
    rows = np.arange(len(views))[:, None]
    legal = (env >= 0) & extended[rows, np.maximum(env, 0)]
    return Inputs(cards, counts, dense, actions, options, legal, env)


def forward(model: PolicyValueNet, inputs: Inputs) -> tuple[torch.Tensor, torch.Tensor]:
    """The masked logits (illegal options at :data:`ILLEGAL`) and the raw value heads of a
    batch; the critic's loss trains the shared trunk, as in CleanRL's PPO."""
    width = max(1, int(inputs.counts.max())) if len(inputs) else 1
    cards = torch.from_numpy(inputs.cards[:, :width].astype(np.int64))
    actions = torch.from_numpy(inputs.actions.astype(np.int64))
    logits, values = model(cards, torch.from_numpy(inputs.dense), actions,
                           torch.from_numpy(inputs.options), hand_trains_trunk=True)
    return logits.masked_fill(~torch.from_numpy(inputs.legal), ILLEGAL), values


def state_value(values: torch.Tensor, objective: str) -> torch.Tensor:
    """PPO's critic, read from the network's value heads (``POINTS_SCALE`` of
    :mod:`strategies.net`). ``"hand"``: the hand's expected
    margin over ``POINTS_SCALE`` points (chance of winning it times the points of a won hand,
    minus the same for a lost one); ``"game"``: the game's expected outcome, +1 a win and -1 a
    loss (from the log-odds of winning)."""
    if objective == "game":
        return torch.tanh(values[:, 0] / 2)
    outcome = torch.softmax(values[:, 1:4], dim=1)
    return outcome[:, 0] * values[:, 4] - outcome[:, 1] * values[:, 5]


def choose(logits: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
    """An option per row: sampled from the softmax (Gumbel-max with ``rng``), or the first of
    highest logit (``rng`` None: greedy, ``net``'s choice)."""
    if rng is not None:
        logits = logits + rng.gumbel(size=logits.shape).astype(logits.dtype)
    return logits.argmax(axis=1)


@dataclass
class Decisions:
    """The policy's choices at the decisions of one step of the environments (or many)."""

    first: Inputs  # the decision the environment asks
    first_slot: np.ndarray  # int64: the option chosen there
    second: Inputs  # the discard after "knock?" (rows of first whose kind is DEC_KNOCK)
    second_slot: np.ndarray
    parent: np.ndarray  # int64: the row of first each row of second belongs to
    log_prob: np.ndarray  # float32: log probability of the whole action (both stages)
    value: np.ndarray  # float32: the critic at the decision

    @classmethod
    def concat(cls, parts: list[Decisions]) -> Decisions:
        offsets = np.cumsum([0] + [len(p.first) for p in parts[:-1]])
        return cls(Inputs.concat([p.first for p in parts]),
                   np.concatenate([p.first_slot for p in parts]),
                   Inputs.concat([p.second for p in parts]),
                   np.concatenate([p.second_slot for p in parts]),
                   np.concatenate([p.parent + o for p, o in zip(parts, offsets, strict=True)]),
                   np.concatenate([p.log_prob for p in parts]),
                   np.concatenate([p.value for p in parts]))


def _log_softmax(logits: torch.Tensor, slots: np.ndarray) -> torch.Tensor:
    return torch.log_softmax(logits, dim=1)[torch.arange(len(slots)), torch.from_numpy(slots)]


@torch.no_grad()
def act(model: PolicyValueNet, views: np.ndarray, masks: np.ndarray, objective: str,
        rng: np.random.Generator | None) -> tuple[np.ndarray, np.ndarray, Decisions]:
    """The environment actions of a batch of rows (view arrays and masks; 0 for a row with
    no legal action), the rows that decided, and the decisions for PPO's update. ``rng``
    None plays greedily."""
    rows = np.flatnonzero(masks.any(axis=1))
    views, masks = views[rows], masks[rows]
    kinds = view_fields(views).decision
    first = encode(views, masks, kinds)
    logits, values = forward(model, first)
    first_slot = choose(logits.numpy(), rng)
    log_prob = _log_softmax(logits, first_slot)
    chosen = first.actions[np.arange(len(rows)), first_slot].astype(np.int64)
    actions = ENV_ACTION[kinds, chosen]
    parent = np.flatnonzero(kinds == DEC_KNOCK)
    after = views[parent].copy()  # the view once "knock?" is answered
    knocked = chosen[parent] == KNOCK
    answered = view_fields(after)
    answered.decision = DEC_DISCARD
    answered.knocked = knocked
    second = encode(after, masks[parent], np.where(knocked, KNOCKED, DEC_DISCARD))
    second_slot = np.zeros(0, np.int64)
    if len(parent):
        logits2, _ = forward(model, second)
        second_slot = choose(logits2.numpy(), rng)
        log_prob[parent] += _log_softmax(logits2, second_slot)
        actions[parent] = second.env[np.arange(len(parent)), second_slot]
    decisions = Decisions(first, first_slot, second, second_slot, parent,
                          log_prob.numpy().astype(np.float32),
                          state_value(values, objective).numpy().astype(np.float32))
    return actions, rows, decisions


def evaluate(model: PolicyValueNet, batch: Decisions, rows: np.ndarray, objective: str
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Log probability of the chosen actions, entropy (of the first stage plus the second's
    on the branch taken) and critic value, with gradients, for ``rows`` (sorted) of
    ``batch``."""
    logits, values = forward(model, batch.first.take(rows))
    logp_all = torch.log_softmax(logits, dim=1)
    slots = torch.from_numpy(batch.first_slot[rows])
    log_prob = logp_all.gather(1, slots[:, None])[:, 0]
    entropy = _entropy(logits, logp_all)
    second = np.flatnonzero(np.isin(batch.parent, rows))
    if len(second):
        where = torch.from_numpy(np.searchsorted(rows, batch.parent[second]))
        logits2, _ = forward(model, batch.second.take(second))
        logp2 = torch.log_softmax(logits2, dim=1)
        slots2 = torch.from_numpy(batch.second_slot[second])
        log_prob = log_prob.index_add(0, where, logp2.gather(1, slots2[:, None])[:, 0])
        entropy = entropy.index_add(0, where, _entropy(logits2, logp2))
    return log_prob, entropy, state_value(values, objective)


def _entropy(logits: torch.Tensor, log_probs: torch.Tensor) -> torch.Tensor:
    return -(log_probs.exp() * log_probs).sum(dim=1)
