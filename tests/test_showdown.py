"""sim.engine.showdown.settle: scripted showdowns worked out by hand, and agreement with the
oracle."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
import pytest
from support.oracle import (
    brute_settle,
    code,
    defender_reply,
    is_meld,
    legal_layoff_sets,
    mask_of,
    mask_value,
    min_deadwood_of_mask,
    score,
    unbits,
    value,
)

from sim.engine import melds
from sim.engine.cards import card_str, parse_card
from sim.engine.rules import Rules
from sim.engine.showdown import settle

EAAI = Rules.preset("eaai")
OKLAHOMA = Rules.preset("oklahoma")
GIN20 = Rules().replace(gin_bonus=20)


@dataclass(frozen=True)
class Case:
    """One scripted showdown and its hand-computed result."""

    name: str
    knocker: str
    defender: str
    k: int  # knocker deadwood
    d: int  # defender deadwood after layoffs
    winner: str
    points: int
    rules: Rules = field(default_factory=Rules)
    upcard: str | None = None
    knocker_melds: tuple[str, ...] | None = None  # expected melds, when they are forced
    layoffs: str | None = None  # expected layoff cards, when they are forced
    defender_melds: tuple[str, ...] | None = None


# Case hands. Melds are written first, then deadwood.
BREAK = (
    # Knocker: 7H 8H 9H | 2C 2D 2S | JS JC JD, deadwood 5C: K = 5. Dropping a meld costs at
    # least 6 (the 2s) so K >= 11: this is his only legal arrangement.
    "7H 8H 9H 2C 2D 2S JS JC JD 5C",
    # Defender: 4H 5H 6H 4S 4D QS QH QC AS AD. On his own: QS QH QC and either the run
    # 4H 5H 6H (4S 4D out: 8) or the set 4H 4S 4D (5H 6H out: 11), plus aces 2: best 10.
    # He breaks his run: lays 6H then 5H onto 7H-8H-9H and melds 4H 4S 4D. D = AS + AD = 2.
    # (Laying 4H too leaves 4S 4D: 10; laying 6H alone leaves 5H: 7.)
    # K = 5 >= D = 2: undercut, defender scores 10 + 5 - 2 = 13.
    "4H 5H 6H 4S 4D QS QH QC AS AD",
)
SETS_NOT_RUNS = (
    # Knocker: 7S 8S 9S 7H 8H 9H 7D 8D 9D AC. The nine cards go down as three runs (789S 789H
    # 789D) or three sets (777 888 999); either way K = AC = 1 (no mixed split exists).
    "7S 8S 9S 7H 8H 9H 7D 8D 9D AC",
    # Defender: 6S TH | KS KH KC | QS QD QC | 2C 3D: own deadwood 6 + 10 + 2 + 3 = 21.
    # Against runs he lays 6S (onto 789S) and TH (onto 789H): D = 5, knocker scores 4.
    # Against sets nothing fits (he has no 7C 8C 9C): D = 21, knocker scores 21 - 1 = 20.
    "6S TH KS KH KC QS QD QC 2C 3D",
)
LEAVE_OUT = (
    # Knocker: 3H 4H 5H 6H | JS JC JD | AS AC 2D: K = 4 with the whole run.
    "3H 4H 5H 6H JS JC JD AS AC 2D",
    # Defender: 7H 8H QS QH QC KS KH KD 9C TD: sets of Q and K, own deadwood 7+8+9+10 = 34.
    # Whole run 3H-6H (K = 4): he lays 7H then 8H, D = 19, knocker scores 15.
    # 6H left out (run 3H 4H 5H, K = 4 + 6 = 10, within the limit): 7H no longer fits,
    # D = 34, knocker scores 34 - 10 = 24. (3H left out: K = 7, 7H 8H still fit: 12.)
    "7H 8H QS QH QC KS KH KD 9C TD",
)
CHAIN = (
    # Knocker: 5D 6D 7D | KS KH KC | QS QH QC, deadwood AS: K = 1 (the run cannot shrink and
    # dropping it gives 19).
    "5D 6D 7D KS KH KC QS QH QC AS",
    # Defender: 2C 3C 4C run; 3D 4D 8D 9D JH JC 9S out: 3+4+8+9+10+10+9 = 53.
    # He lays 4D then 3D below the run and 8D then 9D above it: D = 53 - 24 = 29.
    # K = 1 < 29: knocker scores 28.
    "3D 4D 8D 9D 2C 3C 4C JH JC 9S",
)
FOURTH = (
    # Knocker: 8S 8H 8D | 2H 3H 4H | TS JS QS, deadwood AD: K = 1. (Leaving out 2H-3H-4H gives
    # K = 10 but denies nothing.)
    "8S 8H 8D 2H 3H 4H TS JS QS AD",
    # Defender: KC KD KH set; 8C 5C 6D 7S 9H 2S 3D out: 8+5+6+7+9+2+3 = 40.
    # He lays 8C as the fourth 8: D = 32. Knocker scores 32 - 1 = 31.
    "8C KC KD KH 5C 6D 7S 9H 2S 3D",
)
GIN = (
    # Knocker: 5D 6D 7D 8D | KS KH KC | QS QH QC: gin, K = 0.
    "5D 6D 7D 8D KS KH KC QS QH QC",
    # Defender: no melds (pairs only): 4+9+10+10+2+2+7+7+1+3 = 55. With layoffs he could shed
    # 4D 9D QD KD (33), but after gin he may not: D = 55, knocker scores 55 + 25 = 80.
    "4D 9D KD QD 2C 2S 7C 7H AS 3H",
)
GIN_VS_GIN = (
    "5D 6D 7D 8D KS KH KC QS QH QC",
    # Defender: AS 2S 3S 4S | AH AD AC | 4H 5H 6H: deadwood 0. Knocker scores 0 + 25 = 25.
    "AS 2S 3S 4S AH AD AC 4H 5H 6H",
)
EQUAL = (
    # Knocker: 2H 3H 4H | 9S 9C 9D | KS KH KC, deadwood 5D: K = 5 (dropping the run: 14).
    "2H 3H 4H 9S 9C 9D KS KH KC 5D",
    # Defender: JS JH JD | TC TH TD | 6S 7S 8S, deadwood 5C: D = 5, nothing to lay off (no AH,
    # 5H, 9H, KD). K = D: undercut, defender scores 10 + 0 = 10 (25 under eaai).
    "5C JS JH JD 6S 7S 8S TC TH TD",
)

CASES = [
    Case(
        "defender breaks his run to lay off and undercuts",
        *BREAK,
        5,
        2,
        "defender",
        13,
        knocker_melds=("7H 8H 9H", "2C 2D 2S", "JS JC JD"),
        layoffs="6H 5H",
        defender_melds=("4H 4S 4D", "QS QH QC"),
    ),
    Case(
        "knocker lays sets, not runs, to deny layoffs",
        *SETS_NOT_RUNS,
        1,
        21,
        "knocker",
        20,
        knocker_melds=("7S 7H 7D", "8S 8H 8D", "9S 9H 9D"),
        layoffs="",
    ),
    Case(
        "knocker leaves 6H out of his run",
        *LEAVE_OUT,
        10,
        34,
        "knocker",
        24,
        knocker_melds=("3H 4H 5H", "JS JC JD"),
        layoffs="",
    ),
    Case(
        "chained layoffs at both ends of a run",
        *CHAIN,
        1,
        29,
        "knocker",
        28,
        knocker_melds=("5D 6D 7D", "KS KH KC", "QS QH QC"),
        layoffs="3D 4D 8D 9D",
        defender_melds=("2C 3C 4C",),
    ),
    Case(
        "fourth card onto a set",
        *FOURTH,
        1,
        32,
        "knocker",
        31,
        knocker_melds=("8S 8H 8D", "2H 3H 4H", "TS JS QS"),
        layoffs="8C",
        defender_melds=("KC KD KH",),
    ),
    Case("gin forbids layoffs", *GIN, 0, 55, "knocker", 80, layoffs="", defender_melds=()),
    Case("gin bonus 20", *GIN, 0, 55, "knocker", 75, rules=GIN20, layoffs=""),
    Case(
        "gin against no deadwood scores the gin bonus", *GIN_VS_GIN, 0, 0, "knocker", 25, layoffs=""
    ),
    Case("equal counts are an undercut", *EQUAL, 5, 5, "defender", 10, layoffs=""),
    Case("eaai undercut bonus 25", *EQUAL, 5, 5, "defender", 25, rules=EAAI),
    # Oklahoma, ace upcard: gin only; the gin hand still scores 80 (AC is not a spade).
    Case("oklahoma ace upcard allows gin", *GIN, 0, 55, "knocker", 80, rules=OKLAHOMA, upcard="AC"),
    # Oklahoma, spade upcard 5S: limit 5 (K = 1 fits) and the points double: 2 x 31 = 62.
    Case(
        "oklahoma spade upcard doubles", *FOURTH, 1, 32, "knocker", 62, rules=OKLAHOMA, upcard="5S"
    ),
    Case(
        "oklahoma heart upcard does not double",
        *FOURTH,
        1,
        32,
        "knocker",
        31,
        rules=OKLAHOMA,
        upcard="5H",
    ),
    # Oklahoma, upcard 9D: limit 9, so leaving 6H out (K = 10) is not allowed; with the whole
    # run K = 4 and D = 19: knocker scores 15 (3H left out would give 12).
    Case(
        "oklahoma limit 9 forbids leaving 6H out",
        *LEAVE_OUT,
        4,
        19,
        "knocker",
        15,
        rules=OKLAHOMA,
        upcard="9D",
        knocker_melds=("3H 4H 5H 6H", "JS JC JD"),
        layoffs="7H 8H",
    ),
    # Oklahoma, spade ten upcard: limit 10 and doubling: 2 x 24 = 48.
    Case("oklahoma ten of spades", *LEAVE_OUT, 10, 34, "knocker", 48, rules=OKLAHOMA, upcard="TS"),
    # A doubled undercut: spade upcard 6S (limit 6 >= K = 5): 2 x 13 = 26.
    Case("oklahoma doubled undercut", *BREAK, 5, 2, "defender", 26, rules=OKLAHOMA, upcard="6S"),
]


def knock_limit(rules: Rules, upcard: str | int | None) -> int:
    """The hand's knock limit under ``rules`` for this upcard (docs/rules.md, Oklahoma)."""
    if not rules.oklahoma:
        return rules.knock_limit
    assert upcard is not None
    v = value(parse_card(upcard) if isinstance(upcard, str) else upcard)
    return 0 if v == 1 else v


