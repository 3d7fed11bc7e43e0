"""The 329 melds as masks, and least deadwood by a small compiled search.

Why it is fast: a hand is a 64-bit mask (see :mod:`sim.engine.cards`). The cards that belong to
*some*
meld inside a mask (its *cover*) come from a few shifts and ANDs; every other card is deadwood
whatever the arrangement. The search then only branches over cover cards: take the lowest one,
and either leave it as deadwood or lay it in one of the (at most 16) melds of 3..5 cards that
contain it. Runs of 6 or more never need to be tried: they are two shorter runs covering the same
cards. The 11-card search records, at every leaf, the deadwood for each card that leaf leaves
unmelded, so one search yields the best discard and the deadwood after every possible discard.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import int64
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.types import UniTuple

from sim.engine.cards import (
    CARD_VALUE,
    N_CODES,
    N_RANKS,
    N_SUITS,
    SUIT_STRIDE,
    card_str,
    mask_cards,
    parse_cards,
    sort_for_display,
)
from sim.engine.jit import allocating, kernel

SUIT_BITS = (1 << N_RANKS) - 1  # 13 low bits of one suit
NO_CARD = 1000  # sentinel deadwood for codes not in the hand
MAX_DEPTH = 64  # search depth bound: each level consumes at least one card
SEARCH_STACK_ROWS = 6  # rows of the scratch stack the explicit-stack searches take


def _build_melds() -> tuple[np.ndarray, np.ndarray]:
    """All 329 melds (65 sets then 264 runs) as masks, with their kind (0 set, 1 run)."""
    masks: list[int] = []
    kinds: list[int] = []
    for rank in range(N_RANKS):
        suits_of_rank = [s * SUIT_STRIDE + rank for s in range(N_SUITS)]
        for left_out in range(N_SUITS):
            masks.append(sum(1 << c for i, c in enumerate(suits_of_rank) if i != left_out))
            kinds.append(0)
        masks.append(sum(1 << c for c in suits_of_rank))
        kinds.append(0)
    for suit in range(N_SUITS):
        for length in range(3, N_RANKS + 1):
            for low in range(N_RANKS - length + 1):
                masks.append(sum(1 << (suit * SUIT_STRIDE + r) for r in range(low, low + length)))
                kinds.append(1)
    return np.array(masks, np.int64), np.array(kinds, np.int64)


#: Every meld as a mask: 65 sets, then 264 runs.
ALL_MELDS, ALL_MELD_KINDS = _build_melds()
_SIZES = np.array([bin(int(m)).count("1") for m in ALL_MELDS], np.int64)
#: The 185 melds of 3..5 cards, which are all a least-deadwood search needs.
SEARCH_MELDS = ALL_MELDS[_SIZES <= 5].copy()
SEARCH_MELD_KINDS = ALL_MELD_KINDS[_SIZES <= 5].copy()


def _meld_value(mask: int) -> int:
    return int(sum(CARD_VALUE[c] for c in mask_cards(mask)))


SEARCH_MELD_VALUES = np.array([_meld_value(int(m)) for m in SEARCH_MELDS], np.int64)

#: For each card code, the indices into SEARCH_MELDS of the melds containing it (-1 padded).
MAX_MELDS_PER_CARD = 16
CARD_MELDS = np.full((N_CODES, MAX_MELDS_PER_CARD), -1, np.int64)
CARD_MELD_COUNT = np.zeros(N_CODES, np.int64)
for _i, _m in enumerate(SEARCH_MELDS):
    for _c in mask_cards(int(_m)):
        CARD_MELDS[_c, CARD_MELD_COUNT[_c]] = _i
        CARD_MELD_COUNT[_c] += 1

#: Sum of card values of a 13-bit single-suit pattern.
SUIT_PATTERN_VALUE = np.zeros(1 << N_RANKS, np.int64)
for _p in range(1, 1 << N_RANKS):
    SUIT_PATTERN_VALUE[_p] = sum(min(r + 1, 10) for r in range(N_RANKS) if _p >> r & 1)
_SUIT_VALUE16 = SUIT_PATTERN_VALUE.astype(np.int16)


# --------------------------------------------------------------------------------------------
# Compiled kernels on masks
# --------------------------------------------------------------------------------------------


@kernel(inline="always")
def mask_value(h: int) -> int:
    """Total card value of a mask (four lookups in a 16 KB table that stays in L1)."""
    return (
        np.int64(_SUIT_VALUE16[h & SUIT_BITS])
        + _SUIT_VALUE16[(h >> 16) & SUIT_BITS]
        + _SUIT_VALUE16[(h >> 32) & SUIT_BITS]
        + _SUIT_VALUE16[(h >> 48) & SUIT_BITS]
    )


@kernel(inline="always")
def lowest_card(h: int) -> int:
    """Code of the lowest card in a non-empty mask (one count-trailing-zeros instruction)."""
    return trailing_zeros(h)


@kernel(inline="always")
def popcount(h: int) -> int:
    """Number of cards in a mask."""
    n = 0
    while h:
        h &= h - 1
        n += 1
    return n


@kernel
def meld_cover(h: int) -> int:
    """The cards of ``h`` that belong to at least one meld made of cards of ``h``."""
    a = h & SUIT_BITS
    b = (h >> 16) & SUIT_BITS
    c = (h >> 32) & SUIT_BITS
    d = (h >> 48) & SUIT_BITS
    three = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
    sets = (three | (three << 16) | (three << 32) | (three << 48)) & h
    starts = h & (h >> 1) & (h >> 2)
    runs = starts | (starts << 1) | (starts << 2)
    return sets | runs


def new_search_stack() -> np.ndarray:
    """Scratch for :func:`search_best_melds` and :func:`enumerate_arrangements`."""
    return np.zeros((SEARCH_STACK_ROWS, MAX_DEPTH), np.int64)


@kernel
def search_best_melds(cover: int, best_melds: np.ndarray,
                      stack: np.ndarray) -> tuple[int, int]:
    """Largest total value of disjoint melds inside ``cover`` (branch and bound).

    Writes the chosen meld indices (into SEARCH_MELDS) to ``best_melds`` and returns
    (melded value, number of melds). ``stack`` is the caller's (SEARCH_STACK_ROWS, MAX_DEPTH)
    scratch, so the search allocates nothing.
    """
    rem = stack[0]
    acc = stack[1]
    opt = stack[2]
    chosen = stack[3]
    n_chosen = stack[4]
    best = 0
    n_best = 0
    depth = 0
    rem[0] = meld_cover(cover)
    acc[0] = 0
    opt[0] = 0
    n_chosen[0] = 0
    while depth >= 0:
        r = rem[depth]
        a = acc[depth]
        if r == 0:
            if a > best:
                best = a
                n_best = n_chosen[depth]
                for j in range(n_best):
                    best_melds[j] = chosen[j]
            depth -= 1
            continue
        if a + mask_value(r) <= best:
            depth -= 1
            continue
        c = lowest_card(r)
        k = opt[depth]
        n = CARD_MELD_COUNT[c]
        if k < n:
            opt[depth] = k + 1
            m = CARD_MELDS[c, k]
            mm = SEARCH_MELDS[m]
            if mm & r == mm:
                chosen[n_chosen[depth]] = m
                n_chosen[depth + 1] = n_chosen[depth] + 1
                rem[depth + 1] = meld_cover(r & ~mm)
                acc[depth + 1] = a + SEARCH_MELD_VALUES[m]
                opt[depth + 1] = 0
                depth += 1
        elif k == n:
            opt[depth] = k + 1
            n_chosen[depth + 1] = n_chosen[depth]
            rem[depth + 1] = meld_cover(r & ~(1 << c))
            acc[depth + 1] = a
            opt[depth + 1] = 0
            depth += 1
        else:
            depth -= 1
    return best, n_best


@kernel(signature=int64(int64, int64, int64))
def _max_melds_from(r: int, acc: int, best: int) -> int:
    """Branch and bound below one node: ``r`` the cover cards left, ``acc`` melded so far.

    Recursion beats an explicit stack here: numba keeps the frames in registers and allocates
    nothing, about four times faster on random hands. The explicit signature matters: numba's
    on-disk cache cannot reload recursive functions whose types it had to infer.
    """
    if r == 0:
        return acc if acc > best else best
    if acc + mask_value(r) <= best:
        return best
    c = lowest_card(r)
    for k in range(CARD_MELD_COUNT[c]):
        m = CARD_MELDS[c, k]
        mm = SEARCH_MELDS[m]
        if mm & r == mm:
            best = _max_melds_from(meld_cover(r & ~mm), acc + SEARCH_MELD_VALUES[m], best)
    return _max_melds_from(meld_cover(r & ~(1 << c)), acc, best)


@kernel
def max_meld_value(cover: int) -> int:
    """Largest total value of disjoint melds inside ``cover``."""
    r = meld_cover(cover)
    if r == 0:
        return 0
    return _max_melds_from(r, 0, 0)


@kernel
def min_deadwood_mask(h: int) -> int:
    """Least deadwood of exactly the cards of ``h`` (no discard)."""
    cover = meld_cover(h)
    if cover == 0:
        return mask_value(h)
    return mask_value(h) - max_meld_value(cover)


@allocating
def min_deadwood_batch(masks: np.ndarray) -> np.ndarray:
    """:func:`min_deadwood_mask` over an array of masks."""
    out = np.empty(masks.shape[0], np.int64)
    for i in range(masks.shape[0]):
        out[i] = min_deadwood_mask(masks[i])
    return out


@kernel(signature=int64(int64, int64, int64, int64, int64, int64[:]))
def _after_discards_from(r: int, used: int, acc: int, total: int, cover: int,
                         out: np.ndarray) -> int:
    """Visit every collection of disjoint melds below one node; return the best melded value.

    At each leaf, every cover card left unmelded is a candidate discard worth
    ``total - melded - value(card)``.
    """
    if r == 0:
        free = cover & ~used
        while free:
            low = free & -free
            c = lowest_card(low)
            v = total - acc - CARD_VALUE[c]
            if v < out[c]:
                out[c] = v
            free ^= low
        return acc
    c = lowest_card(r)
    best = _after_discards_from(meld_cover(r & ~(1 << c)), used, acc, total, cover, out)
    for k in range(CARD_MELD_COUNT[c]):
        m = CARD_MELDS[c, k]
        mm = SEARCH_MELDS[m]
        if mm & r == mm:
            v = _after_discards_from(meld_cover(r & ~mm), used | mm,
                                     acc + SEARCH_MELD_VALUES[m], total, cover, out)
            if v > best:
                best = v
    return best


@kernel
def fill_deadwood_after_discards(h: int, out: np.ndarray) -> int:
    """One search over ``h``: ``out[c]`` = least deadwood after discarding card ``c``.

    ``out`` has 64 entries; codes not in ``h`` get ``NO_CARD``. Returns the least deadwood after
    the best discard. Every collection of disjoint melds inside the cover is a leaf; a leaf
    leaving card ``c`` unmelded offers ``total - melded - value(c)`` for discarding ``c``.
    Cards outside the cover are deadwood in every arrangement, so the best leaf serves them.
    """
    for i in range(N_CODES):
        out[i] = NO_CARD
    total = mask_value(h)
    cover = meld_cover(h)
    best_melded = 0
    if cover:
        best_melded = _after_discards_from(cover, 0, 0, total, cover, out)
    outside = h & ~cover
    while outside:
        low = outside & -outside
        c = lowest_card(low)
        out[c] = total - best_melded - CARD_VALUE[c]
        outside ^= low
    best = NO_CARD
    for i in range(N_CODES):
        if out[i] < best:
            best = out[i]
    return best


@kernel(inline="always")
def max_card_value(h: int) -> int:
    """Largest card value in a mask (0 when empty)."""
    best = 0
    while h:
        c = trailing_zeros(h)
        if CARD_VALUE[c] > best:
            best = CARD_VALUE[c]
        h &= h - 1
    return best


@kernel(signature=UniTuple(int64, 2)(int64, int64, int64, int64, int64, int64, int64))
def _best_discard_from(r: int, acc: int, loose_max: int, loose: int, forbidden: int,
                       best: int, ties: int) -> tuple[int, int]:
    """Branch and bound for the best discard below one node.

    ``r``: cover cards not yet decided; ``acc``: value melded so far; ``loose``: cards decided
    unmelded (discard candidates, the forbidden card left out) and ``loose_max`` the largest
    value among them. A leaf scores ``acc + loose_max`` (kept value plus the value thrown
    away); ``best`` is the highest score so far and ``ties`` every discard reaching it.
    """
    if r == 0:
        if loose == 0:
            return best, ties
        score = acc + loose_max
        if score > best:
            best = score
            ties = 0
        if score == best:
            m = loose
            while m:
                c = trailing_zeros(m)
                if CARD_VALUE[c] == loose_max:
                    ties |= 1 << c
                m &= m - 1
        return best, ties
    rv = mask_value(r)
    # a leaf below scores at most acc + rv (a card of r thrown away) or acc + rv + loose_max
    if acc + rv + loose_max < best:
        return best, ties
    c = trailing_zeros(r)
    for k in range(CARD_MELD_COUNT[c]):
        m = CARD_MELDS[c, k]
        mm = SEARCH_MELDS[m]
        if mm & r == mm:
            rest = r & ~mm
            cover = meld_cover(rest)
            dropped = rest & ~cover & ~forbidden
            best, ties = _best_discard_from(cover, acc + SEARCH_MELD_VALUES[m],
                                            max(loose_max, max_card_value(dropped)),
                                            loose | dropped, forbidden, best, ties)
    rest = r & ~(1 << c)
    cover = meld_cover(rest)
    dropped = ((rest & ~cover) | (1 << c)) & ~forbidden
    return _best_discard_from(cover, acc, max(loose_max, max_card_value(dropped)),
                              loose | dropped, forbidden, best, ties)


@kernel
def best_discard_search(h: int, forbidden: int) -> tuple[int, int]:
    """Least deadwood of ``h`` after discarding one card other than ``forbidden`` (-1: any).

    Returns (deadwood, mask of every discard that leaves exactly that). One branch-and-bound
    search: it maximises melded value plus the value of the card thrown away.
    """
    total = mask_value(h)
    cover = meld_cover(h)
    forbidden_mask = (1 << forbidden) if forbidden >= 0 else 0
    outside = h & ~cover & ~forbidden_mask
    best, ties = _best_discard_from(cover, 0, max_card_value(outside), outside,
                                    forbidden_mask, -1, 0)
    if best < 0:
        return NO_CARD, 0
    # the ties found for an optimal leaf are the loose cards of the top value there; a card
    # of another value can tie only through another leaf, which the search also visits
    return total - best, ties


@allocating
def deadwood_after_discards(h: int) -> np.ndarray:
    """Array of 64: least deadwood after discarding each card of ``h`` (``NO_CARD`` elsewhere)."""
    out = np.empty(N_CODES, np.int64)
    fill_deadwood_after_discards(h, out)
    return out


@kernel
def pick_highest(cards: int) -> int:
    """The highest-value card of a mask; among equals, the highest code."""
    pick = -1
    while cards:
        c = trailing_zeros(cards)
        if pick < 0 or CARD_VALUE[c] >= CARD_VALUE[pick]:
            pick = c
        cards &= cards - 1
    return pick


@kernel
def best_discard_mask(h: int) -> tuple[int, int]:
    """(card, deadwood) of a best discard; ties go to the higher-value card, then higher code."""
    best, ties = best_discard_search(h, -1)
    return pick_highest(ties), best


@allocating
def best_discard_batch(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`best_discard_mask` over an array of masks: (cards, deadwoods)."""
    cards = np.empty(masks.shape[0], np.int64)
    dws = np.empty(masks.shape[0], np.int64)
    for i in range(masks.shape[0]):
        cards[i], dws[i] = best_discard_mask(masks[i])
    return cards, dws


