"""Brute-force reference for melds, deadwood and the showdown, written from docs/rules.md.

Plain Python on purpose, with no numba and nothing taken from ``sim.engine.melds`` or
``sim.engine.showdown``: it is the independent oracle the fast kernels are tested against.
Only ``sim.engine.cards`` is used, for parsing card text and for the card code
(``suit * 16 + rank``) that hand masks are built from.

Everything works on hand masks (bit ``code`` set for each card held) because that keeps the search
short to write; every search below is exhaustive and is argued correct in its docstring.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import NamedTuple

from sim.engine.cards import card_str, parse_cards

N_RANKS = 13
N_SUITS = 4
MAX_LAYOFF_COMBOS = 10**6  # a guard, never reached by 10-card hands

Cards = str | Iterable[str | int]


def code(rank: int, suit: int) -> int:
    """Card code of rank 0 (ace) .. 12 (king) and suit 0..3 (S, H, D, C)."""
    return suit * 16 + rank


def value(card: int) -> int:
    """Deadwood value from docs/rules.md: ace 1, 2-9 face value, T J Q K 10."""
    return min(card % 16 + 1, 10)


def bits(cards: Iterable[int]) -> int:
    """Mask of card codes."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def unbits(mask: int) -> list[int]:
    """Card codes in a mask, ascending."""
    return [c for c in range(64) if mask >> c & 1]


def mask_of(cards: Cards) -> int:
    """Mask of cards given as text or codes (duplicates rejected by ``parse_cards``)."""
    return bits(parse_cards(cards))


def mask_value(mask: int) -> int:
    """Total deadwood value of the cards in a mask."""
    return sum(value(c) for c in unbits(mask))


def strs(mask: int) -> list[str]:
    """Card strings of a mask."""
    return [card_str(c) for c in unbits(mask)]


# --------------------------------------------------------------------------------------------
# Melds, from the definition: a set is 3 or 4 cards of one rank; a run is 3 or more consecutive
# cards of one suit, ace low, no wrap-around.


def enumerate_sets() -> list[int]:
    """Every set: for each rank, each choice of 3 suits (4 ways) and all 4 suits (1 way)."""
    out = []
    for rank in range(N_RANKS):
        for size in (3, 4):
            for suits in itertools.combinations(range(N_SUITS), size):
                out.append(bits(code(rank, s) for s in suits))
    return out


def enumerate_runs() -> list[int]:
    """Every run: for each suit, each rank interval lo..hi with at least 3 ranks."""
    out = []
    for suit in range(N_SUITS):
        for lo in range(N_RANKS):
            for hi in range(lo + 2, N_RANKS):
                out.append(bits(code(r, suit) for r in range(lo, hi + 1)))
    return out


SETS: list[int] = enumerate_sets()
RUNS: list[int] = enumerate_runs()
MELDS: list[int] = SETS + RUNS

#: For each card code, the melds that contain it.
MELDS_WITH: dict[int, list[int]] = {
    code(r, s): [m for m in MELDS if m >> code(r, s) & 1]
    for r in range(N_RANKS)
    for s in range(N_SUITS)
}


def is_set(mask: int) -> bool:
    """3 or 4 cards, all of one rank."""
    cards = unbits(mask)
    return len(cards) in (3, 4) and len({c % 16 for c in cards}) == 1


def is_run(mask: int) -> bool:
    """3 or more cards of one suit with consecutive ranks."""
    cards = unbits(mask)
    if len(cards) < 3 or len({c // 16 for c in cards}) != 1:
        return False
    ranks = sorted(c % 16 for c in cards)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks))) and ranks[-1] < N_RANKS


def is_meld(mask: int) -> bool:
    """A set or a run."""
    return is_set(mask) or is_run(mask)


# --------------------------------------------------------------------------------------------
# Least deadwood.


