"""Experiment definitions: what to run, as data that validates itself before anything runs.

An experiment is a TOML file (or the same structure as a Python dict) naming a seed, a number of
games per arm and one or more *arms*. An arm is one configuration to measure: a rules preset plus
overrides, the strategies in the seats, and how the seats are given their initial roles. All arms
of an experiment play the same shuffled decks game for game (common random numbers), so arms are
compared paired. :func:`load_experiment` reads a file or dict into an :class:`ExperimentSpec`;
:func:`sim.runs.runner.run_experiment` runs it.

Every error is a one-line ``ValueError`` naming the field (as a path such as
``arms[2].seating``), the bad value and what is accepted. Unknown keys are errors, so a typo
cannot silently run the wrong experiment.

Schema
------
Top-level keys:

===============  ========  ====================================================================
key              required  meaning
===============  ========  ====================================================================
``name``         yes       names the results directory ``results/<name>/``: letters, digits,
                           ``.``, ``_`` and ``-``, starting with a letter or digit, at most 64
                           characters. Example: ``name = "knock_sweep"``
``seed``         yes       integer 0..2**63-1. Decks and strategy random choices derive from the
                           seed alone (shared by all arms). ``seed = 2024``
``games``        yes       games played by *each* arm, 1..1,000,000,000. ``games = 60_000``
``chunk_size``   no        games per chunk, the unit of parallel work and of checkpointing
                           (default 2000; 1..1,000,000). Results do not depend on it.
                           At most 100,000 chunks in all arms together.
``description``  no        free text, copied into the manifest and reports
``defaults``     no        a table with any arm key except ``name`` and ``sweep``, used by
                           every arm that does not set it (``overrides`` tables are merged,
                           the arm's keys winning)
``arms``         yes       an array of tables ``[[arms]]``, at least one
===============  ========  ====================================================================

Arm keys (``[[arms]]``):

================  ========  ===================================================================
key               required  meaning
================  ========  ===================================================================
``name``          yes       unique label within the experiment, shown in reports (1..100
                            characters). ``name = "gin 20"``
``rules``         no        a rules preset (default ``"three-handed"``); one of
                            ``sim.engine.rules.PRESETS``. ``rules = "three-handed-20"``
``overrides``     no        a table of ``sim.engine.rules.Rules`` fields changed from the
                            preset, any field but ``initial_roles`` (use ``seating``).
                            ``overrides = { knock_limit = 7, target = 150 }``
``strategies``    yes       one strategy per seat (3, or 2 for two-player rules), as a list of
                            names with optional parameters or import paths of user classes:
                            ``strategies = ["greedy-knock:knock_at=6", "simple", "random"]``.
                            A single comma-separated string is accepted too.
``seating``       no        ``"rotate"`` (default): game g uses seating g mod 6 (mod 2 for two
                            players), so every seat holds every initial role equally often,
                            exactly when ``games`` is a multiple of 6 (2); ``"random"``: initial
                            roles drawn per game as by the rules' card draw; or a fixed list of
                            initial roles, ``[box seat, captain seat, sitter seat]`` (``[dealer,
                            non-dealer]`` for two players), e.g. ``seating = [2, 0, 1]``
``sweep``         no        a table expanding this arm into one arm per combination of values:
                            keys are placeholder names, values non-empty lists. Every
                            ``{key}`` in ``name``, ``rules``, ``strategies`` and string
                            ``overrides`` values is replaced by the value; an override written
                            exactly ``"{key}"`` takes the value with its type (an integer stays an
                            integer). Combinations run in the order of the keys, the first key
                            slowest; expanded arms take this arm's place in the arm order. An
                            experiment has at most 1,000 arms, sweeps expanded.
================  ========  ===================================================================

Example (the knock-threshold sweep: 11 arms)::

    name = "knock_sweep"
    seed = 11
    games = 60_000

    [[arms]]
    name = "knock_at={k}"
    strategies = ["greedy-knock:knock_at={k}", "greedy-knock", "greedy-knock"]
    seating = "rotate"
    sweep = { k = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }

Arms are numbered 0, 1, ... in file order after expansion; the arm number keys the results
(``arm=<i>/`` directories, the ``arm`` column).
:meth:`ExperimentSpec.to_dict` gives the expanded form (explicit arms, no ``defaults`` or
``sweep``), which :func:`load_experiment` reads back to an equal spec.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.engine.rules import PRESETS, Rules, is_int
from sim.io.specs import MAX_NAME as MAX_NAME
from sim.io.specs import MAX_SEED as MAX_SEED
from sim.io.specs import (
    SEED_RANGE,
    check_int,
    check_keys,
    check_run_name,
    check_text,
    load_toml,
)
from strategies.registry import (
    check_no_person,
    parse_strategies,
    parse_strategy,
    resolve_texts,
)

#: Default games per chunk: large enough that per-chunk overhead is negligible, small enough
#: that a kill loses little work and memory per worker stays small.
DEFAULT_CHUNK_SIZE = 2000
MAX_CHUNK_SIZE = 1_000_000
#: Most games per arm: a billion games is days of computing on one machine.
MAX_GAMES = 1_000_000_000
#: Largest seed: any int64, so the seed fits every file format that stores it.
#: Chunks of a whole experiment at most: the plan and the manifest list every chunk, so this
#: bounds their memory and size (about 20 MB of manifest); 1e11 games at the largest chunks.
MAX_CHUNKS = 100_000
SEATINGS: tuple[str, ...] = ("rotate", "random")
#: Why an arm's overrides may not set ``initial_roles`` (:meth:`Rules.resolve`'s ``roles``).
#: The most arms one experiment may have, sweeps expanded: each arm plays every game and
#: stores its own chunks, so more is a mistake in the sweep (checked before expanding it).
MAX_ARMS = 1_000
SEATING_SETS_ROLES = "set the arm's seating to a list of initial roles instead"
DEFAULT_SEATING = "rotate"

TOP_KEYS: tuple[str, ...] = ("name", "seed", "games", "chunk_size", "description", "defaults",
                             "arms")
ARM_KEYS: tuple[str, ...] = ("name", "rules", "overrides", "strategies", "seating", "sweep")
DEFAULT_KEYS: tuple[str, ...] = ("rules", "overrides", "strategies", "seating")

_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def rotation_warning(games: int, players: int, key: str = "games") -> str | None:
    """Why ``games`` rotated games leave the roles unbalanced, or None: the rotation comes
    round every 6 games three-handed (every seat in every initial role) and every 2
    two-handed (every seat deals first), so any other count gives some seat a role more
    often than others."""
    period = 6 if players == 3 else 2
    if games % period == 0:
        return None
    roles = ("hold each initial role (box, captain, sitter)" if players == 3
             else "deal the first hand")
    return (f"{key} = {games:,} is not a multiple of {period}: the seats are rotated game by "
            f"game, so they do not {roles} equally often; a multiple of {period} balances "
            "the roles")


def arm_rules(preset: str, overrides: Mapping[str, Any]) -> Rules:
    """The rules of a file's ``rules`` and ``overrides`` (an experiment arm, a league, a
    tuning run), by :meth:`Rules.resolve`; errors start with the field (``rules: unknown
    rules preset ...``, ``overrides.gin_bonus=...``) for the loader to prefix the path."""
    try:
        base = Rules.preset(preset)
    except ValueError as exc:
        raise ValueError(f"rules: {exc}") from None
    return Rules.resolve(base, overrides, where="overrides.", roles=SEATING_SETS_ROLES)


@dataclass(frozen=True)
class ArmSpec:
    """One configuration of an experiment: rules, strategies per seat and seating.

    Validates on construction (the rules resolve, every strategy parses and every Python
    strategy can be built, the seat count matches the rules); error messages start with the
    field name so that the loader can prefix the arm's path.
    """

    name: str
    strategies: tuple[str, ...]
    rules: str = "three-handed"
    overrides: Mapping[str, Any] = field(default_factory=dict, hash=False)
    seating: str | tuple[int, ...] = DEFAULT_SEATING
    _rules: Rules = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        """Validate every field and resolve the rules once."""
        if not isinstance(self.name, str) or not self.name.strip() or len(self.name) > 100:
            raise ValueError(f"name={self.name!r} is not valid: expected a non-empty string of "
                             "at most 100 characters")
        object.__setattr__(self, "name", self.name.strip())
        self._check_strategies()
        if not isinstance(self.rules, str):
            raise ValueError(f"rules={self.rules!r} is not valid: expected a preset name, one "
                             "of " + ", ".join(PRESETS))
        rules = arm_rules(self.rules, self.overrides)
        object.__setattr__(self, "rules", Rules.preset(self.rules).name)
        object.__setattr__(self, "overrides", dict(self.overrides))
        rules = self._apply_seating(rules)
        object.__setattr__(self, "strategies", resolve_texts(self.strategies, rules))
        if len(self.strategies) != rules.players:
            raise ValueError(
                f"strategies={list(self.strategies)!r} has {len(self.strategies)} seats: "
                f"{rules.name} rules with players={rules.players} expect {rules.players}"
            )
        object.__setattr__(self, "_rules", rules)

    def _check_strategies(self) -> None:
        strategies = self.strategies
        if isinstance(strategies, str):
            try:
                strategies = tuple(s.text for s in parse_strategies(strategies))
            except ValueError as exc:
                raise ValueError(f"strategies={self.strategies!r}: {exc}") from None
        if not isinstance(strategies, list | tuple) or not strategies:
            raise ValueError(f"strategies={strategies!r} is not valid: expected a list of "
                             "strategy names, one per seat")
        texts, specs = [], []
        for i, text in enumerate(strategies):
            if not isinstance(text, str):
                raise ValueError(f"strategies[{i}]={text!r} is not valid: expected a strategy "
                                 "name (e.g. 'greedy-knock:knock_at=6') or an import path")
            try:
                spec = parse_strategy(text)
            except ValueError as exc:
                raise ValueError(f"strategies[{i}]={text!r}: {exc}") from None
            if spec.factory is not None:  # build it once now: a bad constructor fails here,
                try:                      # not in every worker after the results folder exists
                    spec.make()
                except Exception as exc:
                    raise ValueError(f"strategies[{i}]={text!r}: cannot create the strategy: "
                                     f"{type(exc).__name__}: {exc}") from None
            texts.append(spec.text)
            specs.append(spec)
        check_no_person(specs)  # the one gate of every batch run: run, tune, league, exploit
        object.__setattr__(self, "strategies", tuple(texts))

    def _apply_seating(self, rules: Rules) -> Rules:
        seating = self.seating
        if isinstance(seating, str):
            if seating not in SEATINGS:
                raise ValueError(f"seating={seating!r} is not valid: expected 'rotate', "
                                 "'random' or a list of initial roles such as [0, 1, 2]")
            return rules
        accepted = ("'rotate', 'random' or a list of initial roles: a permutation of "
                    + str(list(range(rules.players)))
                    + (" giving the (box, captain, sitter) seats" if rules.players == 3
                       else " giving the (dealer, non-dealer) seats"))
        if not isinstance(seating, list | tuple) or not all(
                is_int(s, numpy=False) for s in seating):
            raise ValueError(f"seating={seating!r} is not valid: expected {accepted}")
        if sorted(seating) != list(range(rules.players)):
            raise ValueError(f"seating={list(seating)!r} is not valid: expected {accepted}")
        object.__setattr__(self, "seating", tuple(int(s) for s in seating))
        return rules.replace(initial_roles=tuple(seating))

    # ----------------------------------------------------------------- derived values

    @property
    def resolved_rules(self) -> Rules:
        """The rules this arm plays: preset, overrides, and fixed initial roles if any."""
        return self._rules

    @property
    def rotate(self) -> bool:
        """True when games are seated by the rotation (``iter_games(rotate=True)``)."""
        return self.seating == "rotate"

    def to_dict(self) -> dict[str, Any]:
        """Plain TOML/JSON-friendly values (seating a string or a list)."""
        return {
            "name": self.name,
            "rules": self.rules,
            "overrides": dict(self.overrides),
            "strategies": list(self.strategies),
            "seating": self.seating if isinstance(self.seating, str) else list(self.seating),
        }


@dataclass(frozen=True)
class ExperimentSpec:
    """A whole experiment: name, seed, games per arm, chunking and the arms (expanded)."""

    name: str
    seed: int
    games: int
    arms: tuple[ArmSpec, ...]
    chunk_size: int = DEFAULT_CHUNK_SIZE
    description: str = ""

    def __post_init__(self) -> None:
        """Validate the top-level fields and that arm names are unique."""
        check_run_name(self.name)
        check_int("seed", self.seed, 0, MAX_SEED, SEED_RANGE)
        check_int("games", self.games, 1, MAX_GAMES,
                  f"an integer 1..{MAX_GAMES:,} (games per arm)")
        check_int("chunk_size", self.chunk_size, 1, MAX_CHUNK_SIZE)
        check_text("description", self.description)
        arms = tuple(self.arms) if isinstance(self.arms, list | tuple) else None
        if not arms:
            raise ValueError(f"arms={self.arms!r} is not valid: expected at least one arm")
        seen: dict[str, int] = {}
        for i, arm in enumerate(arms):
            if not isinstance(arm, ArmSpec):
                raise ValueError(f"arms[{i}]={arm!r} is not valid: expected an ArmSpec")
            if arm.name in seen:
                raise ValueError(f"arms[{i}].name={arm.name!r} is not valid: it repeats "
                                 f"arms[{seen[arm.name]}]; arm names must be unique")
            seen[arm.name] = i
        object.__setattr__(self, "arms", arms)
        chunks = self.chunks_per_arm * len(arms)
        if chunks > MAX_CHUNKS:
            raise ValueError(
                f"games={self.games} in chunks of {self.chunk_size} makes {chunks:,} chunks "
                f"({len(arms)} arm{'s' if len(arms) > 1 else ''}): at most {MAX_CHUNKS:,} "
                f"chunks in all; raise chunk_size (up to {MAX_CHUNK_SIZE:,}) or lower games")

    def replace(self, **changes: Any) -> ExperimentSpec:
        """A validated copy with fields changed, e.g. ``spec.replace(games=1000)``."""
        unknown = [k for k in changes if k not in TOP_KEYS or k == "defaults"]
        if unknown:
            raise ValueError(f"unknown experiment field(s) {', '.join(map(repr, unknown))}: "
                             "expected one of name, seed, games, chunk_size, description, arms")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The expanded spec as plain values; ``load_experiment`` reads it back equal."""
        return {
            "name": self.name,
            "seed": self.seed,
            "games": self.games,
            "chunk_size": self.chunk_size,
            "description": self.description,
            "arms": [arm.to_dict() for arm in self.arms],
        }

    @property
    def chunks_per_arm(self) -> int:
        """Chunks of each arm; the last one may hold fewer than ``chunk_size`` games."""
        return -(-self.games // self.chunk_size)

    @property
    def warnings(self) -> list[str]:
        """What the spec leaves unbalanced, one line each: rotated arms whose ``games`` is
        not a whole number of rotations (:func:`rotation_warning`)."""
        found = (rotation_warning(self.games, arm.resolved_rules.players)
                 for arm in self.arms if arm.rotate)
        return list(dict.fromkeys(w for w in found if w is not None))

    @property
    def total_games(self) -> int:
        """Games over all arms."""
        return self.games * len(self.arms)


# --------------------------------------------------------------------------------- loading


def load_experiment(source: str | Path | Mapping[str, Any] | ExperimentSpec) -> ExperimentSpec:
    """An :class:`ExperimentSpec` from a TOML file path, a dict, or a spec (returned as is).

    Raises ``ValueError`` with one line naming the file (if any), the field path, the bad value
    and what is accepted.
    """
    if isinstance(source, ExperimentSpec):
        return source
    if isinstance(source, Mapping):
        return _from_dict(source)
    if not isinstance(source, str | Path):
        raise ValueError(f"experiment {source!r} is not valid: expected a TOML file path, a "
                         "dict or an ExperimentSpec")
    return load_toml(source, "experiment", _from_dict)


@functools.lru_cache(maxsize=1024)
def canonical_strategy(text: str) -> str:
    """The canonical spec of a strategy text, e.g. ``greedy-knock:knock_at=0`` for
    ``greedy:knock_at=00``: arms are compared by it, never by the text as given (which logs and
    reports show). Here so that the analysis asks the play layer, not the strategy registry;
    a user class is not imported. A text that no longer parses (a run stored by an older
    version) stands for itself."""
    from strategies.registry import canonical_strategy as canonical

    try:
        return canonical(text)
    except ValueError:
        return text.strip()


def default_knock_at(strategy: str, knock_limit: int) -> int | None:
    """The knock_at a strategy text plays with when the text does not set one, or None.

    A built-in with a ``knock_at`` parameter knocks at its default, which is the rules' knock
    limit unless the registry gives a number; other strategies (no such parameter, or a Python
    class) have no known default. Here so that the analysis asks the play layer, not the
    strategy registry, what an arm plays.
    """
    from strategies.registry import ALIASES, BUILTINS

    head = strategy.split(":", 1)[0].strip().lower()
    info = BUILTINS.get(ALIASES.get(head, head))
    for param in info.params if info is not None else ():
        if param.name == "knock_at":
            return int(knock_limit if param.default is None else param.default)
    return None


def _from_dict(data: Mapping[str, Any]) -> ExperimentSpec:
    check_keys(data, TOP_KEYS, "the experiment")
    for key in ("name", "seed", "games", "arms"):
        if key not in data:
            raise ValueError(f"{key} is missing: the experiment needs name, seed, games and "
                             "at least one [[arms]] table")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, Mapping):
        raise ValueError(f"defaults={defaults!r} is not valid: expected a table of arm keys")
    check_keys(defaults, DEFAULT_KEYS, "defaults")
    raw_arms = data["arms"]
    if not isinstance(raw_arms, list | tuple) or not raw_arms:
        raise ValueError(f"arms={raw_arms!r} is not valid: expected at least one [[arms]] "
                         "table")
    arms: list[ArmSpec] = []
    counted = 0
    for i, raw in enumerate(raw_arms):
        if not isinstance(raw, Mapping):
            raise ValueError(f"arms[{i}]={raw!r} is not valid: expected a table of arm keys")
        check_keys(raw, ARM_KEYS, f"arms[{i}]")
        counted += _sweep_size(raw.get("sweep"))
        if counted > MAX_ARMS:  # counted before any arm is built: a sweep's product explodes
            raise ValueError(f"arms[{i}]: the experiment has {counted:,} arms up to here "
                             f"(a sweep gives one per combination of its values): expected at "
                             f"most {MAX_ARMS:,}")
        arms.extend(_expand_arm(i, _with_defaults(raw, defaults)))
    kwargs = {k: data[k] for k in ("name", "seed", "games", "chunk_size", "description")
              if k in data}
    return ExperimentSpec(arms=tuple(arms), **kwargs)


