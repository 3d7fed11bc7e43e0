"""The tuning file: what to tune, against whom (one field or a weighted mix of several),
under which rules, for how long.

A :class:`TuneSpec` is validated on construction, so a bad file is refused with one line
naming the field, the bad value and what is accepted, before anything is played or written.
The rules, overrides and strategies are checked by the experiment loader's own
:class:`~sim.runs.experiment.ArmSpec`, so a tuning file accepts exactly what an experiment arm
accepts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from sim.engine.rules import Rules
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
from sim.runs.experiment import MAX_SEED, ArmSpec, canonical_strategy
from strategies.registry import ParamInfo, StrategySpec, parse_strategy, resolve

TOP_KEYS: tuple[str, ...] = (
    "name", "seed", "strategy", "params", "field", "fields", "weights", "rules", "overrides",
    "generations", "population", "games_per_candidate", "holdout_games", "sigma0", "chunk_size",
    "description",
)
#: Held-out games are numbered from here; training games stay below it, so the two never
#: share a deal (game g's decks derive from the seed and g alone).
HOLDOUT_FIRST_GAME = 1 << 40
MAX_GENERATIONS = 10_000
MAX_POPULATION = 1_000
MAX_GAMES = 10_000_000
MAX_FIELDS = 100


@dataclass(frozen=True)
class TuneSpec:
    """A parameter search: the strategy in seat 0, the field(s) in the other seats, the budget.

    ``field`` is one field (the strategies in the other seats); ``fields`` instead is a mix of
    several, each played on its own deals, the objective being their ``weights``-weighted mean
    win rate (equal weights by default). Exactly one of the two is given; after validation
    :attr:`fields` always holds the field(s) and :attr:`weights` their weights.
    ``population`` None means cma's default, ``4 + 3 ln(number of params)``. ``sigma0`` is the
    initial step size as a share of each parameter's range (every parameter is scaled by its
    range, so ``0.3`` means 30% of ``low..high`` whatever the units).
    """

    name: str
    seed: int
    strategy: str
    field: tuple[str, ...] = ()
    params: tuple[str, ...] | None = None
    rules: str = "three-handed"
    overrides: Mapping[str, Any] = dataclass_field(default_factory=dict, hash=False)
    generations: int = 10
    population: int | None = None
    games_per_candidate: int = 2000
    holdout_games: int = 20_000
    sigma0: float = 0.3
    chunk_size: int = 1000
    description: str = ""
    fields: tuple[tuple[str, ...], ...] = ()
    weights: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        check_run_name(self.name)
        check_int("seed", self.seed, 0, MAX_SEED, SEED_RANGE)
        if not isinstance(self.strategy, str):
            raise ValueError(f"strategy={self.strategy!r} is not valid: expected a built-in "
                             "strategy name such as 'discard-tracking'")
        mixed = self._check_fields()
        arm = None
        for index, seats in enumerate(self.fields):
            try:
                arm = ArmSpec(name=self.name, strategies=(self.strategy, *seats),
                              rules=self.rules, overrides=dict(self.overrides)
                              if isinstance(self.overrides, Mapping) else self.overrides)
            except ValueError as exc:
                raise ValueError(_rename(str(exc), index if mixed else None)) from None
        assert arm is not None
        object.__setattr__(self, "rules", arm.rules)
        object.__setattr__(self, "overrides", dict(arm.overrides))
        object.__setattr__(self, "_rules", arm.resolved_rules)
        spec = parse_strategy(self.strategy)
        if spec.info is None or not spec.compiled:
            raise ValueError(f"strategy={self.strategy!r} is not valid: expected a built-in "
                             "strategy with integer parameters (see 'ginbox strategies')")
        known = {p.name: p for p in spec.info.params}
        if not known:
            raise ValueError(f"strategy={self.strategy!r}: {spec.name} has no parameters to "
                             "tune")
        params = tuple(known) if self.params is None else self.params
        if not isinstance(params, list | tuple) or not all(isinstance(p, str) for p in params):
            raise ValueError(f"params={self.params!r} is not valid: expected a list of "
                             f"parameter names of {spec.name}: {', '.join(known)}")
        if not params:
            raise ValueError(f"params=[] names no parameter to tune: list some of "
                             f"{spec.name}'s ({', '.join(known)}), or leave params out to "
                             "tune them all")
        for name in params:
            if name not in known:
                raise ValueError(f"params: unknown parameter {name!r} for {spec.name}: it "
                                 f"takes {', '.join(known)}")
            if known[name].low >= known[name].high:
                raise ValueError(f"params: {spec.name} parameter {name} has no range to "
                                 f"search ({known[name].low}..{known[name].high})")
        if len(set(params)) != len(params):
            raise ValueError(f"params={list(params)!r} names a parameter twice")
        object.__setattr__(self, "params", tuple(params))
        check_int("generations", self.generations, 1, MAX_GENERATIONS)
        if self.population is not None:
            check_int("population", self.population, 2, MAX_POPULATION)
        check_int("games_per_candidate", self.games_per_candidate, 1, MAX_GAMES)
        check_int("holdout_games", self.holdout_games, 0, MAX_GAMES)
        check_int("chunk_size", self.chunk_size, 1, MAX_GAMES)
        if (isinstance(self.sigma0, bool) or not isinstance(self.sigma0, int | float)
                or not 0.0 < self.sigma0 <= 1.0):
            raise ValueError(f"sigma0={self.sigma0!r} is not valid: expected a number in "
                             "(0, 1], the initial step as a share of each parameter's range")
        check_text("description", self.description)

    def _check_fields(self) -> bool:
        """Validate ``field``/``fields``/``weights`` and normalise them into ``fields`` and
        ``weights``; True for the mixed form (``fields``)."""
        has_field = not (isinstance(self.field, tuple) and len(self.field) == 0)  # not ()
        has_fields = not (isinstance(self.fields, tuple) and len(self.fields) == 0)
        if has_field and has_fields:
            raise ValueError("field and fields exclude each other: field is one field, fields "
                             "a mix of several, e.g. fields = [['simple'], ['discard-tracking']]")
        if not has_fields:
            if not isinstance(self.field, list | tuple) or not self.field:
                raise ValueError(f"field={self.field!r} is not valid: expected a list of the "
                                 "strategies in the other seats, e.g. ['simple', 'simple']")
            if not (isinstance(self.weights, list | tuple) and len(self.weights) == 0):
                raise ValueError("weights needs fields: it weighs the fields of a mix, e.g. "
                                 "fields = [['simple'], ['discard-tracking']] with weights = "
                                 "[2, 1]")
            object.__setattr__(self, "field", tuple(self.field))
            object.__setattr__(self, "fields", (self.field,))
            object.__setattr__(self, "weights", (1.0,))
            return False
        fields = self.fields
        if (not isinstance(fields, list | tuple) or not 1 <= len(fields) <= MAX_FIELDS
                or not all(isinstance(f, list | tuple) and f for f in fields)):
            raise ValueError(f"fields={fields!r} is not valid: expected a list of 1..{MAX_FIELDS}"
                             " fields, each a list of the strategies in the other seats, e.g. "
                             "[['simple'], ['discard-tracking']]")
        fields = tuple(tuple(f) for f in fields)
        check_unique("fields", [list(f) for f in fields],
                     lambda f: tuple(canonical_strategy(s) if isinstance(s, str) else s
                                     for s in f),
                     "the same strategies, so the same field: give it a larger weight "
                     "instead (weights = [...])")
        weights = self.weights
        if isinstance(weights, list | tuple) and len(weights) == 0:
            weights = (1.0,) * len(fields)
        if (not isinstance(weights, list | tuple) or len(weights) != len(fields)
                or not all(_is_weight(w) for w in weights)):
            raise ValueError(f"weights={weights!r} is not valid: expected {len(fields)} "
                             "positive numbers, one per field (default: equal)")
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "weights", tuple(float(w) for w in weights))
        return True

    # ------------------------------------------------------------------ derived values

    @property
    def mixed(self) -> bool:
        """Written with ``fields`` (a mix, reported field by field) rather than ``field``."""
        return not self.field

    def field_seed(self, index: int) -> int:
        """The seed of field ``index``'s deals: the tune's seed for the first field (so a
        one-field tune plays what it always did), one derived from the seed and the index for
        the others, so adding a field leaves the others' deals alone."""
        if index == 0:
            return self.seed
        words = np.random.SeedSequence([self.seed, 0x6669656C64, index]).generate_state(
            1, np.uint64)
        return int(words[0]) & MAX_SEED

    def objective(self, wins: list[int] | tuple[int, ...], games: int) -> Fraction:
        """The weighted mean win rate of ``wins[i]`` out of ``games`` against each field,
        exactly (a fraction: ranking candidates never depends on rounding)."""
        shares = [Fraction(w) for w in self.weights]
        total = sum(s * Fraction(k, games) for s, k in zip(shares, wins, strict=True))
        return Fraction(total / sum(shares))

    @property
    def resolved_rules(self) -> Rules:
        """The rules every game is played under (preset plus overrides)."""
        return self._rules  # type: ignore[attr-defined]  # set in __post_init__ (frozen)

    @property
    def base(self) -> StrategySpec:
        """The strategy as written, as it plays under the rules: the baseline, and the
        start of the search."""
        return resolve([self.strategy], self.resolved_rules)[0]

    @property
    def infos(self) -> tuple[ParamInfo, ...]:
        """The searched parameters' records, in ``params`` order."""
        info = self.base.info
        assert info is not None, "the tuned strategy is a built-in (checked on load)"
        known = {p.name: p for p in info.params}
        return tuple(known[name] for name in self.params or ())

    def start(self) -> tuple[int, ...]:
        """Where the search starts: the values the strategy text plays with (a parameter
        defaulting to the rules' knock limit starts there)."""
        base = self.base
        out = []
        for info in self.infos:
            value = base.params.get(info.name, info.default)
            if value is None:
                value = self.resolved_rules.knock_limit
            out.append(min(max(int(value), info.low), info.high))
        return tuple(out)

    def strategy_text(self, values: tuple[int, ...] | list[int]) -> str:
        """The canonical name of the strategy with the searched parameters set to ``values``
        (and the others as written): ready for ``ginbox play`` or an experiment file."""
        base = self.base
        params = {**{k: v for k, v in base.params.items() if v is not None},
                  **{info.name: int(v) for info, v in zip(self.infos, values, strict=True)}}
        text = base.name + ":" + ",".join(f"{k}={v}" for k, v in params.items())
        return parse_strategy(text).canonical

    def seats(self, values: tuple[int, ...] | list[int], field: int = 0) -> tuple[str, ...]:
        """The strategies of one game: the candidate in seat 0, then field ``field``."""
        return (self.strategy_text(values), *self.fields[field])

    @property
    def baseline(self) -> str:
        """The strategy as written, canonical (its defaults where it sets nothing)."""
        return self.base.canonical

    def to_dict(self) -> dict[str, Any]:
        """Plain values (the checkpoint stores them, so a resume with a changed file is
        refused)."""
        against: dict[str, Any] = (
            {"fields": [list(f) for f in self.fields], "weights": list(self.weights)}
            if self.mixed else {"field": list(self.field)})
        return {"name": self.name, "seed": self.seed, "strategy": self.strategy,
                "params": list(self.params or ()), **against, "rules": self.rules,
                "overrides": dict(self.overrides), "generations": self.generations,
                "population": self.population,
                "games_per_candidate": self.games_per_candidate,
                "holdout_games": self.holdout_games, "sigma0": float(self.sigma0),
                "chunk_size": self.chunk_size, "description": self.description}