def multiplier(rules: Rules, upcard: str | int | None) -> int:
    """2 when spade doubling applies to this upcard, else 1."""
    if not rules.spade_doubling or upcard is None:
        return 1
    c = parse_card(upcard) if isinstance(upcard, str) else upcard
    return 2 if c // 16 == 0 else 1


def group_set(groups: list[list[str]] | tuple[str, ...]) -> set[frozenset[int]]:
    """Melds as a set of frozensets of codes, whatever their order or notation."""
    return {frozenset(unbits(mask_of(g))) for g in groups}


def check_consistent(sd, knocker: str | list, defender: str | list, rules: Rules, upcard) -> None:
    """The reported melds, layoffs and counts are legal and add up, and the defender's count is
    his best reply to the arrangement shown."""
    kmask, dmask = mask_of(knocker), mask_of(defender)
    used = 0
    kmelds = []
    for g in sd.knocker_melds:
        m = mask_of(g)
        assert is_meld(m), g
        assert m & used == 0 and m & ~kmask == 0, sd.knocker_melds
        used |= m
        kmelds.append(m)
    assert sd.knocker_deadwood == mask_value(kmask & ~used)
    assert sd.knocker_deadwood <= knock_limit(rules, upcard)
    assert sd.gin == (sd.knocker_deadwood == 0)
    lay = mask_of(sd.layoffs)
    assert lay & ~dmask == 0, sd.layoffs
    if sd.gin:
        assert lay == 0
    else:
        assert lay in set(legal_layoff_sets(kmelds, dmask)), (sd.knocker_melds, sd.layoffs)
    dused = 0
    for g in sd.defender_melds:
        m = mask_of(g)
        assert is_meld(m), g
        assert m & (dused | lay) == 0 and m & ~dmask == 0, (sd.defender_melds, sd.layoffs)
        dused |= m
    assert sd.defender_deadwood == mask_value(dmask & ~dused & ~lay)
    best_d, _ = defender_reply(kmelds, dmask, gin=sd.gin)
    assert sd.defender_deadwood == best_d
    winner, points = score(
        sd.knocker_deadwood, sd.defender_deadwood, rules.gin_bonus, rules.undercut_bonus
    )
    assert (sd.winner, sd.points) == (winner, points * multiplier(rules, upcard))
    assert sd.undercut == (sd.winner == "defender")