@lru_cache(maxsize=1 << 21)
def min_deadwood_of_mask(mask: int) -> int:
    """Least deadwood over all collections of disjoint melds of the cards in ``mask``.

    Exhaustive: in any collection of disjoint melds, the lowest card of the hand is either
    deadwood or in exactly one meld of the collection, and that meld lies inside the hand. Trying
    both, for every such meld, and recursing on what is left, visits every collection.
    """
    if mask == 0:
        return 0
    low = mask & -mask
    c = low.bit_length() - 1
    best = value(c) + min_deadwood_of_mask(mask ^ low)
    for m in MELDS_WITH[c]:
        if m & mask == m:
            best = min(best, min_deadwood_of_mask(mask ^ m))
    return best


def brute_min_deadwood(cards: Cards) -> int:
    """Least deadwood of exactly these cards (any count)."""
    return min_deadwood_of_mask(mask_of(cards))


def brute_deadwood_after_each_discard(cards: Cards) -> dict[int, int]:
    """Least deadwood left after discarding each card, keyed by card code."""
    mask = mask_of(cards)
    return {c: min_deadwood_of_mask(mask & ~(1 << c)) for c in unbits(mask)}


def brute_best_discard(cards11: Cards) -> tuple[set[str], int]:
    """For 11 cards: (every discard that leaves the least deadwood, that deadwood)."""
    after = brute_deadwood_after_each_discard(cards11)
    if len(after) != 11:
        raise ValueError(f"brute_best_discard needs 11 cards, got {len(after)}")
    best = min(after.values())
    return {card_str(c) for c, d in after.items() if d == best}, best