@kernel
def enumerate_arrangements(h: int, max_deadwood: int, out: np.ndarray,
                           out_melded: np.ndarray, stack: np.ndarray) -> int:
    """Every collection of disjoint melds (of 3..5 cards) of ``h`` leaving at most
    ``max_deadwood`` deadwood.

    Writes collection ``i`` as the melded-cards mask ``out_melded[i]`` and its meld indices
    (into SEARCH_MELDS, ``-1`` padded) as ``out[i, :]``. Returns how many there are; stops
    filling at the buffer size but keeps counting, so callers can detect overflow. A branch
    is cut as soon as even melding every card left could not bring the deadwood in reach.
    ``stack`` is the caller's (SEARCH_STACK_ROWS, MAX_DEPTH) scratch.
    """
    total = mask_value(h)
    cover = meld_cover(h)
    rem = stack[0]
    used = stack[1]
    acc = stack[2]
    opt = stack[3]
    chosen = stack[4]
    n_melds = stack[5]
    n_melds[0] = 0
    count = 0
    depth = 0
    rem[0] = cover
    used[0] = 0
    acc[0] = 0
    opt[0] = 0
    while depth >= 0:
        r = rem[depth]
        if total - acc[depth] - mask_value(r) > max_deadwood:
            depth -= 1
            continue
        if r == 0:
            if count < out.shape[0]:
                out_melded[count] = used[depth]
                for j in range(out.shape[1]):
                    out[count, j] = chosen[j] if j < n_melds[depth] else -1
            count += 1
            depth -= 1
            continue
        c = lowest_card(r)
        k = opt[depth]
        n = CARD_MELD_COUNT[c]
        if k < n:
            opt[depth] = k + 1
            m = CARD_MELDS[c, k]
            mm = SEARCH_MELDS[m]
            if mm & r == mm:
                chosen[n_melds[depth]] = m
                rem[depth + 1] = meld_cover(r & ~mm)
                used[depth + 1] = used[depth] | mm
                acc[depth + 1] = acc[depth] + SEARCH_MELD_VALUES[m]
                n_melds[depth + 1] = n_melds[depth] + 1
                opt[depth + 1] = 0
                depth += 1
        elif k == n:
            opt[depth] = k + 1
            rem[depth + 1] = meld_cover(r & ~(1 << c))
            used[depth + 1] = used[depth]
            acc[depth + 1] = acc[depth]
            n_melds[depth + 1] = n_melds[depth]
            opt[depth + 1] = 0
            depth += 1
        else:
            depth -= 1
    return count


