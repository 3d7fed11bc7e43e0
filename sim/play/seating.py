"""Who sits at a game and which random streams it plays from: :class:`Lineup` and :class:`Seeds`.

A :class:`Lineup` is built once per run (the strategies resolved for the rules, the seat step's
id and parameter arrays from :func:`sim.play.step.seat_arrays`) and shared by every game of it;
:class:`Seeds` are a run's two base seeds, from which game ``g`` takes its deck stream and its
strategies' stream (``sim.engine.rng.stream_seed``), whatever the batching or the front end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.engine.rng import seed_words
from sim.engine.rules import Rules
from sim.io.specs import check_seed as check_seed
from sim.play.step import Seating, Streams, seat_arrays
from strategies.registry import StrategySpec, parse_strategies, parse_strategy, resolve


@dataclass(frozen=True)
class Seeds:
    """The two base seeds of a run: decks and strategy choices.

    Both depend on the seed alone, so every arm of an experiment plays game ``g`` from the same
    decks and the same random stream for its strategies' choices (common random numbers: an
    arm that changes only the rules is compared as closely paired as possible).
    """

    deck: np.uint64
    strategy: np.uint64

    @classmethod
    def from_seed(cls, seed: int) -> Seeds:
        """The seeds of a run (or of every arm of an experiment) with this seed."""
        return cls(seed_words(seed, 0), seed_words(seed, 1))

    def streams(self, rotate: bool = False) -> Streams:
        """The record the compiled loop takes: these seeds, games seated by the rotation if
        ``rotate``."""
        return Streams(np.uint64(self.deck), np.uint64(self.strategy), bool(rotate))


@dataclass(frozen=True)
class Lineup:
    """Who sits where, as the seat step takes it: one spec per seat (None: the caller plays
    it), the names the hand log gives the seats, and the step's arrays (built once here, for
    every game of a run: :func:`sim.play.step.seat_arrays`)."""

    specs: tuple[StrategySpec | None, ...]
    names: tuple[str, ...]
    ids: np.ndarray
    params: np.ndarray
    controlled: int  # bit mask of the seats the caller plays whatever their strategy

    @classmethod
    def of(cls, rules: Rules, strategies: Any = None, controlled: Iterable[int] = (),
           names: Sequence[str] | None = None) -> Lineup:
        """The lineup of ``strategies`` under ``rules``: a text (``"mc,simple"``), a list of
        names, specs, strategy objects or None (the caller's seat), or None for a table of
        the caller's seats only. Bare names resolve for the rules (``tuned`` under eaai plays
        ``tuned@eaai``); ValueError when the count does not fit the rules."""
        if isinstance(strategies, Lineup):
            return strategies
        if strategies is None:
            given: list[Any] = [None] * rules.players
        elif isinstance(strategies, str):
            given = parse_strategies(strategies)
        else:
            given = list(strategies)
        specs = tuple(None if s is None else resolve([parse_strategy(s)], rules)[0]
                      for s in given)
        if len(specs) != rules.players:
            raise ValueError(f"{rules.name} rules seat {rules.players} players: got "
                             f"{len(specs)} strategies")
        seats = set(controlled)
        ids, params = seat_arrays(specs, seats)
        shown = tuple(names) if names is not None else tuple(
            f"seat {s}" if spec is None else spec.text for s, spec in enumerate(specs))
        return cls(specs, shown, ids, params, sum(1 << s for s in seats))

    def seating(self, rules: np.ndarray) -> Seating:
        """The record the compiled step takes: the rules array and this lineup's arrays."""
        return Seating(rules, self.ids, self.params, int(self.controlled))

    def kernel(self, seat: int) -> Any:
        """The decision function of a compiled strategy the dispatcher does not know, which
        the object calls itself; None for every other seat."""
        spec = self.specs[seat]
        return None if spec is None or (self.controlled >> seat) & 1 else spec.kernel