def _sweep_size(sweep: object) -> int:
    """The arms a sweep table expands to (1 for no sweep, or one that is not valid, which
    :func:`_expand_arm` refuses saying why)."""
    if not isinstance(sweep, Mapping):
        return 1
    return math.prod(len(v) if isinstance(v, list | tuple) and v else 1
                     for v in sweep.values())


def _with_defaults(raw: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    merged = {**defaults, **raw}
    if isinstance(defaults.get("overrides"), Mapping) and isinstance(raw.get("overrides"),
                                                                     Mapping):
        merged["overrides"] = {**defaults["overrides"], **raw["overrides"]}
    return merged


def _expand_arm(index: int, raw: dict[str, Any]) -> list[ArmSpec]:
    """One arm, or one per sweep combination, each validated with its path in errors."""
    where = f"arms[{index}]"
    if "name" not in raw:
        raise ValueError(f"{where}.name is missing: every arm needs a unique name")
    if "strategies" not in raw:
        raise ValueError(f"{where}.strategies is missing: expected one strategy per seat")
    sweep = raw.pop("sweep", None)
    if sweep is None:
        return [_make_arm(where, raw)]
    if not isinstance(sweep, Mapping) or not sweep:
        raise ValueError(f"{where}.sweep={sweep!r} is not valid: expected a table of "
                         "placeholder = [values]")
    for key, values in sweep.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise ValueError(f"{where}.sweep key {key!r} is not valid: expected a name of "
                             "letters, digits and '_'")
        if not isinstance(values, list | tuple) or not values:
            raise ValueError(f"{where}.sweep.{key}={values!r} is not valid: expected a "
                             "non-empty list of values")
    keys = list(sweep)
    arms = []
    for combo in itertools.product(*(sweep[k] for k in keys)):
        values = dict(zip(keys, combo, strict=True))
        label = ",".join(f"{k}={_text(v)}" for k, v in values.items())
        arms.append(_make_arm(f"{where}({label})", _substitute(raw, values, where)))
    return arms


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _substitute(raw: dict[str, Any], values: dict[str, Any], where: str) -> dict[str, Any]:
    def sub(text: Any, field_path: str) -> Any:
        if not isinstance(text, str):
            return text
        for name in _PLACEHOLDER_RE.findall(text):
            if name not in values:
                raise ValueError(f"{where}.{field_path}={text!r} uses placeholder {{{name}}}, "
                                 f"which is not a sweep key: expected one of "
                                 + ", ".join(values))
        whole = _PLACEHOLDER_RE.fullmatch(text)
        if whole:
            return values[whole.group(1)]
        return _PLACEHOLDER_RE.sub(lambda m: _text(values[m.group(1)]), text)

    out = dict(raw)
    if isinstance(raw["name"], str):
        out["name"] = _text(sub(raw["name"], "name"))
    if "rules" in raw:
        out["rules"] = sub(raw["rules"], "rules")
    strategies = raw["strategies"]
    if isinstance(strategies, str):
        out["strategies"] = _text(sub(strategies, "strategies"))
    elif isinstance(strategies, list | tuple):
        out["strategies"] = [_text(sub(s, f"strategies[{i}]")) if isinstance(s, str) else s
                             for i, s in enumerate(strategies)]
    if isinstance(raw.get("overrides"), Mapping):
        out["overrides"] = {k: sub(v, f"overrides.{k}") for k, v in raw["overrides"].items()}
    return out


def _make_arm(where: str, raw: Mapping[str, Any]) -> ArmSpec:
    kwargs = {k: raw[k] for k in ("name", "rules", "overrides", "strategies", "seating")
              if k in raw}
    if isinstance(kwargs.get("seating"), list):
        kwargs["seating"] = tuple(kwargs["seating"])
    try:
        return ArmSpec(**kwargs)
    except ValueError as exc:
        raise ValueError(f"{where}.{exc}") from None