@allocating
def _gin_masks_of_size(n_cards: int) -> np.ndarray:
    """Masks of exactly ``n_cards`` cards made of two or three disjoint melds of 3..5 cards."""
    n = SEARCH_MELDS.shape[0]
    sizes = np.empty(n, np.int64)
    for i in range(n):
        sizes[i] = popcount(SEARCH_MELDS[i])
    cap = 1 << 22
    found = np.empty(cap, np.int64)
    k = 0
    for i in range(n):
        a = SEARCH_MELDS[i]
        for j in range(i + 1, n):
            b = SEARCH_MELDS[j]
            if a & b:
                continue
            if sizes[i] + sizes[j] == n_cards:
                found[k] = a | b
                k += 1
            elif sizes[i] + sizes[j] < n_cards:
                for m in range(j + 1, n):
                    c = SEARCH_MELDS[m]
                    if (a | b) & c == 0 and sizes[i] + sizes[j] + sizes[m] == n_cards:
                        found[k] = a | b | c
                        k += 1
    return found[:k]


def gin_hands() -> np.ndarray:
    """The distinct 10-card masks with deadwood 0 (sorted). There are 136,694 of them.

    Ten cards split into melds of 3..5 cards as 5+5 or 3+3+4, so two or three melds suffice.
    """
    return np.unique(_gin_masks_of_size(10))


# --------------------------------------------------------------------------------------------
# Python wrappers taking card strings
# --------------------------------------------------------------------------------------------


def hand_mask(cards: str | Iterable[str | int]) -> int:
    """Mask of a hand given as text (``"AS TD"``) or a list of strings or codes."""
    mask = 0
    for code in parse_cards(cards):
        mask |= 1 << code
    return mask


def min_deadwood(cards: str | Iterable[str | int]) -> int:
    """Least deadwood of exactly these cards (any count, no discard).

    >>> min_deadwood("AS 2S 3S KH KD KC 5C")
    5
    """
    return int(min_deadwood_mask(hand_mask(cards)))


def best_discard(cards: str | Iterable[str | int]) -> tuple[str, int]:
    """For 11 cards: a discard leaving least deadwood, and that deadwood.

    Ties go to the higher-value card. The search is one pass over the hand, not 11.

    >>> best_discard("4S 7S 4D 6D 7D 6C 7C 5H 6H 7H 8H")
    ('8H', 13)
    """
    codes = parse_cards(cards)
    if len(codes) != 11:
        raise ValueError(f"best_discard needs exactly 11 cards, got {len(codes)}")
    mask = 0
    for code in codes:
        mask |= 1 << code
    card, dw = best_discard_mask(mask)
    return card_str(int(card)), int(dw)


