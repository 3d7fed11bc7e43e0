"""The engine's one legality kernel, ``sim.engine.view.legal_moves``, against ``apply_move``.

At every decision of real hands (random legal play, several rule sets) the kernel must list
exactly the moves ``apply_move`` accepts, out of every code a strategy could answer. The View's
Python helpers must agree with it (the built-ins call the kernel itself). Also checks the layout
declarations the state offsets are unpacked from.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.decks import shuffled_deck

import sim.engine.game as game
import sim.engine.hand as hand
import sim.engine.rules as rules_mod
import sim.engine.view as view_mod
from sim.engine.cards import N_CODES
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_OVER,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.layout import Layout
from sim.engine.rules import Rules
from sim.engine.view import GI_LEN, V_LEN, View, fill_view, legal_moves

RULE_SETS = [
    Rules(),
    Rules().replace(forbid_taken_discard=False),
    Rules.preset("oklahoma"),
    Rules().replace(knock_limit=0),
    Rules.preset("classic").replace(wall=0, knock_limit=3),
]
CANDIDATES = range(-2, MOVE_NO_KNOCK + 3)  # every card code, every move, and some garbage


def _accepted(hs, pile, deck, after, moves) -> set[int]:
    """The moves apply_move accepts now, each tried on a copy of the state."""
    ok = set()
    for move in CANDIDATES:
        h, p, a, m = hs.copy(), pile.copy(), after.copy(), moves.copy()
        err = apply_move(h, p, deck, a, m, move)
        if err == OK:
            ok.add(move)
        else:  # an illegal move changes nothing
            assert np.array_equal(h, hs) and np.array_equal(p, pile) and np.array_equal(m, moves)
    return ok


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name + str(r.knock_limit))
def test_legal_moves_is_what_apply_move_accepts(rules: Rules) -> None:
    rng = np.random.default_rng(7)
    rules_array = rules.to_array()
    view = np.zeros(V_LEN, np.int64)
    game_info = np.zeros(GI_LEN, np.int64)
    out = np.zeros(2 * N_CODES, np.int64)
    decisions = 0
    for seed in range(6):
        deck = shuffled_deck(seed)
        hs, pile, after, moves = new_hand_buffers(2048)
        deal(hs, pile, deck, rules_array)
        while True:
            decision = advance(hs, pile, deck, after, moves)
            if decision == DEC_OVER:
                break
            fill_view(view, hs, pile, game_info, decision)
            n = legal_moves(view, after.copy(), out)
            listed = [int(m) for m in out[:n]]
            assert listed == sorted(set(listed)), "ascending, no repeats"
            assert set(listed) == _accepted(hs, pile, deck, after, moves), (decision, listed)
            py = View.from_arrays(view, pile)
            assert py.legal_moves() == listed
            if decision >= 2:
                if decision == DEC_DISCARD:
                    assert py.legal_discards == listed
                assert set(py.legal_discards) <= set(py.deadwood_after)
            decisions += 1
            assert apply_move(hs, pile, deck, after, moves, listed[rng.integers(n)]) == OK
    assert decisions > 50


@pytest.mark.parametrize("module, layout, length", [
    (hand, hand.HS_LAYOUT, "HS_LEN"),
    (hand, hand.AF_LAYOUT, "AFTER_LEN"),
    (game, game.GS_LAYOUT, "GS_LEN"),
    (view_mod, view_mod.V_LAYOUT, "V_LEN"),
    (view_mod, view_mod.GI_LAYOUT, "GI_LEN"),
    (rules_mod, rules_mod.RULES_LAYOUT, "RULES_ARRAY_LEN"),
])
def test_layouts_unpack_into_their_constants(module, layout: Layout, length: str) -> None:
    """Every declared piece is a module constant at its offset; pieces tile the array."""
    layout.check(vars(module))
    assert getattr(module, length) == layout.length
    at = 0
    for (name, size), offset in zip(layout.pieces, layout.offsets, strict=True):
        assert offset == at and getattr(module, layout.prefix + name) == offset
        at += size
    prefixed = {k for k, v in vars(module).items()
                if k.startswith(layout.prefix) and isinstance(v, int) and k != length}
    assert set(layout.names) <= prefixed


def test_layout_check_catches_a_misordered_unpack() -> None:
    layout = Layout("X_", [("A", 2), ("B", 1), ("C", 3)])
    assert layout.offsets == (0, 2, 3) and layout.length == 6
    X_B, X_A, X_C = layout.offsets  # noqa: N806 - deliberately swapped
    with pytest.raises(AssertionError, match="X_A"):
        layout.check({"X_A": X_A, "X_B": X_B, "X_C": X_C})
    with pytest.raises(ValueError, match="twice"):
        Layout("Y_", [("A", 1), ("A", 1)])


def test_rules_array_from_the_declaration() -> None:
    r = Rules.preset("classic").replace(initial_roles=(1, 0))
    arr = r.to_array()
    assert len(arr) == rules_mod.RULES_ARRAY_LEN
    assert arr[rules_mod.RI_PLAYERS] == 2 and arr[rules_mod.RI_GAME_BONUS] == 100
    roles = slice(rules_mod.RI_INITIAL_ROLES, rules_mod.RI_INITIAL_ROLES + 3)
    assert list(arr[roles]) == [1, 0, -1]
    assert list(Rules().to_array()[roles]) == [-1, -1, -1]
    assert arr[rules_mod.RI_HOLLYWOOD] == 0
    assert Rules.preset("hollywood").to_array()[rules_mod.RI_HOLLYWOOD] == 1


def test_rules_docstring_table_follows_the_declaration() -> None:
    """The layout table in sim.engine.rules' docstring lists the RI_* pieces in order."""
    import re

    table = re.findall(r"^``(RI_\w+)``", rules_mod.__doc__ or "", re.M)
    assert tuple(table) == rules_mod.RULES_LAYOUT.names
