"""Rules variants as declarations and hooks (sim/engine/variants): the core's tables follow
the declarations, the blocks sit where the core's layouts put them, and the Python hooks
invert each other. The variants' rules themselves are checked by test_hollywood.py,
test_rules.py and test_referee.py, their logs by test_golden.py and test_replay.py."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine import game
from sim.engine import rules as rules_mod
from sim.engine import view as view_mod
from sim.engine.rules import PRESETS, SCORINGS, Rules
from sim.engine.rules_array import RULES_LAYOUT
from sim.engine.showdown import settle
from sim.engine.variants import VARIANTS, played_by
from sim.engine.variants import hollywood as hw
from sim.engine.variants.base import Variant
from sim.engine.variants.oklahoma import hand_terms
from sim.engine.view import GI_LAYOUT, V_LAYOUT, View
from sim.openspiel.python_game import hand_points_bound
from sim.play.driver import play_games


def test_the_registry_names_each_variant_once_with_its_slots_in_the_rules_array() -> None:
    assert [v.name for v in VARIANTS] == ["oklahoma", "hollywood"]
    names = {name for name, _ in RULES_LAYOUT.pieces}
    slots = [slot for v in VARIANTS for slot in v.rules_slots]
    assert sorted(slots) == ["HOLLYWOOD", "OKLAHOMA", "SPADE_DOUBLING"]
    assert set(slots) <= names
    arr = Rules(oklahoma=True, scoring="hollywood").to_array()
    assert (arr[rules_mod.RI_OKLAHOMA], arr[rules_mod.RI_SPADE_DOUBLING],
            arr[rules_mod.RI_HOLLYWOOD]) == (1, 0, 1)


def test_presets_and_field_values_come_from_the_declarations_in_order() -> None:
    assert PRESETS == ("three-handed", "three-handed-20", "classic", "eaai", "oklahoma",
                       "hollywood", "three-handed-hollywood")
    assert SCORINGS == ("standard", "hollywood")
    classic = Rules.preset("classic")
    assert Rules.preset("hollywood") == classic.replace(
        name="hollywood", scoring="hollywood", shutout_bonus=0, shutout_doubling=True)
    assert Rules.preset("three-handed-hollywood").to_dict() == {
        **Rules().to_dict(), "name": "three-handed-hollywood", "hand_bonus": 20,
        "game_bonus": 100, "scoring": "hollywood", "shutout_doubling": True}
    assert "scoring" not in Rules().to_dict()  # a later field, left out at its default


def test_played_by_follows_the_rules() -> None:
    assert played_by(Rules()) == ()
    assert [v.name for v in played_by(Rules.preset("oklahoma"))] == ["oklahoma"]
    assert [v.name for v in played_by(Rules(spade_doubling=True))] == ["oklahoma"]
    both = Rules.preset("hollywood").replace(oklahoma=True)
    assert [v.name for v in played_by(both)] == ["oklahoma", "hollywood"]


def test_hollywood_blocks_sit_where_the_core_layouts_put_them() -> None:
    """Each block's pieces follow each other in the core's layout as in the variant's own,
    from the block's start: a kernel's offsets from 0 land on the core's constants."""
    for block, core, start, prefix in ((hw.SHEET, game.GS_LAYOUT, game.GS_HW_OPENED, "HW_"),
                                       (hw.FACTS, GI_LAYOUT, view_mod.GI_HOLLYWOOD, ""),
                                       (hw.VIEW, V_LAYOUT, view_mod.V_HOLLYWOOD, "")):
        block.check(vars(hw))
        for name, size in block.pieces:
            assert core.offset(prefix + name) - start == block.offset(name)
            assert core.size(prefix + name) == size
    assert game.STATE_BLOCKS["hollywood"] == slice(game.GS_HW_OPENED, game.GS_LEN)
    assert view_mod.VIEW_BLOCKS["hollywood"] == slice(view_mod.V_HOLLYWOOD, V_LAYOUT.length)