# ------------------------------------------------------------------------- scripted cases


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_scripted_showdown(case: Case) -> None:
    mult = multiplier(case.rules, case.upcard)
    # The oracle agrees with the hand computation ...
    brute = brute_settle(
        case.knocker,
        case.defender,
        case.rules.gin_bonus,
        case.rules.undercut_bonus,
        knock_limit(case.rules, case.upcard),
    )
    assert brute.optimal == {(case.k, case.d)}
    assert (brute.winner, brute.points * mult) == (case.winner, case.points)
    # ... and so does the implementation.
    sd = settle(case.knocker, case.defender, case.rules, upcard=case.upcard)
    got = (sd.knocker_deadwood, sd.defender_deadwood, sd.winner, sd.points)
    assert got == (case.k, case.d, case.winner, case.points)
    assert sd.gin == (case.k == 0)
    assert sd.undercut == (case.winner == "defender")
    if case.knocker_melds is not None:
        assert group_set(sd.knocker_melds) == group_set(case.knocker_melds)
    if case.layoffs is not None:
        assert mask_of(sd.layoffs) == mask_of(case.layoffs)
    if case.defender_melds is not None:
        assert group_set(sd.defender_melds) == group_set(case.defender_melds)
    check_consistent(sd, case.knocker, case.defender, case.rules, case.upcard)