def arrangements(mask: int, limit: int = 1000) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every collection of disjoint melds of ``mask`` whose deadwood is at most ``limit``.

    Yields ``(melds, deadwood_mask)``. Each collection comes exactly once, by the same
    lowest-card argument as ``min_deadwood_of_mask``; branches whose deadwood already exceeds
    ``limit`` are cut (deadwood only grows along a branch).
    """

    def rec(rest: int, melds: tuple[int, ...], dead: int, dead_value: int):
        if dead_value > limit:
            return
        if rest == 0:
            yield melds, dead
            return
        low = rest & -rest
        c = low.bit_length() - 1
        yield from rec(rest ^ low, melds, dead | low, dead_value + value(c))
        for m in MELDS_WITH[c]:
            if m & rest == m:
                yield from rec(rest ^ m, melds + (m,), dead, dead_value)

    yield from rec(mask, (), 0, 0)


def brute_gin_masks() -> set[int]:
    """Every distinct 10-card hand that splits completely into disjoint melds.

    Builds the unions of all collections of disjoint melds with 10 cards in total (melds taken in
    list order, so each collection once), then removes duplicate hands with a set.
    """
    sized = [(m, m.bit_count()) for m in MELDS if m.bit_count() <= 10]
    out: set[int] = set()

    def rec(start: int, used: int, n: int) -> None:
        if n == 10:
            out.add(used)
            return
        left = 10 - n
        for i in range(start, len(sized)):
            m, k = sized[i]
            if m & used or k > left or 0 < left - k < 3:
                continue
            rec(i + 1, used | m, n + k)

    rec(0, 0, 0)
    return out


# --------------------------------------------------------------------------------------------
# Showdown.


def layoff_options(meld: int, defender: int) -> list[int]:
    """Every set of defender cards that may be laid off onto one knocker meld (empty included).

    A set of three takes its missing fourth card; a set of four takes nothing. A run lo..hi takes
    lo-k..lo-1 and hi+1..hi+j for any k, j >= 0 whose cards the defender holds all of: that is
    laying cards one after another at either end (the chains of docs/rules.md).
    """
    if is_set(meld):
        cards = unbits(meld)
        if len(cards) == 4:
            return [0]
        rank = cards[0] % 16
        (missing,) = [code(rank, s) for s in range(N_SUITS) if not meld >> code(rank, s) & 1]
        return [0, 1 << missing] if defender >> missing & 1 else [0]
    assert is_run(meld), strs(meld)
    cards = unbits(meld)
    suit = cards[0] // 16
    lo, hi = cards[0] % 16, cards[-1] % 16
    below = [0]  # below[k]: mask of the k cards under lo, if the defender holds them all
    for r in range(lo - 1, -1, -1):
        c = code(r, suit)
        if not defender >> c & 1:
            break
        below.append(below[-1] | 1 << c)
    above = [0]
    for r in range(hi + 1, N_RANKS):
        c = code(r, suit)
        if not defender >> c & 1:
            break
        above.append(above[-1] | 1 << c)
    return [b | a for b in below for a in above]


def legal_layoff_sets(knocker_melds: Iterable[int], defender: int) -> Iterator[int]:
    """Every combined layoff (a mask of defender cards) onto a knocker arrangement.

    One option per meld, options pairwise disjoint (a card is laid off once). Any legal sequence of
    single layoffs ends in such a combination, and each combination can be laid one card at a time.
    """
    options = [layoff_options(m, defender) for m in knocker_melds]
    for n, combo in enumerate(itertools.product(*options)):
        assert n < MAX_LAYOFF_COMBOS
        used = 0
        for part in combo:
            if used & part:
                break
            used |= part
        else:
            yield used


def defender_reply(knocker_melds: Iterable[int], defender: int, gin: bool) -> tuple[int, int]:
    """Defender's least deadwood and one layoff mask reaching it.

    He lays off any legal combination (nothing after gin) and melds the rest as well as possible,
    which may break up a meld he would otherwise keep.
    """
    if gin:
        return min_deadwood_of_mask(defender), 0
    best, best_layoff = None, 0
    for layoff in legal_layoff_sets(tuple(knocker_melds), defender):
        d = min_deadwood_of_mask(defender & ~layoff)
        if best is None or d < best:
            best, best_layoff = d, layoff
    assert best is not None
    return best, best_layoff


def score(k: int, d: int, gin_bonus: int, undercut_bonus: int) -> tuple[str, int]:
    """(winner, points) for knocker deadwood ``k`` and defender deadwood ``d`` after layoffs."""
    if k == 0:
        return "knocker", d + gin_bonus
    if k < d:
        return "knocker", d - k
    return "defender", undercut_bonus + k - d


class BruteShowdown(NamedTuple):
    """Knocker-optimal showdown outcome.

    ``knocker_deadwood``/``defender_deadwood`` come from an optimal arrangement with the least
    knocker deadwood; ``optimal`` holds every (K, D) pair some optimal arrangement reaches (several
    arrangements can tie on the knocker's result with different counts).
    """

    knocker_deadwood: int
    defender_deadwood: int
    winner: str
    points: int
    optimal: frozenset[tuple[int, int]]


def brute_settle(
    knocker: Cards,
    defender: Cards,
    gin_bonus: int = 25,
    undercut_bonus: int = 10,
    knock_limit: int = 10,
) -> BruteShowdown:
    """Showdown by trying every knocker arrangement within the limit against every defender reply.

    The knocker's result is his points when he wins and minus the defender's points when undercut;
    the knocker takes the arrangement maximising it, the defender the reply minimising his deadwood
    (lower D never helps the knocker, so this is the defender's best reply whatever he aims at).
    """
    kmask, dmask = mask_of(knocker), mask_of(defender)
    if kmask.bit_count() != 10 or dmask.bit_count() != 10:
        raise ValueError("each hand must hold 10 cards")
    if kmask & dmask:
        raise ValueError("hands overlap")
    results: dict[tuple[int, int], int] = {}
    for melds, dead in arrangements(kmask, knock_limit):
        k = mask_value(dead)
        d, _ = defender_reply(melds, dmask, gin=k == 0)
        winner, points = score(k, d, gin_bonus, undercut_bonus)
        results[(k, d)] = points if winner == "knocker" else -points
    if not results:
        raise ValueError("knocker cannot get within the knock limit")
    best = max(results.values())
    optimal = frozenset(kd for kd, v in results.items() if v == best)
    k, d = min(optimal)
    winner, points = score(k, d, gin_bonus, undercut_bonus)
    return BruteShowdown(k, d, winner, points, optimal)
