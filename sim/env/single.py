"""The Gymnasium environment: one learning seat against strategies in the other seats."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from sim.engine.rules import Rules
from sim.env.core import ST_DECIDE, ST_EPISODE_OVER, seat_scores
from sim.env.encoding import N_ACTIONS, OBS_LEN, observation_bounds
from sim.env.env_table import EnvTable, check_rules, opponent_specs


class SingleAgentEnv(gymnasium.Env):
    """Gin with one learning seat; built-in or plain-Python strategies play the others.

    ``opponents``: one strategy for every other seat or one per other seat (names such as
    ``"simple"``, ``"greedy-knock:knock_at=6"``, ``"mypkg.bots:MyBot"``, or strategy objects,
    one per seat). ``seat``: the learner's seat (roles are drawn per game, so any seat meets
    every role). ``rules``, ``episode``, ``reward`` and ``log_path`` are those of
    :class:`sim.env.aec.raw_env`; an episode of ``"hand"`` ends after a hand the learner played
    (hands it sat out are played through). Observations are the float32 vectors of
    :mod:`sim.env.encoding`; ``info["action_mask"]`` marks the legal actions (int8). The
    opponents' moves happen inside ``step``; the reward is the learner's. An illegal action
    ends the episode with ``illegal_reward`` (see :meth:`step`).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, rules: Rules | str | Mapping[str, Any] | None = None,
                 opponents: Any = "simple", seat: int = 0, episode: str = "game",
                 reward: str = "game", log_path: str | os.PathLike[str] | None = None,
                 render_mode: str | None = None, illegal_reward: float = -1.0) -> None:
        self.illegal_reward = float(illegal_reward)
        self.rules = check_rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not valid: expected 'ansi' or "
                             "None")
        self.render_mode = render_mode
        specs = opponent_specs(self.rules, seat, opponents)
        self.seat = int(seat)
        self._table = EnvTable(self.rules, [self.seat], specs, episode, reward, log_path)
        low, high = observation_bounds()
        self.observation_space = spaces.Box(low=low, high=high, shape=(OBS_LEN,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._table.action_mask(self.seat), "game": self._table.game}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Game 0 of ``seed``; without a seed the next hand (``episode="hand"``) or game."""
        super().reset(seed=seed)
        self._table.start(seed)
        self._table.take_rewards()  # hands played before the learner's first decision
        return self._table.observe(self.seat), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action and the opponents' moves up to its next decision.

        An illegal action (one the mask rules out) ends the episode with ``illegal_reward``
        and ``info["illegal_action"] = True``, as PettingZoo's ``TerminateIllegalWrapper``
        does; the game is abandoned (the next ``reset()`` starts the next game)."""
        if self._table.status != ST_DECIDE:
            raise ValueError("the episode is over: call reset() before step()")
        mask = self._table.action_mask(self.seat)
        if not (0 <= int(action) < N_ACTIONS and mask[int(action)]):
            self._table.abandon()
            info = self._info()
            info["illegal_action"] = True
            return self._table.observe(self.seat), self.illegal_reward, True, False, info
        status = self._table.step(int(action))
        reward = float(self._table.take_rewards()[self.seat])
        return (self._table.observe(self.seat), reward, status == ST_EPISODE_OVER, False,
                self._info())

    def render(self) -> str | None:
        """Scores and the learner's hand as text."""
        t = self._table
        scores = seat_scores(t.bufs.gs, t.players)
        return (f"game {t.game}: scores {scores}, "
                f"learner seat {self.seat}")

    def close(self) -> None:
        """Finish the hand log, if one was asked for."""
        self._table.close()
