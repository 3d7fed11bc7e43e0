"""The PettingZoo AEC environment: every seat an agent, the way PettingZoo's classic games are.

``raw_env(**options)`` is the environment itself; ``env(**options)`` wraps it as PettingZoo's
classic environments are wrapped (an illegal action ends the game with reward -1 for the
offender, out-of-bounds actions are asserted, and the API order is enforced). Options:

* ``rules``: a preset name (``"three-handed"``, ``"eaai"``, ...), a ``Rules`` or a mapping of
  rules fields (``{"preset": "eaai", "gin_bonus": 20}``);
* ``episode``: ``"game"`` (default; to the target score) or ``"hand"`` (one hand; the next
  ``reset()`` without a seed deals the game's next hand, a new game once it is over);
* ``reward``: ``"game"`` (default; +1 for the winner and -1 for every other seat at the end
  of the game, 0 otherwise), ``"points"`` (hand points as scored, to the seat that scored
  them, plus any end-of-game bonuses) or ``"margin"`` (the same, and minus the hand's points
  to the other player of the hand);
* ``log_path``: write the hand log (the format of ``ginbox play --log``) there; it appears,
  complete, when the environment is closed;
* ``render_mode``: ``"ansi"`` or ``"human"`` (the last hand as text).

Agents are ``seat_0``, ``seat_1`` (and ``seat_2``). In three-handed play the seat sitting out
has no move, unless the rules' team policy is ``"advisor"``: then the sitter decides for the
captain, and the captain has none.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from sim.engine.rules import Rules
from sim.env.core import ST_EPISODE_OVER, seat_scores
from sim.env.encoding import N_ACTIONS, OBS_LEN, observation_bounds
from sim.env.env_table import EnvTable, check_rules


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for it)
    """Gin for two or three players as a PettingZoo AEC environment (see the module doc)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "ginbox_gin_v0",
                "is_parallelizable": False}

    def __init__(self, rules: Rules | str | Mapping[str, Any] | None = None,
                 episode: str = "game", reward: str = "game",
                 log_path: str | os.PathLike[str] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = check_rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not valid: expected one of "
                             + ", ".join(self.metadata["render_modes"]) + ", or None")
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{s}" for s in range(self.rules.players)]
        self.agents = self.possible_agents[:]
        self._table = EnvTable(self.rules, range(self.rules.players),
                            [None] * self.rules.players, episode, reward, log_path)
        low, high = observation_bounds()
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(low=low, high=high, shape=(OBS_LEN,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        return {"observation": self._table.observe(seat),
                "action_mask": self._table.action_mask(seat)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode: game 0 of ``seed``, or without a seed the next hand or game."""
        self._table.start(seed)
        self.agents = self.possible_agents[:]
        self._no_rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards = self._no_rewards.copy()
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._table.seat]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        table = self._table
        # a live agent's action is an int (None is PettingZoo's dead step, handled above)
        status = table.step(int(action))  # type: ignore[arg-type]
        if table.env.rewards.any():  # a hand ended: someone scored, or the game is over
            self.rewards = dict(zip(self.possible_agents,
                                    table.take_rewards().tolist(), strict=False))
        else:
            self.rewards = self._no_rewards.copy()
        if status == ST_EPISODE_OVER:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self._table.seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The game's position as text: scores, and whose decision it is."""
        table = self._table
        scores = ", ".join(f"seat_{s} {v}"
                           for s, v in enumerate(seat_scores(table.bufs.gs, table.players)))
        lines = [f"game {table.game}, hand {int(table.env_state.hand)}: scores {scores}"]
        if not all(self.terminations.values()):
            lines.append(f"{self.agent_selection} to decide")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Finish the hand log, if one was asked for."""
        self._table.close()


#: The options :func:`env` passes on to :class:`raw_env`: its keyword arguments.
OPTIONS: tuple[str, ...] = tuple(inspect.signature(raw_env).parameters)


def env(**options: Any) -> AECEnv:
    """The wrapped AEC environment, as PettingZoo's classic games wrap theirs (an unknown
    option is a one-line ValueError naming the accepted ones)."""
    unknown = [name for name in options if name not in OPTIONS]
    if unknown:
        raise ValueError(f"{unknown[0]}={options[unknown[0]]!r} is not an option of "
                         f"sim.env.env: expected {', '.join(OPTIONS)}")
    wrapped: AECEnv = raw_env(**options)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped

