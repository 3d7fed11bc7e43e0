"""Environments for learning agents: PettingZoo, Gymnasium and a compiled vector environment.

``sim.env.env(**options)`` / ``sim.env.raw_env(**options)``: the PettingZoo AEC environment
(wrapped as PettingZoo's classic games are, or raw); ``sim.env.SingleAgentEnv``: a
``gymnasium.Env`` with one learning seat against built-in or plain-Python strategies;
``sim.env.VectorEnv``: N games stepped together inside compiled code. They need the optional
extra ``rl`` (``pip install 'ginbox[rl]'``: pettingzoo and gymnasium); the observation and
action encoding (:mod:`sim.env.encoding`) and the policy strategy (:mod:`sim.env.policy`) do
not. docs/environments.md describes them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {"env": "sim.env.aec", "raw_env": "sim.env.aec", "SingleAgentEnv": "sim.env.single",
          "VectorEnv": "sim.env.vector"}

__all__ = ["env", "raw_env", "SingleAgentEnv", "VectorEnv"]


def __getattr__(name: str) -> Any:
    """Import an environment on first use, so ``sim.env.encoding`` works without the extra."""
    if name not in _WHERE:
        raise AttributeError(f"module 'sim.env' has no attribute {name!r}")
    try:
        module = import_module(_WHERE[name])
    except ModuleNotFoundError as exc:
        if exc.name in ("pettingzoo", "gymnasium"):
            raise ImportError(f"sim.env.{name} needs {exc.name}: pip install 'ginbox[rl]'"
                              ) from None
        raise
    return getattr(module, name)
