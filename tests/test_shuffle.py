"""The deck shuffle (``sim.engine.game.shuffle_deck`` from ``sim.engine.rng`` streams) is uniform
and reproducible.

Uniformity is tested on the position-card counts of 20,000 shuffles with a chi-square test per
card (51 degrees of freedom) and for the whole 52 x 52 table (2,601). The seeds are fixed, so
the statistics are the same on every run, and the threshold is a p-value of 1e-6: a correct
shuffle does not fail by chance, while a biased one is far beyond it (the negative control below
shows the test rejects Sattolo's algorithm, Fisher-Yates with the classic off-by-one).

No scipy here: p-values use the Wilson-Hilferty normal approximation of the chi-square
distribution, accurate to well within the margin these thresholds leave.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.engine.cards import DECK
from sim.engine.game import shuffle_deck
from sim.engine.rng import GOLDEN, seed_words, stream_seed

N = 20_000
P_MIN = 1e-6
INDEX = {int(c): i for i, c in enumerate(DECK)}  # card code -> 0..51


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom (Wilson-Hilferty)."""
    h = 2.0 / (9.0 * df)
    z = ((x / df) ** (1.0 / 3.0) - (1.0 - h)) / math.sqrt(h)
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def position_counts(decks: np.ndarray) -> np.ndarray:
    """counts[card, position]: how often each card (0..51) lies at each position."""
    counts = np.zeros((52, 52), np.int64)
    for pos in range(52):
        counts[:, pos] = np.bincount(decks[:, pos], minlength=52)
    return counts


def p_values(counts: np.ndarray) -> tuple[np.ndarray, float]:
    """Per-card chi-square p-values (position uniform) and that of the whole table."""
    expected = counts.sum() / 52 / 52
    stat = ((counts - expected) ** 2 / expected).sum(axis=1)
    per_card = np.array([chi2_sf(float(s), 51) for s in stat])
    return per_card, chi2_sf(float(stat.sum()), 51 * 51)


def engine_decks(states: list[np.uint64], per_stream: int) -> np.ndarray:
    """``per_stream`` consecutive shuffles from each stream, as rows of card indices 0..51."""
    out = np.zeros((len(states) * per_stream, 52), np.int64)
    deck = np.zeros(52, np.int64)
    k = 0
    for s in states:
        rng = np.array([s], np.uint64)
        for _ in range(per_stream):
            shuffle_deck(deck, rng)
            out[k] = [INDEX[int(c)] for c in deck]
            k += 1
    return out


@pytest.mark.parametrize(("label", "states", "per_stream"), [
    # the first deck of each of N games (what every game of a run starts from)
    ("first deck of each game", [stream_seed(seed_words(2024, 0), g) for g in range(N)], 1),
    # N consecutive hands of one game's stream
    ("hands of one game", [stream_seed(seed_words(7, 0), 0)], N),
])
def test_shuffle_puts_every_card_anywhere_uniformly(label: str, states: list[np.uint64],
                                                    per_stream: int) -> None:
    decks = engine_decks(states, per_stream)
    assert (np.sort(decks, axis=1) == np.arange(52)).all(), "a shuffle is not a permutation"
    per_card, whole = p_values(position_counts(decks))
    worst = int(per_card.argmin())
    assert per_card[worst] > P_MIN, (
        f"{label}: card {worst} is not uniform over the positions (p = {per_card[worst]:.2e})"
    )
    assert whole > P_MIN, f"{label}: the position-card table is not uniform (p = {whole:.2e})"


def test_the_uniformity_test_rejects_a_biased_shuffle() -> None:
    """Negative control: Sattolo's algorithm (j < i instead of j <= i) only makes cyclic
    permutations, so no card stays in place; the same test must reject it."""
    rng = np.random.default_rng(5)
    decks = np.tile(np.arange(52), (N, 1))
    rows = np.arange(N)
    for i in range(51, 0, -1):
        j = rng.integers(0, i, size=N)
        decks[rows, i], decks[rows, j] = decks[rows, j], decks[rows, i].copy()
    per_card, whole = p_values(position_counts(decks))
    assert per_card.max() < P_MIN and whole < P_MIN


def test_chi2_tail_approximation() -> None:
    """Wilson-Hilferty against chi-square table quantiles (and near the median)."""
    assert chi2_sf(86.661, 50) == pytest.approx(1e-3, rel=0.1)
    assert chi2_sf(149.449, 100) == pytest.approx(1e-3, rel=0.1)
    assert chi2_sf(43.773, 30) == pytest.approx(0.05, rel=0.1)
    assert chi2_sf(51.0, 51) == pytest.approx(0.47, abs=0.02)


def test_shuffle_streams_are_deterministic_per_seed() -> None:
    """The same stream state gives the same decks; a shuffle draws exactly 51 numbers from the
    stream (so a hand's shuffle leaves the stream where the next hand expects it)."""
    base = stream_seed(seed_words(11, 0), 3)
    first = engine_decks([base], 5)
    again = engine_decks([base], 5)
    np.testing.assert_array_equal(first, again)
    assert len({tuple(row) for row in first}) == 5, "consecutive shuffles repeat a deck"
    other = engine_decks([stream_seed(seed_words(11, 0), 4)], 5)
    assert not (first == other).all(axis=1).any(), "two games share a deck"
    rng = np.array([base], np.uint64)
    shuffle_deck(np.zeros(52, np.int64), rng)
    assert int(rng[0]) == (int(base) + 51 * int(GOLDEN)) % 2**64
