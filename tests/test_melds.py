"""sim.engine.melds against the brute-force oracle in tests/support/oracle.py, plus exact counts
from the rules."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.oracle import (
    MELDS,
    RUNS,
    SETS,
    bits,
    brute_best_discard,
    brute_deadwood_after_each_discard,
    brute_gin_masks,
    brute_min_deadwood,
    code,
    is_meld,
    is_run,
    is_set,
    mask_of,
    min_deadwood_of_mask,
    unbits,
    value,
)

from sim.engine import melds
from sim.engine.cards import DECK, FULL_MASK, card_str, parse_cards

DECK_CODES: list[int] = [int(c) for c in DECK]
TRAP = "4S 7S 4D 6D 7D 6C 7C 5H 6H 7H 8H"

#: Deterministic hypothesis runs: same examples every time, nothing stored between runs.
DETERMINISTIC = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

hands = st.lists(st.sampled_from(DECK_CODES), min_size=0, max_size=14, unique=True)
hands11 = st.lists(st.sampled_from(DECK_CODES), min_size=11, max_size=11, unique=True)


def random_hands(seed: int, count: int, size: int) -> list[list[int]]:
    """``count`` uniformly random hands of ``size`` cards."""
    rng = random.Random(seed)
    return [rng.sample(DECK_CODES, size) for _ in range(count)]


def meld_rich_hands(seed: int, count: int, size: int) -> list[list[int]]:
    """Hands drawn from 3-5 adjacent ranks in all four suits: full of sets, runs and overlaps."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        width = rng.randint(3, 5)
        if 4 * width < size:
            continue
        lo = rng.randint(0, 13 - width)
        pool = [code(r, s) for r in range(lo, lo + width) for s in range(4)]
        out.append(rng.sample(pool, size))
    return out


def as_mask(cards: list[int]) -> int:
    """Hand mask of card codes."""
    return bits(cards)


# ------------------------------------------------------------------------------ meld tables


def test_meld_counts_from_the_rules() -> None:
    # 13 ranks x (4 three-suit sets + 1 four-suit set) = 65 sets; per suit the runs lo..hi with
    # hi - lo >= 2 number 11 + 10 + ... + 1 = 66, so 264 runs; 329 melds in all.
    assert len(SETS) == 65 and len(RUNS) == 264 and len(MELDS) == 329
    # 3..5 cards: 65 sets + 4 suits x (11 + 10 + 9) runs = 185.
    assert sum(1 for m in MELDS if 3 <= m.bit_count() <= 5) == 185


def test_all_melds_match_the_definition() -> None:
    table = melds.ALL_MELDS
    assert isinstance(table, np.ndarray) and table.dtype == np.int64
    values = [int(m) for m in table]
    assert len(values) == 329 and len(set(values)) == 329
    assert set(values) == set(MELDS)
    assert sum(1 for m in values if is_set(m)) == 65
    assert sum(1 for m in values if is_run(m)) == 264
    assert all(is_meld(m) and m & ~FULL_MASK == 0 for m in values)


def test_search_melds_are_the_melds_of_three_to_five_cards() -> None:
    table = melds.SEARCH_MELDS
    assert isinstance(table, np.ndarray) and table.dtype == np.int64
    values = [int(m) for m in table]
    assert len(values) == 185 and len(set(values)) == 185
    assert set(values) == {m for m in MELDS if 3 <= m.bit_count() <= 5}


# ------------------------------------------------------------------------- extreme hands


def high_total_hands() -> dict[int, list[int]]:
    """Every 10-card hand with total card value >= 98, grouped by total.

    Only 16 cards are worth 10 (T J Q K in four suits) and the next values are 9 and 8, so a total
    of 100 is ten ten-valued cards, 99 is nine plus a 9, and 98 is nine plus an 8 or eight plus two
    9s. Any other hand totals at most 97.
    """
    tens = [code(r, s) for r in range(9, 13) for s in range(4)]
    nines = [code(8, s) for s in range(4)]
    eights = [code(7, s) for s in range(4)]
    groups: dict[int, list[int]] = {100: [], 99: [], 98: []}
    for ten in itertools.combinations(tens, 10):
        groups[100].append(bits(ten))
    for nine_tens in itertools.combinations(tens, 9):
        base = bits(nine_tens)
        groups[99].extend(base | 1 << c for c in nines)
        groups[98].extend(base | 1 << c for c in eights)
    for eight_tens in itertools.combinations(tens, 8):
        base = bits(eight_tens)
        groups[98].extend(base | bits(pair) for pair in itertools.combinations(nines, 2))
    return groups