def test_hand_orders_and_forms_do_not_matter() -> None:
    k, d = LEAVE_OUT
    ks, ds = k.split(), d.split()
    expected = settle(k, d)
    assert (expected.knocker_deadwood, expected.points) == (10, 24)
    for knocker, defender in [
        (ks[::-1], ds[::-1]),
        (k.lower(), d.lower()),
        ([parse_card(c) for c in ks], [parse_card(c) for c in ds]),
    ]:
        sd = settle(knocker, defender)
        assert (sd.knocker_deadwood, sd.defender_deadwood, sd.winner, sd.points) == (
            10,
            34,
            "knocker",
            24,
        )
    sd = settle(*FOURTH, OKLAHOMA, upcard=parse_card("5S"))  # upcard as a code
    assert sd.points == 62


def test_default_rules_are_three_handed() -> None:
    sd = settle(*EQUAL)
    assert (sd.winner, sd.points) == ("defender", 10)
    sd = settle(*GIN, None)
    assert sd.points == 80


# ------------------------------------------------------------------------------- errors


def test_oklahoma_ace_upcard_forbids_knocking_with_deadwood() -> None:
    # FOURTH has K = 1: enough under the normal limit, not under an ace (gin only).
    assert settle(*FOURTH).knocker_deadwood == 1
    with pytest.raises(ValueError, match="knock limit 0"):
        settle(*FOURTH, OKLAHOMA, upcard="AC")
    with pytest.raises(ValueError, match="knock limit 4"):
        settle(*EQUAL, OKLAHOMA, upcard="4C")  # K = 5 above the limit 4


def test_knocker_over_the_limit() -> None:
    # 7H 8H 9H | 2C 2D 2S, and JS JC 5D 5C out: 35.
    with pytest.raises(ValueError, match="knock limit"):
        settle("7H 8H 9H 2C 2D 2S JS JC 5D 5C", BREAK[1])
    # LEAVE_OUT's knocker has K = 4: over a limit of 3.
    with pytest.raises(ValueError, match="knock limit"):
        settle(*LEAVE_OUT, Rules().replace(knock_limit=3))


def test_overlapping_hands() -> None:
    with pytest.raises(ValueError, match="overlap.*7H"):
        settle(BREAK[0], "7H 5H 6H 4S 4D QS QH QC AS AD")


@pytest.mark.parametrize(
    ("knocker", "defender", "who", "n"),
    [
        (BREAK[0], "4H 5H 6H 4S 4D QS QH QC AS", "defender", 9),
        (BREAK[0], BREAK[1] + " 3C", "defender", 11),
        ("7H 8H 9H 2C 2D 2S JS JC JD", BREAK[1], "knocker", 9),
        (BREAK[0] + " KC", BREAK[1], "knocker", 11),
    ],
)
def test_wrong_card_counts(knocker: str, defender: str, who: str, n: int) -> None:
    with pytest.raises(ValueError, match=f"{who}.*10 cards.*{n}"):
        settle(knocker, defender)


def test_bad_card_and_duplicate() -> None:
    with pytest.raises(ValueError, match="XS"):
        settle(BREAK[0].replace("5C", "XS"), BREAK[1])
    with pytest.raises(ValueError, match="(?i)duplicate"):
        settle(BREAK[0].replace("5C", "7H"), BREAK[1])


# --------------------------------------------------------------- agreement with the oracle


