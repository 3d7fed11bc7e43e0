"""The network in PyTorch, for training: the same computation as :func:`strategies.net.forward`.

The first layer's card inputs are an ``EmbeddingBag`` summing one row per active input (the
compiled pass adds the same rows), the dense features a linear layer whose bias is the first
layer's; two ReLU layers; the policy logit of a legal action is its row's product with the
second hidden layer, its bias, and the option features' weights times its option features;
the value heads a linear layer (the hand's heads trained on the trunk's features without
training the trunk: see :meth:`PolicyValueNet.forward`). :func:`to_flat` and
:func:`from_flat` convert to and from the flat array the compiled code reads, and
tests/test_net.py checks the two forward passes agree on real positions.

Needs the ``learn`` extra (PyTorch, CPU); nothing else in ginbox imports this module.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from strategies.net import N_ACTIONS, N_CARD_INPUTS, N_DENSE, N_OPTION, N_VALUES, pack, unpack


class PolicyValueNet(nn.Module):
    """Policy logits over the legal actions and the value heads of :mod:`strategies.net`."""

    def __init__(self, hidden1: int = 128, hidden2: int = 64) -> None:
        super().__init__()
        self.cards = nn.EmbeddingBag(N_CARD_INPUTS + 1, hidden1, mode="sum",
                                     padding_idx=N_CARD_INPUTS)
        self.dense = nn.Linear(N_DENSE, hidden1)
        self.layer2 = nn.Linear(hidden1, hidden2)
        self.policy = nn.Embedding(N_ACTIONS, hidden2)
        self.policy_bias = nn.Embedding(N_ACTIONS, 1)
        self.option = nn.Linear(N_OPTION, 1, bias=False)
        self.values = nn.Linear(hidden2, N_VALUES)
        nn.init.normal_(self.cards.weight, std=0.05)
        with torch.no_grad():
            self.cards.weight[N_CARD_INPUTS].zero_()
        nn.init.normal_(self.policy.weight, std=0.05)
        nn.init.zeros_(self.policy_bias.weight)
        nn.init.zeros_(self.option.weight)

    @property
    def hidden(self) -> tuple[int, int]:
        return self.layer2.in_features, self.layer2.out_features

    def trunk(self, cards: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
        """The second hidden layer of a batch (cards: padded active inputs)."""
        h1 = torch.relu(self.cards(cards) + self.dense(dense))
        return torch.relu(self.layer2(h1))

    def forward(self, cards: torch.Tensor, dense: torch.Tensor, actions: torch.Tensor,
                options: torch.Tensor, hand_trains_trunk: bool = False
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits of the legal actions (``actions`` padded with -1, whose logits are -inf)
        and the raw value heads. ``hand_trains_trunk``: let the hand's heads train the
        trunk too (PPO's critic, :mod:`sim.learn.netpolicy`; the values are the same)."""
        h2 = self.trunk(cards, dense)
        legal = actions >= 0
        index = actions.clamp(min=0).long()
        logits = (self.policy(index) * h2.unsqueeze(1)).sum(-1)
        logits = logits + self.policy_bias(index).squeeze(-1) + self.option(options).squeeze(-1)
        logits = logits.masked_fill(~legal, float("-inf"))
        # the game head trains the trunk; the hand-outcome and points heads learn on its
        # features without changing them: their labels, shared by every decision of a hand,
        # taught the trunk to recognise hands (held-out loss rising from the first epoch)
        if hand_trains_trunk:
            return logits, self.values(h2)
        values = torch.cat([self.values(h2)[:, :1], self.values(h2.detach())[:, 1:]], dim=1)
        return logits, values


def to_flat(model: PolicyValueNet) -> np.ndarray:
    """The flat float32 weight array :mod:`strategies.net` plays."""
    with torch.no_grad():
        card_weights = model.cards.weight[:N_CARD_INPUTS].float().numpy()
        return pack({
            "card_weights": card_weights,
            "dense_weights": model.dense.weight.float().numpy().T,
            "bias1": model.dense.bias.float().numpy(),
            "weights2": model.layer2.weight.float().numpy().T,
            "bias2": model.layer2.bias.float().numpy(),
            "policy_weights": model.policy.weight.float().numpy(),
            "policy_bias": model.policy_bias.weight.float().numpy()[:, 0],
            "option_weights": model.option.weight.float().numpy()[0],
            "value_weights": model.values.weight.float().numpy(),
            "value_bias": model.values.bias.float().numpy(),
        })


def from_flat(net: np.ndarray) -> PolicyValueNet:
    """A model holding the weights of a flat array (to fine-tune a shipped network)."""
    t = unpack(net)
    hidden1, hidden2 = t["weights2"].shape
    model = PolicyValueNet(hidden1, hidden2)
    with torch.no_grad():
        model.cards.weight[:N_CARD_INPUTS] = torch.from_numpy(t["card_weights"].copy())
        model.cards.weight[N_CARD_INPUTS].zero_()
        model.dense.weight.copy_(torch.from_numpy(t["dense_weights"].T.copy()))
        model.dense.bias.copy_(torch.from_numpy(t["bias1"].copy()))
        model.layer2.weight.copy_(torch.from_numpy(t["weights2"].T.copy()))
        model.layer2.bias.copy_(torch.from_numpy(t["bias2"].copy()))
        model.policy.weight.copy_(torch.from_numpy(t["policy_weights"].copy()))
        model.policy_bias.weight.copy_(torch.from_numpy(t["policy_bias"][:, None].copy()))
        model.option.weight.copy_(torch.from_numpy(t["option_weights"][None, :].copy()))
        model.values.weight.copy_(torch.from_numpy(t["value_weights"].copy()))
        model.values.bias.copy_(torch.from_numpy(t["value_bias"].copy()))
    return model
