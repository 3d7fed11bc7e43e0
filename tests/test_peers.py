"""benchmarks/peers: ginbox's part on tiny inputs, the table, the docs block, and the card
encodings against OpenSpiel and RLCard (both in the dev extra)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed; run from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import peers  # noqa: E402
from sim.bench import random_masks  # noqa: E402
from sim.engine.cards import DECK, card_str, mask_cards  # noqa: E402
from sim.engine.melds import best_discard, hand_mask, min_deadwood, min_deadwood_batch  # noqa: E402

TRAP_10 = [c for c in mask_cards(hand_mask(peers.TRAP_HAND)) if card_str(c) != "8H"]


def test_openspiel_index_order() -> None:
    """OpenSpiel counts suit by suit in the order s c d h, ace to king within a suit."""
    got = {card_str(int(c)): peers.to_openspiel(int(c)) for c in DECK}
    assert sorted(got.values()) == list(range(52))
    assert (got["AS"], got["KS"], got["AC"], got["AD"], got["AH"], got["KH"]) == (
        0, 12, 13, 26, 39, 51)


def test_brute_force_agrees_on_the_trap_hand() -> None:
    codes = mask_cards(hand_mask(peers.TRAP_HAND))
    assert peers.brute_best_discard(codes) == peers.TRAP_ANSWER == best_discard(codes)[1]
    assert peers.brute_min_deadwood(TRAP_10) == min_deadwood(TRAP_10) == 13
    for m in peers.meld_rich_masks(20, seed=5):
        assert int(m).bit_count() == 11
        assert peers.brute_min_deadwood(mask_cards(int(m))) == min_deadwood(mask_cards(int(m)))


def test_ginbox_rows_and_table_without_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peers.engines, "import_peer", lambda name: None)
    rows = peers.run(hands=2, games=3, deadwood=200, compare=20, brute=5, batch=2000)
    assert all(tuple(r) == peers.COLUMNS for r in rows)
    ours = [r for r in rows if r["engine"] == "ginbox"]
    assert len(ours) == 7
    rates = [r["value"] for r in ours if "/s" in r["metric"]]
    assert len(rates) == 6 and all(isinstance(v, float) and v > 0 for v in rates)
    wrong = next(r for r in ours if "wrong" in r["metric"])
    assert wrong["value"].startswith("0 of 10 ") and "13 (exact 13)" in wrong["notes"]
    others = [r for r in rows if r["engine"] != "ginbox"]
    assert {r["engine"] for r in others} == {"OpenSpiel", "RLCard"}
    assert all(r["value"] is None and r["notes"] == peers.NOT_INSTALLED for r in others)

    table = peers.markdown_table(rows).splitlines()
    assert table[0] == "| engine | metric | value | notes |"
    assert len(table) == len(rows) + 2
    assert all(line.replace("\\|", "").count("|") == 5 for line in table)
    text = peers.section(rows, "python -m benchmarks.peers --hands 2", 1.0, peers.machine())
    assert "n/a" in text and "not installed (pip install .[peers])" in text


def test_write_docs_keeps_the_rest_of_the_page(tmp_path: Path) -> None:
    doc = tmp_path / "docs" / "performance.md"
    peers.write_docs("first", doc)
    made = doc.read_text()
    assert made.startswith("# Performance") and f"{peers.BEGIN}\nfirst\n{peers.END}" in made
    doc.write_text("intro\n\n" + made.split("\n", 1)[1] + "\n## After\n\nkept\n")
    peers.write_docs("second", doc)
    again = doc.read_text()
    assert again.startswith("intro\n") and again.endswith("## After\n\nkept\n")
    assert "first" not in again and f"{peers.BEGIN}\nsecond\n{peers.END}" in again
    bare = tmp_path / "bare.md"
    bare.write_text("# Mine\n")
    peers.write_docs("third", bare)
    assert bare.read_text().startswith("# Mine\n") and peers.END in bare.read_text()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["bare.md", "docs", "performance.md"]


def test_openspiel_sees_the_same_cards() -> None:
    import pyspiel  # the dev extra installs both peers: never skipped
    u = peers.openspiel_utils(pyspiel)
    for c in DECK:
        text = card_str(int(c))
        assert u.card_string(peers.to_openspiel(int(c))) == text[0] + text[1].lower()
    assert u.min_deadwood([peers.to_openspiel(c) for c in TRAP_10]) == min_deadwood(TRAP_10)
    eleven = [peers.to_openspiel(c) for c in mask_cards(hand_mask(peers.TRAP_HAND))]
    assert u.min_deadwood(eleven) >= peers.TRAP_ANSWER  # OpenSpiel says 14: it melds first
    m10 = random_masks(200, 10, seed=9)
    theirs = [u.min_deadwood(h) for h in peers.openspiel_hands(m10)]
    assert theirs == min_deadwood_batch(m10).tolist()


def test_rlcard_sees_the_same_cards() -> None:
    from rlcard.games.gin_rummy.utils import utils

    for c in DECK:
        card = utils.card_from_text(peers.to_rlcard_text(int(c)))
        assert utils.get_card_id(card) == int(c) // 16 * 13 + int(c) % 16
    fn = peers.rlcard_min_deadwood_fn()
    assert fn(peers.rlcard_hands(np.array([hand_mask(TRAP_10)]))[0]) == 13
    m10 = random_masks(100, 10, seed=9)
    assert [fn(h) for h in peers.rlcard_hands(m10)] == min_deadwood_batch(m10).tolist()


def test_environment_rows_without_gin_rummy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The --envs measurement on tiny inputs: ginbox's four rates, and gin_rummy_v4's rows say
    how to get it when no interpreter has it."""
    rows = peers.env_rows(aec_steps=300, vector_total=2000, num_envs=16, repeats=1,
                          python=None)
    ours = [r for r in rows if r["engine"] == "ginbox"]
    assert [r["metric"].split(",")[0] for r in ours] == [
        "AEC steps/s", "AEC steps/s", "VectorEnv steps/s", "VectorEnv steps/s"]
    assert all(isinstance(r["value"], float) and r["value"] > 0 for r in ours)
    missing = [r for r in rows if r["engine"] == "PettingZoo gin_rummy_v4"]
    assert len(missing) == 2 and all(r["value"] is None and "--setup-gin-rummy" in r["notes"]
                                     for r in missing)
    text = peers.env_section(rows, "python -m benchmarks.peers --envs", 1.0, peers.machine())
    assert text.startswith("### The learning environments") and "| n/a |" in text
    monkeypatch.delenv("GINBOX_GIN_RUMMY_PYTHON", raising=False)
    assert peers.gin_rummy_python(sys.executable) == sys.executable