def meld_cards(meld_mask: int) -> list[str]:
    """Card strings of a meld, in rank order within a run, suit order within a set."""
    return [card_str(c) for c in sort_for_display(mask_cards(meld_mask))]


def merge_runs(meld_masks: Iterable[int]) -> list[int]:
    """Join runs of one suit that touch end to end (3+3 becomes a run of 6), for display.

    A search only uses runs of up to 5 cards; the same cards laid as one long run are the
    same arrangement, so this changes nothing but how it reads.
    """
    meld_masks = list(meld_masks)
    sets = [m for m in meld_masks if _is_set(m)]
    runs = sorted((m for m in meld_masks if not _is_set(m)), key=lambda m: mask_cards(m)[0])
    merged: list[int] = []
    for run in runs:
        if merged and not _is_set(merged[-1]) and (merged[-1] << 1) & run:
            # the previous run's high card is directly below this run's low card
            prev_high = mask_cards(merged[-1])[-1]
            if prev_high + 1 == mask_cards(run)[0]:
                merged[-1] |= run
                continue
        merged.append(run)
    return sorted(sets + merged, key=lambda m: (mask_cards(m)[0] % SUIT_STRIDE, mask_cards(m)[0]))


def _is_set(meld_mask: int) -> bool:
    ranks = {c % SUIT_STRIDE for c in mask_cards(meld_mask)}
    return len(ranks) == 1


def best_arrangement(cards: str | Iterable[str | int]) -> tuple[list[list[str]], int]:
    """A least-deadwood arrangement of exactly these cards: (melds as card strings, deadwood)."""
    mask = hand_mask(cards)
    melds, _, dw = _best_arrangement_masks(mask)
    return [meld_cards(m) for m in melds], dw


def _best_arrangement_masks(mask: int) -> tuple[list[int], int, int]:
    """(meld masks, melded mask, deadwood) of a least-deadwood arrangement of ``mask``."""
    chosen = np.empty(MAX_DEPTH, np.int64)
    value, n = search_best_melds(meld_cover(mask), chosen, new_search_stack())
    melds = [int(SEARCH_MELDS[j]) for j in chosen[:n]]
    melded = 0
    for m in melds:
        melded |= m
    return merge_runs(melds), melded, int(mask_value(mask)) - int(value)
