"""What a rules variant declares: the hook points the core calls, one :class:`Variant` each.

A rules variant (Oklahoma, Hollywood scoring) lives in one module of this package: its
declaration (a :class:`Variant`) and its compiled kernels. Two kinds of hooks:

* **Compiled hooks** are the variant module's kernels. numba needs its calls resolved when it
  compiles, so the core calls them by name behind a plain branch on the variant's rules slot
  (``if rules[RI_HOLLYWOOD]: hollywood.enter(...)``): the standard path pays one branch, as
  before. A kernel works on its own blocks of the engine's arrays, sliced out by the core and
  indexed with the variant's own :class:`~sim.engine.layout.Layout` (offsets from 0), so the
  variant does not depend on the core modules that call it (``sim.engine.game``,
  ``sim.engine.view``); it reads the rules array through :mod:`sim.engine.rules_array`.
* **Python hooks** are the fields below: the rules' side (presets, accepted field values,
  the values of its rules-array slots), the hand log's object (write and read), the lines of a
  hand told in words, and the result columns. The core loops over
  :data:`sim.engine.variants.VARIANTS`; every hook has a default that does nothing, so a variant
  declares only what it changes. None needs anything above the engine: a reader's messages
  cut long values with the function its caller passes (``show``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def _no_lines(*_: Any) -> list[str]:
    return []


def _no_note(*_: Any) -> str:
    return ""


def _nothing_needed(*_: Any) -> str | None:
    return None


@dataclass(frozen=True)
class Variant:
    """One rules variant's declaration (module docstring: the two kinds of hooks).

    ``rules`` below is a :class:`sim.engine.rules.Rules`, ``block`` the variant's block of the
    game state (``sim.engine.game.STATE_BLOCKS``) or of the view array
    (``sim.engine.view.VIEW_BLOCKS``).
    """

    #: its name, the key of its blocks in the core's arrays
    name: str
    #: whether ``rules`` play it
    played: Callable[[Any], bool]
    #: the value of each of its rules-array slots (``RI_`` name without the prefix)
    rules_slots: Mapping[str, Callable[[Any], int]] = field(default_factory=dict)
    #: its presets: name -> (the core preset it builds on, or None for the defaults; fields)
    presets: Mapping[str, tuple[str | None, Mapping[str, Any]]] = field(default_factory=dict)
    #: values it adds to a text field of the rules (``{"scoring": ("hollywood",)}``)
    field_values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: fields the logs and manifests leave out while they hold this default (records written
    #: before the variant existed keep their bytes)
    later_defaults: Mapping[str, Any] = field(default_factory=dict)
    #: the hand-log key of its object, written after each hand while it is played
    record_key: str | None = None
    #: (block, players) -> the hand log's object
    write_record: Callable[[np.ndarray, int], Any] | None = None
    #: (the object, block, players, show) -> None: put a logged object back (ValueError if it
    #: is not one)
    read_record: Callable[[Any, np.ndarray, int, Callable[[Any], str]], None] | None = None
    #: whether a replay compares the record's ``final_scores`` after every hand
    replays_final_scores: bool = False
    #: rules -> None, or why a hand settled without its upcard cannot be (its terms need it)
    upcard_needed: Callable[[Any], str | None] = _nothing_needed
    #: rules -> words for the header of a hand told in words (``["Oklahoma"]``)
    rules_notes: Callable[[Any], list[str]] = _no_lines
    #: (rules, upcard code) -> what the upcard means for the hand (``"; a spade: ..."``)
    upcard_note: Callable[[Any, int], str] = _no_note
    #: (the record's object, rules) -> the lines that replace "Scores after the hand"
    score_lines: Callable[[Any, Any], list[str]] | None = None
    #: (record, winner's words) -> the line that replaces "Game over" when the game ends
    game_over_line: Callable[[Mapping[str, Any], str], str] | None = None
    #: per-game statistics columns it alone fills: tables of other rules leave them out
    game_columns: tuple[str, ...] = ()
    #: columns it adds to a play summary: (column, per-seat statistic summed over games)
    summary_columns: tuple[tuple[str, str], ...] = ()
    #: (summary table, games, strategy column width) -> lines after the summary's table
    summary_lines: Callable[[Any, int, int], list[str]] = _no_lines
    #: view block -> the View's fields it fills
    view_fields: Callable[[np.ndarray], dict[str, Any]] | None = None
    #: (View, view block) -> None: the block from a View (the inverse of ``view_fields``)
    view_array: Callable[[Any, np.ndarray], None] | None = None