def _is_weight(value: object) -> bool:
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and math.isfinite(value) and value > 0)


def _rename(message: str, index: int | None = None) -> str:
    """An arm's error in the tuning file's terms: seat 0 is ``strategy``, the rest ``field``
    (``fields[index]`` in a mix)."""
    name = "field" if index is None else f"fields[{index}]"
    match = re.match(r"strategies\[(\d+)\]=(.*)", message)
    if match:
        seat = int(match[1])
        where = "strategy" if seat == 0 else f"{name}[{seat - 1}]"
        return f"{where}={match[2]}"
    match = re.match(r"strategies=.* has (\d+) seats: (.*) expect (\d+)", message)
    if match:
        return (f"{name} has {int(match[1]) - 1} strategies: {match[2]} expect "
                f"{int(match[3]) - 1} (the seats other than the tuned one)")
    return message


def load_tune(source: str | Path | Mapping[str, Any] | TuneSpec) -> TuneSpec:
    """A :class:`TuneSpec` from a TOML path, a dict or a spec; ``ValueError`` (one line naming
    the file and the field) on anything bad."""
    if isinstance(source, TuneSpec):
        return source
    if isinstance(source, Mapping):
        return _from_dict(source)
    return load_toml(source, "tuning", _from_dict)


def _from_dict(data: Mapping[str, Any]) -> TuneSpec:
    check_keys(data, TOP_KEYS, "the tuning file")
    needs = "a tuning file needs name, seed, strategy and field (or fields)"
    require_keys(data, ("name", "seed", "strategy"), needs)
    if "fields" not in data:
        require_keys(data, ("field",), needs)
    kwargs = dict(data)
    if "params" in kwargs and not isinstance(kwargs["params"], list):
        raise ValueError(f"params={kwargs['params']!r} is not valid: expected a list of "
                         "parameter names")
    if "params" in kwargs:
        kwargs["params"] = tuple(kwargs["params"])
    return TuneSpec(**kwargs)


__all__ = ["HOLDOUT_FIRST_GAME", "MAX_FIELDS", "TOP_KEYS", "TuneSpec", "load_tune"]
