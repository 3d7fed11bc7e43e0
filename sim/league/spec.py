"""The league file: which strategies meet under which rules, and the tables that design gives.

A league is a TOML file (or a dict) with a name, a seed, games per table, the rules and the
strategies; :func:`load_league` validates it and :meth:`LeagueSpec.tables` lists the tables:

* two players: every ordered pairing ``[a, b]`` (a != b), seats rotated, so with paired deals
  game g of ``[a, b]`` and game g of ``[b, a]`` are the same deal played both ways round;
* three players: every strategy alone against two copies of every other one, ``[a, b, b]``,
  plus one table of every three distinct strategies ``[a, b, c]``, seats rotated (each seat
  holds each initial role equally often).

Every table plays games 0..games-1 of the league seed's deck stream, whatever round of the
league it was played in: the games of a table never depend on which strategies were added
when.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.engine.rules import PRESETS, Rules
from sim.io.specs import (
    SEED_RANGE,
    check_int,
    check_keys,
    check_run_name,
    check_text,
    check_unique,
    load_toml,
    require_keys,
)
from sim.league.ratings import BOOTSTRAP
from sim.runs.experiment import MAX_SEED, ArmSpec, arm_rules, canonical_strategy
from strategies.registry import resolve_texts

KEYS = ("name", "seed", "games", "rules", "overrides", "strategies", "anchor", "chunk_size",
        "bootstrap", "description")
MAX_NAME = 50  # rounds are experiments named <name>-round-<k>, at most 64 characters
DEFAULT_CHUNK_SIZE = 1000
MAX_GAMES = 10_000_000
#: Games of all tables together: the ratings are fitted from every game's result in memory
#: (about 50 bytes a game), so a league is bounded rather than left to exhaust the machine.
MAX_LEAGUE_GAMES = 20_000_000


@dataclass(frozen=True)
class LeagueSpec:
    """A validated league: construct through :func:`load_league`."""

    name: str
    seed: int
    games: int
    strategies: tuple[str, ...]
    rules: str = "three-handed"
    overrides: Mapping[str, Any] = field(default_factory=dict, hash=False)
    anchor: str = "simple"
    chunk_size: int = DEFAULT_CHUNK_SIZE
    bootstrap: int = BOOTSTRAP
    description: str = ""

    @property
    def resolved_rules(self) -> Rules:
        """The rules every table plays (preset plus overrides)."""
        return _arm(self, (self.strategies[0],) * self.players).resolved_rules

    @property
    def players(self) -> int:
        """Seats at a table: 2 or 3, from the rules."""
        return spec_players(self)

    @property
    def anchor_canonical(self) -> str:
        """The anchor as the canonical text of the strategy it names."""
        return canonical_strategy(self.anchor)

    def tables(self) -> list[tuple[str, ...]]:
        """Every table of the design, as seat strategy texts (module docstring)."""
        names = self.strategies
        if self.players == 2:
            return [(a, b) for a, b in itertools.permutations(names, 2)]
        lone: list[tuple[str, ...]] = [(a, b, b) for a, b in itertools.permutations(names, 2)]
        return lone + list(itertools.combinations(names, 3))

    def replace(self, **changes: Any) -> LeagueSpec:
        """A validated copy with fields changed (``games``, ``seed``, ``strategies``...)."""
        return load_league({**self.to_dict(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """Plain values; :func:`load_league` reads them back equal."""
        return {"name": self.name, "seed": self.seed, "games": self.games,
                "rules": self.rules, "overrides": dict(self.overrides),
                "strategies": list(self.strategies), "anchor": self.anchor,
                "chunk_size": self.chunk_size, "bootstrap": self.bootstrap,
                "description": self.description}


def table_key(strategies: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """A table's identity: canonical strategy texts; a table of three distinct strategies is
    the same table in any seat order (seats are rotated)."""
    canon = tuple(canonical_strategy(s) for s in strategies)
    return tuple(sorted(canon)) if len(set(canon)) == 3 else canon


def _arm(spec: LeagueSpec, strategies: tuple[str, ...], name: str = "table") -> ArmSpec:
    return ArmSpec(name=name, strategies=strategies, rules=spec.rules,
                   overrides=dict(spec.overrides), seating="rotate")


def load_league(source: str | Path | Mapping[str, Any] | LeagueSpec) -> LeagueSpec:
    """A :class:`LeagueSpec` from a TOML path, a dict or a spec; bad input raises
    ``ValueError`` with one line naming the file, the field, the value and what is accepted."""
    if isinstance(source, LeagueSpec):
        return source
    if isinstance(source, Mapping):
        return _from_dict(source)
    if not isinstance(source, str | Path):
        raise ValueError(f"league {source!r} is not valid: expected a TOML file path or a dict")
    return load_toml(source, "league", _from_dict)


def _from_dict(data: Mapping[str, Any]) -> LeagueSpec:
    check_keys(data, KEYS, "the league")
    require_keys(data, ("name", "seed", "games", "strategies"),
                 "a league needs name, seed, games and strategies")
    name = check_run_name(data["name"], MAX_NAME)
    seed = check_int("seed", data["seed"], 0, MAX_SEED, SEED_RANGE)
    games = check_int("games", data["games"], 1, MAX_GAMES)
    chunk_size = check_int("chunk_size", data.get("chunk_size", DEFAULT_CHUNK_SIZE), 1,
                           1_000_000)
    bootstrap = check_int("bootstrap", data.get("bootstrap", BOOTSTRAP), 0, 100_000)
    rules = data.get("rules", "three-handed")
    if not isinstance(rules, str):
        raise ValueError(f"rules={rules!r} is not valid: expected a preset name, one of "
                         + ", ".join(PRESETS))
    overrides = data.get("overrides", {})
    resolved = arm_rules(rules, overrides)  # one line naming the field
    description = check_text("description", data.get("description", ""))
    raw = data["strategies"]
    if isinstance(raw, str):
        raw = [s for s in raw.split(",") if s.strip()]
    if not isinstance(raw, list | tuple) or not all(isinstance(s, str) for s in raw):
        raise ValueError(f"strategies={raw!r} is not valid: expected a list of strategy names")
    strategies = tuple(resolve_texts((s.strip() for s in raw), resolved))
    check_unique("strategies", strategies, canonical_strategy,
                 "every strategy of a league must be different")
    anchor = data.get("anchor", "simple")
    if isinstance(anchor, str):
        anchor = resolve_texts([anchor], resolved)[0]
    if (not isinstance(anchor, str)
            or canonical_strategy(anchor) not in map(canonical_strategy, strategies)):
        raise ValueError(f"anchor={anchor!r} is not one of the strategies: the anchor (default "
                         "simple) is rated 1500 and must play in the league; add it to "
                         "strategies or set anchor to one of them")
    spec = LeagueSpec(name=name, seed=seed, games=games, strategies=strategies, rules=rules,
                      overrides=dict(overrides), anchor=anchor.strip(), chunk_size=chunk_size,
                      bootstrap=bootstrap, description=description)
    if len(strategies) < 2:
        raise ValueError(f"strategies={list(strategies)!r} is not valid: a league needs at "
                         "least 2 different strategies")
    for i, text in enumerate(strategies):  # each strategy parses and fits the rules
        try:
            _arm(spec, (text,) * spec_players(spec))
        except ValueError as exc:
            message = str(exc)
            if message.startswith("strategies"):
                message = message.split(": ", 1)[-1] if "]=" in message else message
                raise ValueError(f"strategies[{i}]={text!r}: {message}") from None
            raise ValueError(message) from None
    total = len(spec.tables()) * games
    if total > MAX_LEAGUE_GAMES:
        raise ValueError(f"games={games:,} at each of {len(spec.tables())} tables makes "
                         f"{total:,} games: at most {MAX_LEAGUE_GAMES:,} in a league (its "
                         "ratings are fitted in memory); lower games or the strategies")
    return spec


def spec_players(spec: LeagueSpec) -> int:
    """Seats at the table, the overrides' ``players`` winning over the preset's."""
    return arm_rules(spec.rules, spec.overrides).players
