"""The showdown after a knock: arrangements, layoffs and the score.

The knocker may lay out any arrangement whose deadwood is within the knock limit. The engine
lays out the one best for him given the defender's best reply, which is usually but not always
the least-deadwood one: a card kept out of a run, or sets laid instead of a run, can deny the
defender a layoff worth more than the deadwood it costs.

The defender's best reply: for every way of laying off (the fourth card onto a set of three; for
each run, any number of consecutive same-suit cards below its low end and above its high end,
chained), his least deadwood of the cards left. Taking the least deadwood of what is left is what
lets him break up one of his own melds when laying off pays better.

One compiled kernel, :func:`settle_kernel`, does the work for both the engine and :func:`settle`.

The EAAI framework's showdown (``Rules.showdown == "eaai"``) is the other way to settle: each
player declares his melds, and the defender's cards outside his declared melds are laid off
greedily, one at a time, in the framework's order (:func:`settle_declared_kernel`). ginbox's
bots declare a least-deadwood arrangement (:func:`settle_eaai_kernel`); an outside player's
declared melds come in through :func:`settle_declared`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from sim.engine.cards import (
    FULL_MASK,
    SUIT_STRIDE,
    card_str,
    mask_cards,
    parse_cards,
    sort_for_display,
)
from sim.engine.jit import kernel
from sim.engine.melds import (
    MAX_DEPTH,
    SEARCH_MELD_KINDS,
    SEARCH_MELDS,
    SEARCH_STACK_ROWS,
    SUIT_BITS,
    enumerate_arrangements,
    mask_value,
    meld_cards,
    meld_cover,
    merge_runs,
    min_deadwood_mask,
    popcount,
    search_best_melds,
)
from sim.engine.rules import Rules
from sim.engine.variants import VARIANTS
from sim.engine.variants.oklahoma import hand_terms

OUTCOME_KNOCK = 0  # the knocker won without gin
OUTCOME_GIN = 1
OUTCOME_UNDERCUT = 2  # the defender won
OUTCOME_ILLEGAL = -1  # the knocker cannot get within the knock limit (or declared illegally)
OUTCOME_DEFENDER_ILLEGAL = -2  # the defender's declared melds are not legal

#: The 52 card codes in the EAAI framework's card order (its card id: suits C H S D, each ace
#: to king), the order its showdown tries the defender's cards for a layoff.
EAAI_CARD_ORDER = np.array([s * SUIT_STRIDE + r for s in (3, 1, 0, 2) for r in range(13)],
                           np.int64)

MAX_MELDS = 8  # melds in one 10-card arrangement (at most 3)

#: Room for the arrangements of one 10-card hand within a knock limit of at most 10. The most
#: any hand has is 44 (exhaustive over every hand of aces to fives, where they are densest;
#: tests/test_showdown.py recounts it); an overflow is refused, never truncated.
ARRANGEMENT_CAPACITY = 256
OPTIONS_PER_MELD = 64  # room for the layoff options onto one meld (10 cards make at most 36)

# The showdown workspace: one flat int64 buffer the caller allocates once (new_showdown_work),
# so settling a knock allocates nothing. Offsets of its parts:
SW_ARRANGEMENTS = 0  # ARRANGEMENT_CAPACITY x MAX_MELDS meld indices
SW_MELDED = SW_ARRANGEMENTS + ARRANGEMENT_CAPACITY * MAX_MELDS  # melded mask of each
SW_STACK = SW_MELDED + ARRANGEMENT_CAPACITY  # SEARCH_STACK_ROWS x MAX_DEPTH search stack
SW_OPTIONS = SW_STACK + SEARCH_STACK_ROWS * MAX_DEPTH  # MAX_MELDS x OPTIONS_PER_MELD layoffs
SW_N_OPTIONS = SW_OPTIONS + MAX_MELDS * OPTIONS_PER_MELD  # MAX_MELDS counts
SW_COUNTER = SW_N_OPTIONS + MAX_MELDS  # MAX_MELDS digits of the layoff enumeration
SW_KNOCKER_MELDS = SW_COUNTER + MAX_MELDS  # MAX_MELDS: the knocker's melds laid out
SW_DEFENDER_MELDS = SW_KNOCKER_MELDS + MAX_MELDS  # MAX_DEPTH: the defender's melds
SHOWDOWN_WORK_LEN = SW_DEFENDER_MELDS + MAX_DEPTH


def new_showdown_work() -> np.ndarray:
    """A workspace for :func:`settle_kernel`."""
    return np.zeros(SHOWDOWN_WORK_LEN, np.int64)


@kernel
def _layoff_options(meld: int, kind: int, defender: int, options: np.ndarray) -> int:
    """Write the layoff masks the defender could play onto one knocker meld; return how many.

    Option 0 is always "lay nothing here".
    """
    options[0] = 0
    n = 1
    if kind == 0:  # a set: only a set of three takes the fourth card
        size = 0
        rank = -1
        for s in range(4):
            for r in range(13):
                if meld >> (s * 16 + r) & 1:
                    size += 1
                    rank = r
        if size == 3:
            fourth = 0
            for s in range(4):
                bit = 1 << (s * 16 + rank)
                if meld & bit == 0:
                    fourth = bit
            if defender & fourth:
                options[n] = fourth
                n += 1
        return n
    lo = -1
    hi = -1
    for c in range(64):
        if meld >> c & 1:
            if lo < 0:
                lo = c
            hi = c
    suit_base = (lo // 16) * 16
    n_below = 0
    c = lo - 1
    while c >= suit_base and defender >> c & 1:
        n_below += 1
        c -= 1
    n_above = 0
    c = hi + 1
    while c < suit_base + 13 and defender >> c & 1:
        n_above += 1
        c += 1
    n = 0
    below = 0  # the i cards just below the run
    for i in range(n_below + 1):
        if i > 0:
            below |= 1 << (lo - i)
        above = 0  # the j cards just above it
        for j in range(n_above + 1):
            if j > 0:
                above |= 1 << (hi + j)
            if n < options.shape[0]:
                options[n] = below | above
            n += 1
    return n


@kernel
def defender_reply(
    knocker_melds: np.ndarray, n_melds: int, defender: int, no_layoff_deadwood: int,
    work: np.ndarray,
) -> tuple[int, int]:
    """Defender's least deadwood after his best layoffs onto these melds: (deadwood, layoffs).

    ``no_layoff_deadwood`` is his least deadwood laying nothing off (the caller computes it
    once for every arrangement); ``work`` is a showdown workspace (:func:`new_showdown_work`).
    """
    n_opt = work[SW_N_OPTIONS:SW_COUNTER]
    any_layoff = False
    for i in range(n_melds):
        m = knocker_melds[i]
        start = SW_OPTIONS + i * OPTIONS_PER_MELD
        n_opt[i] = _layoff_options(SEARCH_MELDS[m], SEARCH_MELD_KINDS[m], defender,
                                   work[start:start + OPTIONS_PER_MELD])
        if n_opt[i] > 1:
            any_layoff = True
    best = no_layoff_deadwood
    best_layoff = 0
    if not any_layoff:
        return best, best_layoff
    counter = work[SW_COUNTER:SW_KNOCKER_MELDS]
    for i in range(n_melds):
        counter[i] = 0
    while True:
        laid = 0
        clash = False
        for i in range(n_melds):
            o = work[SW_OPTIONS + i * OPTIONS_PER_MELD + counter[i]]
            if laid & o:
                clash = True
                break
            laid |= o
        if not clash and laid != 0:
            dw = min_deadwood_mask(defender & ~laid)
            if dw < best:
                best = dw
                best_layoff = laid
        # next combination (mixed radix)
        i = 0
        while i < n_melds:
            counter[i] += 1
            if counter[i] < n_opt[i]:
                break
            counter[i] = 0
            i += 1
        if i == n_melds:
            break
    return best, best_layoff


@kernel
def settle_kernel(
    knocker: int,
    defender: int,
    knock_limit: int,
    gin_bonus: int,
    undercut_bonus: int,
    work: np.ndarray,
) -> tuple[int, int, int, int, int, int, int]:
    """Settle a knock on masks.

    Returns (outcome, points, knocker deadwood, defender deadwood, layoff mask,
    number of knocker melds, number of defender melds); the melds (indices into SEARCH_MELDS)
    go to ``work[SW_KNOCKER_MELDS:]`` and ``work[SW_DEFENDER_MELDS:]`` of the showdown
    workspace ``work`` (:func:`new_showdown_work`). ``outcome`` is OUTCOME_ILLEGAL when no
    arrangement of the knocker's cards is within the limit. Points are before any spade
    doubling.
    """
    if work.shape[0] < SHOWDOWN_WORK_LEN:  # compiled code does not check bounds
        raise ValueError("settle_kernel: the workspace is shorter than SHOWDOWN_WORK_LEN")
    arrangements = work[SW_ARRANGEMENTS:SW_MELDED].reshape((ARRANGEMENT_CAPACITY, MAX_MELDS))
    melded = work[SW_MELDED:SW_STACK]
    stack = work[SW_STACK:SW_OPTIONS].reshape((SEARCH_STACK_ROWS, MAX_DEPTH))
    n_arr = enumerate_arrangements(knocker, knock_limit, arrangements, melded, stack)
    if n_arr > ARRANGEMENT_CAPACITY:
        raise RuntimeError("settle_kernel: more arrangements than ARRANGEMENT_CAPACITY")
    total = mask_value(knocker)
    no_layoff_deadwood = min_deadwood_mask(defender)
    best_i = -1
    best_score = -(1 << 30)
    best_k = 0
    best_d = 0
    best_layoff = 0
    best_gin = False
    for i in range(n_arr):
        k_dw = total - mask_value(melded[i])
        if k_dw > knock_limit:
            continue
        n_m = 0
        while n_m < MAX_MELDS and arrangements[i, n_m] >= 0:
            n_m += 1
        if k_dw == 0:
            # Gin is always best for the knocker: bonus, no layoffs, no undercut.
            best_i = i
            best_k = 0
            best_d = no_layoff_deadwood
            best_layoff = 0
            best_gin = True
            best_score = best_d + gin_bonus
            break
        d_dw, layoff = defender_reply(arrangements[i], n_m, defender, no_layoff_deadwood, work)
        score = d_dw - k_dw if k_dw < d_dw else -(undercut_bonus + k_dw - d_dw)
        if score > best_score or (score == best_score and k_dw < best_k):
            best_i = i
            best_score = score
            best_k = k_dw
            best_d = d_dw
            best_layoff = layoff
    if best_i < 0:
        return OUTCOME_ILLEGAL, 0, 0, 0, 0, 0, 0
    n_k = 0
    while n_k < MAX_MELDS and arrangements[best_i, n_k] >= 0:
        work[SW_KNOCKER_MELDS + n_k] = arrangements[best_i, n_k]
        n_k += 1
    rest = defender & ~best_layoff
    _, n_d = search_best_melds(meld_cover(rest), work[SW_DEFENDER_MELDS:], stack)
    if best_gin:
        return OUTCOME_GIN, best_score, 0, best_d, 0, n_k, n_d
    if best_score > 0:
        return OUTCOME_KNOCK, best_score, best_k, best_d, best_layoff, n_k, n_d
    return OUTCOME_UNDERCUT, -best_score, best_k, best_d, best_layoff, n_k, n_d


@kernel
def is_meld_mask(m: int) -> bool:
    """True when the cards of ``m`` form one meld: a set of 3 or 4, or a run of 3 or more."""
    if m & ~FULL_MASK or popcount(m) < 3:
        return False
    suits = 0
    ranks = 0
    for s in range(4):
        bits = (m >> (s * SUIT_STRIDE)) & SUIT_BITS
        if bits:
            suits += 1
            ranks |= bits
    if suits == 1:  # a run: one block of consecutive ranks
        low = ranks & -ranks
        block = ranks // low
        return block & (block + 1) == 0
    return popcount(m) <= 4 and ranks & (ranks - 1) == 0  # a set: one rank


@kernel
def greedy_layoffs(melds: np.ndarray, n_melds: int, cards: int) -> int:
    """The framework's layoffs: the mask of ``cards`` laid off onto ``melds`` (grown in place).

    Again and again the first card in :data:`EAAI_CARD_ORDER` that makes a meld with some meld,
    tried in the declared order, is laid off onto the first such meld, until none fits. A card
    that fits two melds goes to the earlier one, even when the other would have taken more.
    """
    laid = 0
    while True:
        found = False
        for k in range(52):
            bit = np.int64(1) << EAAI_CARD_ORDER[k]
            if cards & ~laid & bit == 0:
                continue
            for i in range(n_melds):
                if is_meld_mask(melds[i] | bit):
                    melds[i] |= bit
                    laid |= bit
                    found = True
                    break
            if found:
                break
        if not found:
            return laid


@kernel
def _declared_melded(hand: int, melds: np.ndarray, n_melds: int) -> int:
    """The cards covered by declared melds, or -1 when they are not legal (a meld that is not
    one, holds a card not in ``hand``, or shares a card with an earlier meld)."""
    melded = 0
    for i in range(n_melds):
        m = melds[i]
        if not is_meld_mask(m) or m & ~hand or m & melded:
            return -1
        melded |= m
    return melded


@kernel
def settle_declared_kernel(
    knocker: int, defender: int, knocker_melds: np.ndarray, n_knocker: int,
    defender_melds: np.ndarray, n_defender: int, terms: tuple[int, int, int],
    grown: np.ndarray,
) -> tuple[int, int, int, int, int]:
    """Settle a knock the EAAI framework's way, on the melds each player declared (masks),
    under the hand's ``terms``: (knock limit, gin bonus, undercut bonus).

    Returns (outcome, points, knocker deadwood, defender deadwood, layoff mask). The knocker's
    deadwood is what his melds leave; on gin nothing is laid off; otherwise the defender's
    cards outside his melds are laid off by :func:`greedy_layoffs` (``grown``, at least
    ``n_knocker`` long, holds the knocker's melds as they grow). ``outcome`` is
    OUTCOME_ILLEGAL when the knocker's melds are not legal or leave more than the knock limit,
    OUTCOME_DEFENDER_ILLEGAL when the defender's are not legal: the framework's forfeits.
    """
    knock_limit, gin_bonus, undercut_bonus = terms
    k_melded = _declared_melded(knocker, knocker_melds, n_knocker)
    if k_melded < 0:
        return OUTCOME_ILLEGAL, 0, 0, 0, 0
    k_dw = mask_value(knocker & ~k_melded)
    if k_dw > knock_limit:
        return OUTCOME_ILLEGAL, 0, 0, 0, 0
    d_melded = _declared_melded(defender, defender_melds, n_defender)
    if d_melded < 0:
        return OUTCOME_DEFENDER_ILLEGAL, 0, 0, 0, 0
    unmelded = defender & ~d_melded
    if k_dw == 0:
        return OUTCOME_GIN, mask_value(unmelded) + gin_bonus, 0, mask_value(unmelded), 0
    for i in range(n_knocker):
        grown[i] = knocker_melds[i]
    layoff = greedy_layoffs(grown, n_knocker, unmelded)
    d_dw = mask_value(unmelded & ~layoff)
    if k_dw < d_dw:
        return OUTCOME_KNOCK, d_dw - k_dw, k_dw, d_dw, layoff
    return OUTCOME_UNDERCUT, undercut_bonus + k_dw - d_dw, k_dw, d_dw, layoff


@kernel
def settle_eaai_kernel(
    knocker: int,
    defender: int,
    knock_limit: int,
    gin_bonus: int,
    undercut_bonus: int,
    work: np.ndarray,
) -> tuple[int, int, int, int, int, int, int]:
    """:func:`settle_kernel` under the EAAI framework's showdown, for ginbox's bots: each side
    declares the least-deadwood melds the engine's search finds (in the order of their lowest
    card), then :func:`settle_declared_kernel` settles. Same returns and workspace."""
    if work.shape[0] < SHOWDOWN_WORK_LEN:  # compiled code does not check bounds
        raise ValueError("settle_eaai_kernel: the workspace is shorter than SHOWDOWN_WORK_LEN")
    stack = work[SW_STACK:SW_OPTIONS].reshape((SEARCH_STACK_ROWS, MAX_DEPTH))
    _, n_k = search_best_melds(meld_cover(knocker), work[SW_KNOCKER_MELDS:SW_DEFENDER_MELDS],
                               stack)
    _, n_d = search_best_melds(meld_cover(defender), work[SW_DEFENDER_MELDS:], stack)
    k_masks = work[SW_OPTIONS:SW_OPTIONS + MAX_MELDS]
    d_masks = work[SW_OPTIONS + MAX_MELDS:SW_OPTIONS + MAX_DEPTH + MAX_MELDS]
    for i in range(n_k):
        k_masks[i] = SEARCH_MELDS[work[SW_KNOCKER_MELDS + i]]
    for i in range(n_d):
        d_masks[i] = SEARCH_MELDS[work[SW_DEFENDER_MELDS + i]]
    grown = work[SW_OPTIONS + MAX_DEPTH + MAX_MELDS:SW_OPTIONS + MAX_DEPTH + 2 * MAX_MELDS]
    outcome, points, k_dw, d_dw, layoff = settle_declared_kernel(
        knocker, defender, k_masks, n_k, d_masks, n_d, (knock_limit, gin_bonus, undercut_bonus),
        grown)
    if outcome < 0:
        return OUTCOME_ILLEGAL, 0, 0, 0, 0, 0, 0
    return outcome, points, k_dw, d_dw, layoff, n_k, n_d


@dataclass(frozen=True)
class Showdown:
    """The laid-out result of one knock. Cards are canonical strings."""

    knocker_melds: list[list[str]]
    defender_melds: list[list[str]]
    layoffs: list[str]  # in an order they can be laid off
    knocker_deadwood_cards: list[str]
    defender_deadwood_cards: list[str]
    knocker_deadwood: int
    defender_deadwood: int  # after layoffs
    gin: bool
    undercut: bool
    winner: str  # "knocker" or "defender"
    points: int  # what the winner scores

    @property
    def end(self) -> str:
        """The hand-log end reason: ``gin``, ``knock`` or ``undercut``."""
        return "gin" if self.gin else ("undercut" if self.undercut else "knock")


def settle(
    knocker: str | Iterable[str | int],
    defender: str | Iterable[str | int],
    rules: Rules | None = None,
    upcard: str | int | None = None,
) -> Showdown:
    """Settle a knock: ``knocker`` holds his 10 cards after his discard, ``defender`` his 10.

    ``upcard`` (the hand's first upcard) matters only for Oklahoma and spade doubling. Under
    ``rules.showdown == "eaai"`` both sides declare their least-deadwood melds, as ginbox's bots
    do there (:func:`settle_declared` takes melds of one's own).

    >>> s = settle("AS 2S 3S 4H 5H 6H 7C 7D 7H 2C", "KS KH QD JC 9C 9D 5S 8H 3D 4C")
    >>> s.winner, s.knocker_deadwood, s.defender_deadwood, s.points
    ('knocker', 2, 78, 76)
    """
    rules, k_mask, d_mask, limit, multiplier = _showdown_terms(knocker, defender, rules, upcard)
    work = new_showdown_work()
    kernel_for = settle_eaai_kernel if rules.showdown == "eaai" else settle_kernel
    outcome, points, k_dw, d_dw, layoff, n_k, n_d = kernel_for(
        k_mask, d_mask, limit, rules.gin_bonus, rules.undercut_bonus, work
    )
    if outcome == OUTCOME_ILLEGAL:
        raise ValueError(
            f"the knocker cannot knock: his least deadwood is "
            f"{int(min_deadwood_mask(k_mask))}, above the knock limit {limit}"
        )
    k_melds = [int(SEARCH_MELDS[j]) for j in work[SW_KNOCKER_MELDS:SW_KNOCKER_MELDS + n_k]]
    d_melds = [int(SEARCH_MELDS[j]) for j in work[SW_DEFENDER_MELDS:SW_DEFENDER_MELDS + n_d]]
    return _showdown(k_mask, d_mask, k_melds, d_melds, (outcome, points, k_dw, d_dw, layoff),
                     multiplier)


class IllegalMelds(ValueError):
    """Declared melds the EAAI framework refuses; ``side`` is ``"knocker"`` or ``"defender"``,
    the player who forfeits there."""

    def __init__(self, side: str, message: str) -> None:
        super().__init__(f"the {side}'s declared melds are not legal: {message}")
        self.side = side


def settle_declared(
    knocker: str | Iterable[str | int],
    defender: str | Iterable[str | int],
    knocker_melds: Iterable[str | Iterable[str | int]],
    defender_melds: Iterable[str | Iterable[str | int]],
    rules: Rules | None = None,
    upcard: str | int | None = None,
) -> Showdown:
    """Settle a knock the EAAI framework's way on the melds each player declared.

    Each meld is its cards (``"7C 7D 7H"`` or a list); the knocker's are in the order he laid
    them, which decides where a card that fits two of them is laid off. Whatever
    ``rules.showdown`` says, this is the framework's showdown: the knocker's deadwood is what
    his melds leave, the defender's cards outside his melds are laid off greedily
    (:func:`greedy_layoffs`, none on gin). Raises :class:`IllegalMelds` for melds the framework
    refuses (not a meld, a card not held or laid twice, the knocker above the knock limit).

    >>> s = settle_declared("5H 6H 7H 8C 8D 8S AC 2D 3S 4C", "8H 9H KS QD JC TS 9C 7D 6S 5C",
    ...                     ["8C 8D 8S", "5H 6H 7H"], [])
    >>> s.layoffs, s.defender_deadwood, s.points
    (['8H'], 76, 66)
    """
    rules, k_mask, d_mask, limit, multiplier = _showdown_terms(knocker, defender, rules, upcard)
    k_melds = _declared_masks("knocker", knocker_melds, k_mask)
    k_left = k_mask & ~sum(k_melds)
    if mask_value(k_left) > limit:
        left = " ".join(card_str(c) for c in sort_for_display(mask_cards(k_left)))
        raise IllegalMelds("knocker", f"they leave {left} ({int(mask_value(k_left))}), above "
                                      f"the knock limit {limit}")
    d_melds = _declared_masks("defender", defender_melds, d_mask)
    settled = settle_declared_kernel(
        k_mask, d_mask, np.array(k_melds + [0], np.int64), len(k_melds),
        np.array(d_melds + [0], np.int64), len(d_melds),
        (limit, rules.gin_bonus, rules.undercut_bonus), np.zeros(len(k_melds) + 1, np.int64))
    return _showdown(k_mask, d_mask, k_melds, d_melds, settled, multiplier)


def bot_declared_melds(cards: str | Iterable[str | int]) -> list[list[str]]:
    """The melds a ginbox bot declares under the framework's showdown: the engine's
    least-deadwood arrangement, in the order of each meld's lowest card (spades first), a run
    split by the search joined again (which changes no layoff)."""
    mask = sum(1 << c for c in parse_cards(cards))
    chosen = np.zeros(MAX_DEPTH, np.int64)
    stack = np.zeros((SEARCH_STACK_ROWS, MAX_DEPTH), np.int64)
    _, n = search_best_melds(meld_cover(mask), chosen, stack)
    melds = merge_runs(int(SEARCH_MELDS[j]) for j in chosen[:n])
    return [meld_cards(m) for m in sorted(melds, key=lambda m: m & -m)]


def _declared_masks(side: str, melds: Iterable[str | Iterable[str | int]], hand: int) -> list[int]:
    """Masks of declared melds, checked as the framework checks them (IllegalMelds if not)."""
    if isinstance(melds, str):
        raise IllegalMelds(side, f"expected a list of melds, got the text {melds!r}")
    out: list[int] = []
    melded = 0
    for meld in melds:
        try:
            codes = parse_cards(meld)
        except ValueError as exc:
            raise IllegalMelds(side, str(exc)) from None
        mask = sum(1 << c for c in codes)
        text = " ".join(card_str(c) for c in sort_for_display(codes))
        if not is_meld_mask(mask):
            raise IllegalMelds(side, f"{text or 'an empty meld'} is not a meld")
        if mask & ~hand:
            raise IllegalMelds(side, f"{text} holds cards not in the hand")
        if mask & melded:
            raise IllegalMelds(side, f"{text} shares cards with an earlier meld")
        melded |= mask
        out.append(mask)
        if len(out) > MAX_MELDS:
            raise IllegalMelds(side, f"more than {MAX_MELDS} melds")
    return out


def _showdown_terms(
    knocker: str | Iterable[str | int], defender: str | Iterable[str | int],
    rules: Rules | None, upcard: str | int | None,
) -> tuple[Rules, int, int, int, int]:
    """Checked hands and the hand's terms: (rules, knocker mask, defender mask, knock limit,
    points multiplier)."""
    rules = rules if rules is not None else Rules()
    k_codes = parse_cards(knocker)
    d_codes = parse_cards(defender)
    for who, codes in (("knocker", k_codes), ("defender", d_codes)):
        if len(codes) != 10:
            raise ValueError(f"the {who} must hold exactly 10 cards, got {len(codes)}")
    overlap = set(k_codes) & set(d_codes)
    if overlap:
        names = " ".join(card_str(c) for c in sorted(overlap))
        raise ValueError(f"knocker and defender hands overlap: {names}")
    up = None if upcard is None else parse_cards([upcard])[0]  # often taken into a hand
    for variant in VARIANTS:  # a variant whose hand terms come from the upcard needs it
        missing = variant.upcard_needed(rules) if up is None else None
        if missing:
            raise ValueError(missing)
    limit, multiplier = hand_terms(rules.to_array(), -1 if up is None else up)
    return (rules, sum(1 << c for c in k_codes), sum(1 << c for c in d_codes), int(limit),
            int(multiplier))


def _showdown(knocker: int, defender: int, k_melds: list[int], d_melds: list[int],
              settled: tuple[int, int, int, int, int], multiplier: int) -> Showdown:
    """The Showdown of a settled knock from masks (melds as meld masks): ``settled`` is the
    kernel's (outcome, points, knocker deadwood, defender deadwood, layoff mask), the points
    times the hand's ``multiplier``."""
    outcome, points, k_dw, d_dw, layoff = settled
    return Showdown(
        *_describe_masks(knocker, defender, k_melds, d_melds, int(layoff)),
        knocker_deadwood=int(k_dw),
        defender_deadwood=int(d_dw),
        gin=outcome == OUTCOME_GIN,
        undercut=outcome == OUTCOME_UNDERCUT,
        winner="defender" if outcome == OUTCOME_UNDERCUT else "knocker",
        points=int(points) * int(multiplier),
    )


def describe_layout(
    knocker: int, defender: int, knocker_melds: Iterable[int], defender_melds: Iterable[int],
    layoff: int,
) -> tuple[list[list[str]], list[list[str]], list[str], list[str], list[str]]:
    """Card-string form of a settled knock from masks and meld indices (into SEARCH_MELDS).

    Returns (knocker melds, defender melds, layoffs in playable order, knocker deadwood cards,
    defender deadwood cards). Used by :func:`settle` and the hand log alike.
    """
    return _describe_masks(knocker, defender, [int(SEARCH_MELDS[j]) for j in knocker_melds],
                           [int(SEARCH_MELDS[j]) for j in defender_melds], layoff)


def _describe_masks(
    knocker: int, defender: int, knocker_melds: list[int], defender_melds: list[int], layoff: int,
) -> tuple[list[list[str]], list[list[str]], list[str], list[str], list[str]]:
    """:func:`describe_layout` with the melds as masks (a declared run may be longer than 5)."""
    k_melds = merge_runs(knocker_melds)
    d_melds = merge_runs(defender_melds)
    return (
        [meld_cards(m) for m in k_melds],
        [meld_cards(m) for m in d_melds],
        _layoff_order(layoff, k_melds),
        [card_str(c) for c in mask_cards(knocker & ~sum(k_melds))],
        [card_str(c) for c in mask_cards(defender & ~sum(d_melds) & ~layoff)],
    )


def _layoff_order(layoff: int, knocker_melds: list[int]) -> list[str]:
    """Layoff cards in an order they can be played, each onto a meld as it stands by then.

    Replays the layoffs: repeatedly take the lowest remaining card that fits a meld (the fourth
    card of a set of three, or the next card at either end of a run) and extend that meld.
    """
    melds = list(knocker_melds)
    remaining = mask_cards(layoff)
    ordered: list[int] = []
    while remaining:
        for card in remaining:
            j = next((j for j, m in enumerate(melds) if _fits(card, m)), None)
            if j is not None:
                melds[j] |= 1 << card
                ordered.append(card)
                remaining.remove(card)
                break
        else:  # cannot happen for a layoff the kernel chose; keep every card all the same
            ordered.extend(remaining)
            break
    return [card_str(c) for c in ordered]


def _fits(card: int, meld: int) -> bool:
    cards = mask_cards(meld)
    ranks = {c % SUIT_STRIDE for c in cards}
    if len(ranks) == 1:
        return len(cards) == 3 and card % SUIT_STRIDE in ranks
    same_suit = card // SUIT_STRIDE == cards[0] // SUIT_STRIDE
    return same_suit and bool((meld << 1 | meld >> 1) >> card & 1)
