"""The rules configuration: every rules option as one frozen, validated value.

A :class:`Rules` object is immutable and hashable, so it can be shared between worker processes,
used as a dictionary key when results are grouped, and written into hand logs by its ``name``.
Invalid values are rejected when the object is built (``ValueError`` naming the field, the bad
value and what is accepted), so the engine never has to re-check them.

The numba engine cannot take a dataclass, so :meth:`Rules.to_array` packs the rules into a flat
``int64`` array, declared in :mod:`sim.engine.rules_array` (the slots a rules variant reads are
valued by its declaration, :mod:`sim.engine.variants`). Layout (index constant: meaning):

===========================  ==================================================================
``RI_PLAYERS``               number of players, 2 or 3
``RI_GIN_BONUS``             gin bonus
``RI_UNDERCUT_BONUS``        undercut bonus
``RI_KNOCK_LIMIT``           knock limit (before any Oklahoma adjustment)
``RI_TARGET``                game target score
``RI_WALL``                  stock cards left after a discard at which the hand is a draw
``RI_MAX_TURNS``             safety cap on turns in one hand
``RI_FORBID_TAKEN_DISCARD``  1 when a card taken from the pile may not be discarded that turn
``RI_OKLAHOMA``              1 when the upcard's value sets the hand's knock limit
``RI_SPADE_DOUBLING``        1 when a spade upcard doubles the hand's points
``RI_TEAM_ADVISOR``          1 for ``team_policy="advisor"``, else 0
``RI_HAND_BONUS``            bonus per hand won, added at game end
``RI_GAME_BONUS``            bonus for winning the game
``RI_SHUTOUT_BONUS``         extra bonus when the loser(s) scored nothing
``RI_INITIAL_ROLES``         3 slots (this index and the next two): the initial roles as in
                             ``Rules.initial_roles``, -1 when drawn at random; with 2 players
                             the third slot is always -1
``RI_HOLLYWOOD``             1 for ``scoring="hollywood"`` (three games scored at once)
``RI_SHUTOUT_DOUBLING``      1 when a shutout doubles the winner's total for the game
``RI_TEAM_CONSENSUS``        1 for ``team_policy="consensus"``, else 0
``RI_SHOWDOWN_EAAI``         1 for ``showdown="eaai"`` (declared melds, greedy layoffs)
===========================  ==================================================================

``RULES_ARRAY_LEN`` is the array's length.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.engine.layout import Record
from sim.engine.rules_array import RI_FORBID_TAKEN_DISCARD as RI_FORBID_TAKEN_DISCARD
from sim.engine.rules_array import RI_GAME_BONUS as RI_GAME_BONUS
from sim.engine.rules_array import RI_GIN_BONUS as RI_GIN_BONUS
from sim.engine.rules_array import RI_HAND_BONUS as RI_HAND_BONUS
from sim.engine.rules_array import RI_HOLLYWOOD as RI_HOLLYWOOD
from sim.engine.rules_array import RI_INITIAL_ROLES as RI_INITIAL_ROLES
from sim.engine.rules_array import RI_KNOCK_LIMIT as RI_KNOCK_LIMIT
from sim.engine.rules_array import RI_MAX_TURNS as RI_MAX_TURNS
from sim.engine.rules_array import RI_OKLAHOMA as RI_OKLAHOMA
from sim.engine.rules_array import RI_PLAYERS as RI_PLAYERS
from sim.engine.rules_array import RI_SHOWDOWN_EAAI as RI_SHOWDOWN_EAAI
from sim.engine.rules_array import RI_SHUTOUT_BONUS as RI_SHUTOUT_BONUS
from sim.engine.rules_array import RI_SHUTOUT_DOUBLING as RI_SHUTOUT_DOUBLING
from sim.engine.rules_array import RI_SPADE_DOUBLING as RI_SPADE_DOUBLING
from sim.engine.rules_array import RI_TARGET as RI_TARGET
from sim.engine.rules_array import RI_TEAM_ADVISOR as RI_TEAM_ADVISOR
from sim.engine.rules_array import RI_TEAM_CONSENSUS as RI_TEAM_CONSENSUS
from sim.engine.rules_array import RI_UNDERCUT_BONUS as RI_UNDERCUT_BONUS
from sim.engine.rules_array import RI_WALL as RI_WALL
from sim.engine.rules_array import RULES_ARRAY_LEN as RULES_ARRAY_LEN
from sim.engine.rules_array import RULES_LAYOUT
from sim.engine.variants import VARIANTS
from sim.engine.variants.oklahoma import hand_terms

#: Values accepted for ``Rules.team_policy``.
TEAM_POLICIES: tuple[str, ...] = ("captain", "advisor", "consensus")

#: Values accepted for ``Rules.scoring``: one game to the target, or a variant's (Hollywood's
#: three at once).
SCORINGS: tuple[str, ...] = ("standard", *(value for v in VARIANTS
                                            for value in v.field_values.get("scoring", ())))

#: Values accepted for ``Rules.showdown``: ginbox's exact showdown (best melds, best layoffs),
#: or the EAAI framework's (the melds each player declares, the defender's other cards laid
#: off greedily in the framework's order; docs/rules.md, "The EAAI framework's showdown").
SHOWDOWNS: tuple[str, ...] = ("exact", "eaai")

#: Fields added after hand logs and run manifests were first written: ``to_dict`` leaves them
#: out while they hold these defaults, so records of standard play keep their exact bytes.
_LATER_DEFAULTS: dict[str, Any] = {"shutout_doubling": False, "showdown": "exact",
                                   **{k: d for v in VARIANTS for k, d in v.later_defaults.items()}}

# The value of each slot of the rules array (layout: sim.engine.rules_array, tabled in the
# module docstring): the core's here, each variant's in its declaration.
_SLOT_VALUES: dict[str, Callable[[Rules], Any]] = {
    "PLAYERS": lambda r: r.players,
    "GIN_BONUS": lambda r: r.gin_bonus,
    "UNDERCUT_BONUS": lambda r: r.undercut_bonus,
    "KNOCK_LIMIT": lambda r: r.knock_limit,
    "TARGET": lambda r: r.target,
    "WALL": lambda r: r.wall,
    "MAX_TURNS": lambda r: r.max_turns,
    "FORBID_TAKEN_DISCARD": lambda r: int(r.forbid_taken_discard),
    "TEAM_ADVISOR": lambda r: int(r.team_policy == "advisor"),
    "HAND_BONUS": lambda r: r.hand_bonus,
    "GAME_BONUS": lambda r: r.game_bonus,
    "SHUTOUT_BONUS": lambda r: r.shutout_bonus,
    "INITIAL_ROLES": lambda r: r.initial_roles or (),  # unused slots stay -1
    "SHUTOUT_DOUBLING": lambda r: int(r.shutout_doubling),
    "TEAM_CONSENSUS": lambda r: int(r.team_policy == "consensus"),
    "SHOWDOWN_EAAI": lambda r: int(r.showdown == "eaai"),
    **{slot: value for v in VARIANTS for slot, value in v.rules_slots.items()},
}
if sorted(_SLOT_VALUES) != sorted(name for name, _ in RULES_LAYOUT.pieces):
    raise AssertionError("every slot of the rules array needs exactly one value")
_SLOTS: tuple[tuple[int, int, Callable[[Rules], Any]], ...] = tuple(
    (at, size, _SLOT_VALUES[name])
    for (name, size), at in zip(RULES_LAYOUT.pieces, RULES_LAYOUT.offsets, strict=True))


def rules_fields(rules_array: np.ndarray) -> Record:
    """A rules array (:meth:`Rules.to_array`) by name (``rules.max_turns``): how Python code
    holding only the compiled form reads a rule without ``RI_*`` offsets."""
    return RULES_LAYOUT.record(rules_array)

#: Cards in the stock after the deal (52 - 2 * 10 - 1 upcard); the wall must leave some to draw.
STOCK_SIZE = 31

_MAX_KNOCK_LIMIT = 10
#: Largest bonus of any kind: real rule sets use at most a few hundred points.
MAX_BONUS = 1000
#: Largest target: about 400 hands of play; larger would make one game run for minutes.
MAX_TARGET = 10_000
#: Largest turn cap: far above the 400 default; every hand ends within it.
MAX_TURNS = 10_000

#: Every integer field with its accepted range (both ends included) and how errors name it.
#: Each has an upper bound, so no value can make a game endless (``target``), overflow the
#: int64 scores (the bonuses) or fail to fit the int64 rules array. docs/rules.md lists them.
INT_RANGES: tuple[tuple[str, int, int, str], ...] = tuple(
    (name, lo, hi, "2 or 3" if name == "players" else f"an integer {lo}..{hi}")
    for name, lo, hi in (
        ("players", 2, 3),
        ("gin_bonus", 0, MAX_BONUS),
        ("undercut_bonus", 0, MAX_BONUS),
        ("knock_limit", 0, _MAX_KNOCK_LIMIT),
        ("target", 1, MAX_TARGET),
        ("wall", 0, STOCK_SIZE - 2),
        ("max_turns", 1, MAX_TURNS),
        ("hand_bonus", 0, MAX_BONUS),
        ("game_bonus", 0, MAX_BONUS),
        ("shutout_bonus", 0, MAX_BONUS),
    )
)


@dataclass(frozen=True, slots=True)
class Rules:
    """One complete set of game rules. The defaults are the ``three-handed`` preset.

    ========================  ===========================================================
    field                     meaning
    ========================  ===========================================================
    ``name``                  preset name, written into hand logs (free text, non-empty)
    ``players``               2 (two-player gin) or 3 (box, captain and sitter)
    ``gin_bonus``             points added to the defender's deadwood on gin (0..1000)
    ``undercut_bonus``        points the defender adds on an undercut (0..1000)
    ``knock_limit``           most deadwood a knocker may keep, 0..10 (0 = gin only)
    ``target``                cumulative score that ends the game (1..10000)
    ``wall``                  the hand is a draw when after a discard only this many cards
                              remain in the 31-card stock (0..29)
    ``max_turns``             safety cap on turns in one hand; reaching it is a draw
                              recorded as ``turn_limit`` (1..10000)
    ``forbid_taken_discard``  a card taken from the discard pile may not be discarded in
                              the same turn
    ``oklahoma``              the upcard's value sets the hand's knock limit (face card 10,
                              ace means gin only)
    ``spade_doubling``        a hand's points are doubled when the upcard is a spade
    ``team_policy``           ``"captain"`` (the captain's strategy decides),
                              ``"advisor"`` (the captain follows the sitter's advice) or
                              ``"consensus"`` (both strategies score the captain's
                              options, the best combined score is played; the captain
                              decides alone unless both have option values)
    ``initial_roles``         ``None``: roles drawn at random per game. Otherwise fixed
                              roles: with 3 players a permutation of (0, 1, 2) read as
                              (box seat, captain seat, sitter seat); with 2 players a
                              permutation of (0, 1) read as (dealer seat, non-dealer seat).
                              A list is accepted and stored as a tuple.
    ``hand_bonus``            "box"/"line" bonus per hand won, added at game end and not
                              counting towards the target (0..1000)
    ``game_bonus``            bonus for winning the game (0..1000)
    ``shutout_bonus``         extra points to the game winner when the loser(s) scored
                              nothing (0..1000)
    ``scoring``               ``"standard"`` (one game to ``target``) or ``"hollywood"``
                              (three games scored at once; docs/rules.md, "Hollywood
                              scoring"); the bonuses above apply to each game
    ``shutout_doubling``      a shutout doubles the game winner's total for that game
                              (hand points and every bonus), after ``shutout_bonus``
    ``showdown``              ``"exact"`` (the knocker's best arrangement against the
                              defender's best layoffs) or ``"eaai"`` (the EAAI
                              framework's: declared melds, greedy layoffs; docs/rules.md)
    ========================  ===========================================================

    Build variants with :meth:`preset`, :meth:`replace` and :meth:`from_dict`; every path
    validates, so an existing ``Rules`` is always valid.
    """

    name: str = "three-handed"
    players: int = 3
    gin_bonus: int = 25
    undercut_bonus: int = 10
    knock_limit: int = 10
    target: int = 100
    wall: int = 2
    max_turns: int = 400
    forbid_taken_discard: bool = True
    oklahoma: bool = False
    spade_doubling: bool = False
    team_policy: str = "captain"
    initial_roles: tuple[int, ...] | None = None
    hand_bonus: int = 0
    game_bonus: int = 0
    shutout_bonus: int = 0
    scoring: str = "standard"
    shutout_doubling: bool = False
    showdown: str = "exact"

    def __post_init__(self) -> None:
        """Validate every field and normalise numpy scalars and lists to plain Python values."""
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name={self.name!r} is not valid: expected a non-empty string")
        for field_name, lo, hi, accepted in INT_RANGES:
            _check_int(self, field_name, lo, hi, accepted)
        for field_name in ("forbid_taken_discard", "oklahoma", "spade_doubling",
                           "shutout_doubling"):
            _check_bool(self, field_name)
        if not isinstance(self.scoring, str) or self.scoring not in SCORINGS:
            raise ValueError(
                f"scoring={self.scoring!r} is not valid: expected one of " + ", ".join(SCORINGS)
            )
        if not isinstance(self.showdown, str) or self.showdown not in SHOWDOWNS:
            raise ValueError(
                f"showdown={self.showdown!r} is not valid: expected one of " + ", ".join(SHOWDOWNS)
            )
        if not isinstance(self.team_policy, str) or self.team_policy not in TEAM_POLICIES:
            raise ValueError(
                f"team_policy={self.team_policy!r} is not valid: expected one of "
                + ", ".join(TEAM_POLICIES)
            )
        if self.team_policy != "captain" and self.players != 3:
            raise ValueError(
                f"team_policy={self.team_policy!r} needs players=3: two-player games have no "
                "sitter to advise; expected team_policy='captain'"
            )
        _check_roles(self)

    # ----------------------------------------------------------------- construction

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset (case-insensitive, ``_`` accepted for ``-``); see ``PRESETS``."""
        key = name.strip().lower().replace("_", "-") if isinstance(name, str) else None
        if key not in _PRESET_OVERRIDES:
            raise ValueError(
                f"unknown rules preset {name!r}: expected one of " + ", ".join(PRESETS)
            )
        return cls(name=key, **_PRESET_OVERRIDES[key])

    @classmethod
    def resolve(cls, preset: str | Rules | None = None,
                overrides: Mapping[str, Any] | None = None, *, where: str = "",
                roles: str | None = None) -> Rules:
        """The rules a front end plays: ``preset`` (a name as :meth:`preset` takes it, a
        ``Rules``, or None for the default) with the fields of ``overrides`` changed.

        Every front end resolves its rules here (``ginbox play --set``, experiment, league
        and tuning files, the web table, the environments, the OpenSpiel game), so a bad
        input reads the same everywhere, as one line: an unknown preset as in :meth:`preset`;
        an unknown field ``{where}{key} is not a rules field: expected one of ...``; a bad
        value ``{where}{field}=... is out of range: expected ...`` (``where`` names the place,
        e.g. ``--set `` or ``overrides.``). ``roles``, when given, refuses ``initial_roles``
        and says what sets them instead.
        """
        base = preset if isinstance(preset, Rules) else (
            cls() if preset is None else cls.preset(preset))
        if overrides is None:
            return base
        if not isinstance(overrides, Mapping):
            raise ValueError(f"overrides={overrides!r} is not valid: expected a table of "
                             "rules fields")
        for key in overrides:
            if key == "initial_roles" and roles is not None:
                raise ValueError(f"{where}initial_roles is not accepted: {roles}")
            _check_field_name(key, where, "initial_roles" if roles is not None else None)
        try:
            return dataclasses.replace(base, **overrides) if overrides else base
        except ValueError as exc:
            raise ValueError(f"{where}{exc}") from None

    def replace(self, **overrides: Any) -> Rules:
        """A validated copy with the given fields changed (the object itself is immutable)."""
        return Rules.resolve(self, overrides)

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain JSON/TOML-friendly values (``initial_roles`` a list or None).

        ``scoring``, ``shutout_doubling`` and ``showdown`` appear only when they differ from
        their defaults: they came after the log and manifest formats, whose existing records
        must not change.
        """
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in _LATER_DEFAULTS
               or getattr(self, f.name) != _LATER_DEFAULTS[f.name]}
        if out["initial_roles"] is not None:
            out["initial_roles"] = list(out["initial_roles"])
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Rules:
        """Rules from a mapping such as a TOML table or a ``to_dict`` result.

        An optional ``preset`` key names the base rules (default ``three-handed``); the other keys
        override its fields. Unknown keys are an error rather than silently ignored, so a typo in
        a config file cannot run an experiment under the wrong rules.
        """
        if not isinstance(d, Mapping):
            raise ValueError(f"rules must be a mapping of field names to values, got {d!r}")
        overrides = dict(d)
        return cls.resolve(overrides.pop("preset", None), overrides)

    def players_text(self) -> str:
        """``eaai rules seat 2 players``, for messages about the table's size; when the
        preset was changed to another size, that is said too, so the name does not read as
        a contradiction: ``three-handed rules, with players=2, seat 2 players``."""
        preset = _PRESET_OVERRIDES.get(self.name)
        changed = preset is not None and preset.get("players", 3) != self.players
        return (f"{self.name} rules{f', with players={self.players},' if changed else ''} "
                f"seat {self.players} players")

    # ----------------------------------------------------------------- engine helpers

    def hand_knock_limit(self, upcard_value: int) -> int:
        """The knock limit for one hand whose upcard has deadwood value ``upcard_value`` (1..10).

        Normally ``knock_limit``; under Oklahoma the upcard's value, where an ace (value 1)
        means gin only (0) and face cards (value 10) give 10.
        """
        if isinstance(upcard_value, bool) or not isinstance(upcard_value, int | np.integer):
            raise ValueError(
                f"upcard_value={upcard_value!r} is not valid: expected an integer 1..10"
            )
        if not 1 <= upcard_value <= 10:
            raise ValueError(
                f"upcard_value={upcard_value!r} is out of range: expected an integer 1..10"
            )
        spade_of_that_value = int(upcard_value) - 1  # rank index; a ten stands for any 10
        return int(hand_terms(self.to_array(), spade_of_that_value)[0])

    def to_array(self) -> np.ndarray:
        """The rules as a flat ``int64`` array for numba code (layout in the module docstring)."""
        arr = np.full(RULES_ARRAY_LEN, -1, np.int64)
        for at, size, value in _SLOTS:
            if size == 1:
                arr[at] = value(self)
            else:
                for i, v in enumerate(value(self)):
                    arr[at + i] = v
        return arr


#: Two-player gin with pagat/Bicycle scoring (the ``classic`` preset).
_CLASSIC: dict[str, Any] = {
    "players": 2,
    "gin_bonus": 20,
    "undercut_bonus": 10,
    "hand_bonus": 20,
    "game_bonus": 100,
    "shutout_bonus": 100,  # a shutout doubles the game bonus
}
#: Field overrides of each preset relative to the defaults (the name is added by
#: Rules.preset): the core's here, then each rules variant's (its declaration's ``presets``),
#: built on the core preset it names.
_PRESET_OVERRIDES: dict[str, dict[str, Any]] = {
    "three-handed": {},
    "three-handed-20": {"gin_bonus": 20},
    "classic": _CLASSIC,
    "eaai": {
        "players": 2,
        "gin_bonus": 25,
        "undercut_bonus": 25,
        "knock_limit": 10,
        "target": 100,
    },
}
_PRESET_OVERRIDES.update({name: {**(_PRESET_OVERRIDES[base] if base else {}), **fields}
                          for v in VARIANTS for name, (base, fields) in v.presets.items()})
#: Names accepted by :meth:`Rules.preset`, the default first: the keys of the one preset table.
PRESETS: tuple[str, ...] = tuple(_PRESET_OVERRIDES)

_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules))


def _check_field_name(key: str, where: str = "", refused: str | None = None) -> None:
    """Reject an unknown field name, so that a typo fails loudly instead of being ignored
    (``refused``: a field that is not accepted here, left out of the list)."""
    if key not in _FIELD_NAMES:
        accepted = ", ".join(f for f in _FIELD_NAMES if f != refused)
        raise ValueError(f"{where}{key} is not a rules field: expected one of {accepted}")


def is_int(value: object, *, numpy: bool = True) -> bool:
    """True for integers but not bools (``True`` as a bonus, ``games = true``, is a mistake).

    ``numpy`` accepts numpy integers too (rules fields, which are normalised to ``int``); pass
    ``numpy=False`` where only plain Python integers may appear (parsed JSON or TOML values
    that are stored and written back as they are).
    """
    if numpy:
        return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
    return isinstance(value, int) and not isinstance(value, bool)


def _check_int(rules: Rules, field_name: str, lo: int, hi: int, accepted: str) -> None:
    """Validate an integer field and store it as a plain ``int``."""
    value = getattr(rules, field_name)
    if not is_int(value):
        raise ValueError(f"{field_name}={value!r} is not valid: expected {accepted}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{field_name}={int(value)} is out of range: expected {accepted}")
    object.__setattr__(rules, field_name, int(value))


def _check_bool(rules: Rules, field_name: str) -> None:
    """Validate a flag; integers are refused so that ``oklahoma=10`` cannot slip through."""
    value = getattr(rules, field_name)
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{field_name}={value!r} is not valid: expected true or false")
    object.__setattr__(rules, field_name, bool(value))


def _check_roles(rules: Rules) -> None:
    """Validate ``initial_roles`` against ``players`` and store it as a tuple of ints."""
    roles = rules.initial_roles
    if roles is None:
        return
    n = rules.players
    meaning = "(box, captain, sitter)" if n == 3 else "(dealer, non-dealer)"
    accepted = (
        f"None or a permutation of {tuple(range(n))} giving the seats {meaning} for players={n}"
    )
    if not isinstance(roles, tuple | list) or not all(is_int(r) for r in roles):
        raise ValueError(f"initial_roles={roles!r} is not valid: expected {accepted}")
    if sorted(int(r) for r in roles) != list(range(n)):
        raise ValueError(f"initial_roles={roles!r} is not valid: expected {accepted}")
    object.__setattr__(rules, "initial_roles", tuple(int(r) for r in roles))