def test_maximum_ten_card_deadwood_is_98() -> None:
    groups = high_total_hands()
    assert [len(groups[t]) for t in (100, 99, 98)] == [
        math.comb(16, 10),
        4 * math.comb(16, 9),
        4 * math.comb(16, 9) + 6 * math.comb(16, 8),
    ]
    for total, masks in groups.items():
        assert all(m.bit_count() == 10 for m in masks)
        assert all(sum(value(c) for c in unbits(m)) == total for m in masks)
    # Deadwood never exceeds the total, so the maximum over all hands is the maximum over these.
    dead = {t: melds.min_deadwood_batch(np.array(m, np.int64)) for t, m in groups.items()}
    # 10 cards among the 4 ranks T J Q K always hold three of a rank (a set): at most 100 - 30.
    assert dead[100].max() <= 70
    assert dead[99].max() < 98
    assert dead[98].max() == 98
    assert max(int(d.max()) for d in dead.values()) == 98
    # A witness, and the oracle agreeing on it and on a sample of each group.
    witness = "9S 9H TD TC JS JH QD QC KS KH"
    assert brute_min_deadwood(witness) == 98 and melds.min_deadwood(witness) == 98
    rng = random.Random(98)
    for total, masks in groups.items():
        idx = rng.sample(range(len(masks)), 150)
        assert [min_deadwood_of_mask(masks[i]) for i in idx] == [int(dead[total][i]) for i in idx]
    assert int((dead[98] == 98).sum()) == sum(
        1 for m in groups[98] if min_deadwood_of_mask(m) == 98
    )


# ------------------------------------------------------------------------------ gin hands


@pytest.fixture(scope="module")
def gin_table() -> np.ndarray:
    """The implementation's gin hands, computed once."""
    return melds.gin_hands()


def test_gin_hand_count(gin_table: np.ndarray) -> None:
    assert math.comb(52, 10) == 15_820_024_220
    assert isinstance(gin_table, np.ndarray)
    values = [int(m) for m in gin_table]
    assert len(values) == 136_694
    assert len(set(values)) == 136_694
    assert all(m.bit_count() == 10 and m & ~FULL_MASK == 0 for m in values)
    # The oracle builds the same hands independently, as unions of disjoint melds.
    assert set(values) == brute_gin_masks()


def test_gin_hands_have_no_deadwood(gin_table: np.ndarray) -> None:
    assert not melds.min_deadwood_batch(gin_table.astype(np.int64)).any()
    rng = random.Random(136694)
    for i in rng.sample(range(len(gin_table)), 500):
        assert min_deadwood_of_mask(int(gin_table[i])) == 0


def test_random_non_gin_hands_have_deadwood(gin_table: np.ndarray) -> None:
    members = {int(m) for m in gin_table}
    checked = 0
    for hand in random_hands(7, 1500, 10) + meld_rich_hands(8, 1500, 10):
        m = as_mask(hand)
        if m in members:
            assert min_deadwood_of_mask(m) == 0
            continue
        assert min_deadwood_of_mask(m) > 0
        checked += 1
    assert checked > 2000


# -------------------------------------------------------------------------- min_deadwood


def test_min_deadwood_small_and_large_hands() -> None:
    assert melds.min_deadwood("") == 0
    assert melds.min_deadwood([]) == 0
    assert melds.min_deadwood("KS") == 10
    assert melds.min_deadwood("AS 2S") == 3
    assert melds.min_deadwood("AS 2S 3S") == 0
    assert melds.min_deadwood("QS KS AS") == 21  # no wrap-around: Q-K-A is not a run
    assert melds.min_deadwood("KS KH KD KC") == 0
    assert melds.min_deadwood(" ".join(card_str(c) for c in DECK_CODES)) == 0
    assert melds.min_deadwood([card_str(code(r, 2)) for r in range(13)]) == 0


def test_min_deadwood_input_forms() -> None:
    text = "AS 2S 3S 9H 9D KC"
    expected = 28
    assert brute_min_deadwood(text) == expected
    assert melds.min_deadwood(text) == expected
    assert melds.min_deadwood(text.lower()) == expected
    assert melds.min_deadwood(text.split()) == expected
    assert melds.min_deadwood(parse_cards(text)) == expected
    assert melds.min_deadwood("as,2s,3s,9h,9d,kc") == expected
    assert melds.min_deadwood("10H JH QH") == 0


@pytest.mark.parametrize("size", [10, 11])
def test_min_deadwood_random_hands(size: int) -> None:
    for hand in random_hands(size, 2000, size):
        assert melds.min_deadwood(hand) == min_deadwood_of_mask(as_mask(hand)), hand


@pytest.mark.parametrize("size", [9, 10, 11, 12])
def test_min_deadwood_meld_rich_hands(size: int) -> None:
    for hand in meld_rich_hands(100 + size, 1500, size):
        assert melds.min_deadwood(hand) == min_deadwood_of_mask(as_mask(hand)), [
            card_str(c) for c in hand
        ]


