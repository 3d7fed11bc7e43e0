"""The rules array's layout: where compiled code reads each rules option.

:meth:`sim.engine.rules.Rules.to_array` packs the rules into a flat ``int64`` array (its
slots, in order, are tabled in :mod:`sim.engine.rules`' docstring). The layout is declared here,
apart from the ``Rules`` class, because the rules variants' kernels
(:mod:`sim.engine.variants`) read the array while ``Rules`` reads the variants' declarations
(their presets, field values and the values of their slots): this module sits below both, so
the imports stay one-way. The order is fixed: compiled code, tests and tables index it.
"""

from __future__ import annotations

from sim.engine.layout import Layout

RULES_LAYOUT = Layout("RI_", [
    ("PLAYERS", 1),
    ("GIN_BONUS", 1),
    ("UNDERCUT_BONUS", 1),
    ("KNOCK_LIMIT", 1),
    ("TARGET", 1),
    ("WALL", 1),
    ("MAX_TURNS", 1),
    ("FORBID_TAKEN_DISCARD", 1),
    ("OKLAHOMA", 1),  # the Oklahoma variant's (sim.engine.variants.oklahoma)
    ("SPADE_DOUBLING", 1),  # the Oklahoma variant's
    ("TEAM_ADVISOR", 1),
    ("HAND_BONUS", 1),
    ("GAME_BONUS", 1),
    ("SHUTOUT_BONUS", 1),
    ("INITIAL_ROLES", 3),  # unused slots stay -1
    ("HOLLYWOOD", 1),  # the Hollywood variant's (sim.engine.variants.hollywood)
    ("SHUTOUT_DOUBLING", 1),
    ("TEAM_CONSENSUS", 1),
    ("SHOWDOWN_EAAI", 1),
])
(RI_PLAYERS, RI_GIN_BONUS, RI_UNDERCUT_BONUS, RI_KNOCK_LIMIT, RI_TARGET, RI_WALL, RI_MAX_TURNS,
 RI_FORBID_TAKEN_DISCARD, RI_OKLAHOMA, RI_SPADE_DOUBLING, RI_TEAM_ADVISOR, RI_HAND_BONUS,
 RI_GAME_BONUS, RI_SHUTOUT_BONUS, RI_INITIAL_ROLES, RI_HOLLYWOOD,
 RI_SHUTOUT_DOUBLING, RI_TEAM_CONSENSUS, RI_SHOWDOWN_EAAI) = RULES_LAYOUT.offsets
RULES_LAYOUT.check(globals())
RULES_ARRAY_LEN = RULES_LAYOUT.length