def knock_situations(seed: int, count: int) -> list[tuple[list[int], list[int]]]:
    """Random meld-rich knock situations: 20 distinct cards from 5-7 adjacent ranks, split into
    knocker and defender, kept when the knocker is within the knock limit of 10."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        width = rng.randint(5, 7)
        lo = rng.randint(0, 13 - width)
        pool = [code(r, s) for r in range(lo, lo + width) for s in range(4)]
        deal = rng.sample(pool, 20)
        knocker, defender = deal[:10], deal[10:]
        if min_deadwood_of_mask(sum(1 << c for c in knocker)) <= 10:
            out.append((knocker, defender))
    return out


def check_agreement(knocker: list[int], defender: list[int], rules: Rules, upcard=None) -> int:
    """settle agrees with brute_settle; returns 1 when the optimum is not least deadwood."""
    ks, ds = [card_str(c) for c in knocker], [card_str(c) for c in defender]
    limit = knock_limit(rules, upcard)
    brute = brute_settle(knocker, defender, rules.gin_bonus, rules.undercut_bonus, limit)
    sd = settle(ks, ds, rules, upcard=upcard)
    where = f"knocker {' '.join(ks)} / defender {' '.join(ds)} / upcard {upcard}"
    mult = multiplier(rules, upcard)
    assert (sd.winner, sd.points) == (brute.winner, brute.points * mult), where
    assert (sd.knocker_deadwood, sd.defender_deadwood) in brute.optimal, where
    check_consistent(sd, ks, ds, rules, upcard)
    return int(brute.knocker_deadwood != min_deadwood_of_mask(mask_of(knocker)))


def test_settle_agrees_with_brute_force() -> None:
    not_least = 0
    outcomes = {"gin": 0, "knock": 0, "undercut": 0}
    for knocker, defender in knock_situations(2024, 3000):
        not_least += check_agreement(knocker, defender, Rules())
        sd = settle(knocker, defender)
        outcomes["gin" if sd.gin else "undercut" if sd.undercut else "knock"] += 1
    # The sample really exercises every branch, including arrangements that are not least.
    assert not_least >= 10
    assert min(outcomes.values()) >= 100, outcomes


def test_settle_agrees_with_brute_force_other_rules() -> None:
    rng = random.Random(7)
    situations = knock_situations(99, 900)
    for i, (knocker, defender) in enumerate(situations):
        if i % 3 == 0:
            check_agreement(knocker, defender, EAAI)
            continue
        if i % 3 == 1:
            rules, upcard = GIN20.replace(knock_limit=rng.randint(0, 9)), None
        else:
            rest = [c for c in range(64) if c % 16 < 13 and c not in knocker + defender]
            rules, upcard = OKLAHOMA, card_str(rng.choice(rest))
        if min_deadwood_of_mask(mask_of(knocker)) <= knock_limit(rules, upcard):
            check_agreement(knocker, defender, rules, upcard)
        else:
            with pytest.raises(ValueError, match="knock limit"):
                settle(knocker, defender, rules, upcard=upcard)


def test_settle_uniform_random_knocks() -> None:
    """Uniformly dealt hands where the knocker happens to be within 10 (about 1 deal in 1700;
    the fast kernel picks them out, the oracle then judges each one)."""
    rng = np.random.default_rng(11)
    deck = np.array([code(r, s) for r in range(13) for s in range(4)], np.int64)
    knocks: list[np.ndarray] = []
    for _ in range(6):
        deals = deck[np.argsort(rng.random((50_000, 52)), axis=1)[:, :20]]
        dead = melds.min_deadwood_batch((np.int64(1) << deals[:, :10]).sum(axis=1))
        knocks.extend(deals[dead <= 10])
    assert len(knocks) >= 100
    for deal in knocks:
        check_agreement([int(c) for c in deal[:10]], [int(c) for c in deal[10:]], Rules())


def test_arrangement_capacity_covers_the_densest_hands() -> None:
    """The showdown workspace has room for every hand's arrangements within a knock limit.

    Aces to fives are where arrangements are densest (low cards leave the most room under the
    limit); every one of their 184,756 ten-card hands is counted, and random hands from wider
    rank ranges stay below that maximum.
    """
    import itertools

    from sim.engine.cards import DECK
    from sim.engine.melds import enumerate_arrangements, new_search_stack
    from sim.engine.showdown import ARRANGEMENT_CAPACITY, MAX_MELDS

    out = np.empty((ARRANGEMENT_CAPACITY, MAX_MELDS), np.int64)
    melded = np.empty(ARRANGEMENT_CAPACITY, np.int64)
    stack = new_search_stack()
    low = [int(c) for c in DECK if c % 16 < 5]
    counts = [enumerate_arrangements(sum(1 << c for c in hand), 10, out, melded, stack)
              for hand in itertools.combinations(low, 10)]
    assert max(counts) == 44
    rng = np.random.default_rng(3)
    for ranks in (6, 8, 13):
        pool = [int(c) for c in DECK if c % 16 < ranks]
        for _ in range(3000):
            hand = rng.choice(pool, 10, replace=False)
            n = enumerate_arrangements(sum(1 << int(c) for c in hand), 10, out, melded, stack)
            assert n <= 44
    assert ARRANGEMENT_CAPACITY >= 4 * 44