@settings(DETERMINISTIC, max_examples=600)
@given(hands)
def test_min_deadwood_any_count_hypothesis(hand: list[int]) -> None:
    strings = [card_str(c) for c in hand]
    expected = brute_min_deadwood(hand)
    assert melds.min_deadwood(strings) == expected
    assert melds.min_deadwood_mask(as_mask(hand)) == expected


def test_min_deadwood_mask_and_batch_match_scalar() -> None:
    hands_ = random_hands(21, 1500, 10) + meld_rich_hands(22, 1500, 10) + random_hands(23, 300, 7)
    masks = np.array([as_mask(h) for h in hands_], np.int64)
    batch = melds.min_deadwood_batch(masks)
    assert isinstance(batch, np.ndarray) and batch.shape == (len(hands_),)
    scalar = [melds.min_deadwood_mask(int(m)) for m in masks]
    assert [int(x) for x in batch] == scalar
    assert scalar == [min_deadwood_of_mask(int(m)) for m in masks]
    assert melds.min_deadwood_batch(np.zeros(0, np.int64)).shape == (0,)


# -------------------------------------------------------------------------- best discard


def test_trap_hand_best_discard_leaves_13() -> None:
    # Discarding 8H leaves 7S 7D 7C 7H (set of four) + 6D 6C 6H (set) and 4S 4D 5H = 13 deadwood.
    # Taking the run 5H 6H 7H instead leaves 7S 7D 7C with 6D 6C 4S 4D out (20), and every other
    # discard leaves at least 14.
    expected_cards, expected = brute_best_discard(TRAP)
    assert (expected_cards, expected) == ({"8H"}, 13)
    card, dead = melds.best_discard(TRAP)
    assert (card, dead) == ("8H", 13)
    after = brute_deadwood_after_each_discard(TRAP)
    assert sorted(after.values())[1] >= 14


def check_best_discard(hand: list[int]) -> None:
    """best_discard agrees with the oracle on the deadwood and returns one of the best cards."""
    strings = [card_str(c) for c in hand]
    best_cards, best = brute_best_discard(hand)
    card, dead = melds.best_discard(strings)
    assert isinstance(card, str) and isinstance(dead, int | np.integer)
    assert dead == best, strings
    assert card in best_cards, (strings, card, best_cards)
    assert brute_min_deadwood([s for s in strings if s != card]) == best


def test_best_discard_random_hands() -> None:
    for hand in random_hands(11, 1500, 11):
        check_best_discard(hand)


def test_best_discard_meld_rich_hands() -> None:
    for hand in meld_rich_hands(12, 2000, 11):
        check_best_discard(hand)


@settings(DETERMINISTIC, max_examples=400)
@given(hands11)
def test_best_discard_hypothesis(hand: list[int]) -> None:
    check_best_discard(hand)


def test_deadwood_after_discards_matches_per_card_brute_force() -> None:
    for hand in random_hands(31, 600, 11) + meld_rich_hands(32, 900, 11) + random_hands(33, 100, 8):
        out = melds.deadwood_after_discards(as_mask(hand))
        assert isinstance(out, np.ndarray) and out.shape == (64,) and out.dtype == np.int64
        after = brute_deadwood_after_each_discard(hand)
        for c in range(64):
            if c in after:
                assert out[c] == after[c], ([card_str(x) for x in hand], card_str(c))
            else:
                assert out[c] >= 1000


# ----------------------------------------------------------------------- best arrangement


def test_best_arrangement_is_valid_and_least() -> None:
    for hand in random_hands(41, 500, 10) + meld_rich_hands(42, 1000, 10) + [parse_cards(TRAP)]:
        strings = [card_str(c) for c in hand]
        groups, dead = melds.best_arrangement(strings)
        used = 0
        for group in groups:
            m = mask_of(group)
            assert is_meld(m), group
            assert m & used == 0, groups
            used |= m
        assert used & ~as_mask(hand) == 0
        assert dead == sum(value(c) for c in hand if not used >> c & 1)
        assert dead == min_deadwood_of_mask(as_mask(hand)), strings


# ----------------------------------------------------------------------------- bad input


def test_bad_card_string_names_it() -> None:
    with pytest.raises(ValueError, match="ZZ"):
        melds.min_deadwood("AS ZZ KH")
    with pytest.raises(ValueError, match="1S"):
        melds.best_discard("AS 2S 3S 4S 5S 6S 7S 8S 9S TS 1S")


def test_duplicate_cards_rejected() -> None:
    with pytest.raises(ValueError, match="(?i)duplicate"):
        melds.min_deadwood("AS 2S AS")
    with pytest.raises(ValueError, match="(?i)duplicate"):
        melds.best_discard("AS 2S 3S 4S 5S 6S 7S 8S 9S TS as")


@pytest.mark.parametrize("count", [0, 10, 12])
def test_best_discard_needs_eleven_cards(count: int) -> None:
    hand = [card_str(c) for c in DECK_CODES[:count]]
    with pytest.raises(ValueError, match="11"):
        melds.best_discard(hand)
