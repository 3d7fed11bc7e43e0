"""Golden playthroughs: complete logged matches, one per preset, checked byte for byte.

They pin the behaviour of the whole engine (deal, rules, showdown, scoring, rotation, every
built-in strategy, the hand log format) so that a refactor is proven behaviour-preserving.
Regenerate them with ``python tests/golden/make_golden.py`` only when a change is meant to alter
play.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
import make_golden  # noqa: E402

PRESETS = sorted(make_golden.GOLDEN)


@pytest.mark.parametrize("preset", PRESETS)
def test_logged_match_is_byte_identical(preset: str, tmp_path: Path) -> None:
    fresh = tmp_path / "log.jsonl"
    make_golden.write_log(preset, fresh)
    assert fresh.read_bytes() == make_golden.log_path(preset).read_bytes()


@pytest.mark.parametrize("preset", PRESETS)
def test_compiled_batch_table_is_byte_identical(preset: str) -> None:
    assert make_golden.games_csv(preset) == make_golden.table_path(preset).read_text()


def test_every_preset_has_a_golden_match() -> None:
    from sim.engine.rules import PRESETS as ALL_PRESETS

    assert set(PRESETS) == set(ALL_PRESETS)