def test_the_sheet_record_reads_back_into_the_same_sheet() -> None:
    log = play_games("simple,greedy-knock", rules="hollywood", games=1, seed=5, log=True).log
    assert log is not None
    record = log[-1]["hollywood"]
    assert [g["winner"] is not None for g in record["games"]] == [True, True, True]
    sheet = np.zeros(hw.SHEET.length, np.int64)
    hw.load_sheet(record, sheet, 2)
    assert hw.sheet_record(sheet, 2) == record
    with pytest.raises(ValueError, match=r"'hollywood.opened' is \[1\], not 2 integers >= 0"):
        hw.load_sheet({**record, "opened": [1]}, sheet, 2)


def test_the_view_fields_and_the_view_block_invert_each_other() -> None:
    block = np.arange(hw.VIEW.length, dtype=np.int64) % 4
    block[hw.HV_HOLLYWOOD] = 1
    to_fields, to_block = hw.HOLLYWOOD.view_fields, hw.HOLLYWOOD.view_array
    assert to_fields is not None and to_block is not None
    fields = to_fields(block)
    assert hw.HV_GAME_OPEN == 10 and fields["games_open"] == (True, True, False)  # 2, 3, 0
    assert fields["game_scores"] == (1, 2, 3) and fields["other_games_opened"] == 3  # slot 15
    back = np.zeros(hw.VIEW.length, np.int64)
    to_block(View(**{**_plain_view_fields(), **fields}), back)  # type: ignore[arg-type]
    assert back.tolist() == [*block[:10].tolist(), 1, 1, 0, *block[13:].tolist()]
    assert to_fields(np.zeros(hw.VIEW.length, np.int64)) == {}


def _plain_view_fields() -> dict[str, object]:
    return dict(hand=(), role="dealer", decision="none", stock_count=0, turn=0, discard_pile=(),
                opponent_took=(), opponent_discarded=(), opponent_declined=None,
                self_declined=None, self_took=(), self_discarded=(), drawn=None, taken=None,
                knock_limit=10, upcard=0, score=0, opponent_score=0, other_score=0, target=100,
                wall=2, gin_bonus=25, undercut_bonus=10, knocked=False, deadwood=0,
                deadwood_after={})


def test_oklahoma_terms_and_the_openspiel_bound() -> None:
    ok = Rules.preset("oklahoma").to_array()
    assert [hand_terms(ok, c) for c in (0, 9, 12, 16 + 4, -1)] == [
        (0, 2), (10, 2), (10, 2), (5, 1), (10, 1)]
    assert hand_points_bound(Rules()) == 123  # gin on 98 deadwood plus 25
    assert hand_points_bound(Rules.preset("oklahoma")) == 246  # spade doubling
    undercut = Rules(knock_limit=3, gin_bonus=0, undercut_bonus=200)
    assert hand_points_bound(undercut) == 203
    assert hand_points_bound(undercut.replace(oklahoma=True)) == 210  # a ten as upcard


def test_a_declaration_needs_only_what_it_changes() -> None:
    plain = Variant(name="plain", played=lambda rules: False)
    assert plain.rules_notes(Rules()) == [] and plain.upcard_note(Rules(), 0) == ""
    assert plain.summary_lines(None, 0, 8) == []
    assert plain.write_record is None and plain.game_columns == ()


def test_a_settled_hand_needs_the_upcard_only_where_its_terms_come_from_it() -> None:
    knocker, defender = "AS 2S 3S 4H 5H 6H 7C 8C 9C KD", "AD 2D 3D 4D 5C 6C 7D 8S 9S QH"
    with pytest.raises(ValueError, match="^oklahoma rules need the hand's upcard to set the "
                                         "knock limit$"):
        settle(knocker, defender, rules=Rules(oklahoma=True))
    plain = settle(knocker, defender, rules=Rules(spade_doubling=True))  # no upcard: not doubled
    assert plain.points == settle(knocker, defender).points > 0
    assert settle(knocker, defender, rules=Rules(spade_doubling=True), upcard="TS").points == (
        2 * plain.points)
