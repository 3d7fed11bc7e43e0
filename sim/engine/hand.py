"""One two-player hand of gin as a compiled state machine.

The state is a flat int64 array (``HS_*`` indices) plus the deck, the discard pile and an
optional move log, so the same kernels serve the compiled batch loop and the plain-Python
driver that asks user strategies: :func:`advance` says who must decide what (playing
forced moves itself), and :func:`apply_move` checks a move against the rules and plays it.
Every rule of the hand lives here and nowhere else.

Hand players are 0 (the dealer; the box in three-handed play) and 1 (the non-dealer; the
captain). The deck order is: dealer's 10 cards, non-dealer's 10, the upcard, then the 31-card
stock, next to draw first.
"""

from __future__ import annotations

import numpy as np

from sim.engine.cards import N_CODES
from sim.engine.jit import kernel
from sim.engine.layout import Layout, Record
from sim.engine.melds import (
    NO_CARD,
    SEARCH_MELDS,
    best_discard_search,
    fill_deadwood_after_discards,
    min_deadwood_mask,
    popcount,
)
from sim.engine.rules import (
    RI_FORBID_TAKEN_DISCARD,
    RI_GIN_BONUS,
    RI_MAX_TURNS,
    RI_SHOWDOWN_EAAI,
    RI_UNDERCUT_BONUS,
    RI_WALL,
)
from sim.engine.showdown import (
    MAX_MELDS,
    OUTCOME_DEFENDER_ILLEGAL,
    OUTCOME_GIN,
    OUTCOME_ILLEGAL,
    OUTCOME_KNOCK,
    SHOWDOWN_WORK_LEN,
    SW_DEFENDER_MELDS,
    SW_KNOCKER_MELDS,
    settle_declared_kernel,
    settle_eaai_kernel,
    settle_kernel,
)
from sim.engine.variants.oklahoma import hand_terms

DEALER = 0
NONDEALER = 1
HAND_SIZE = 10
STOCK_START = 21  # deck index of the first stock card

# Moves. A discard is the card code itself (0..63).
MOVE_PASS = 64
MOVE_DRAW_DISCARD = 65
MOVE_DRAW_STOCK = 66
MOVE_KNOCK = 67
MOVE_NO_KNOCK = 68  # an answer to the knock question; not a move of the log
#: The one table of move names: code -> name of the non-card moves (the hand log's ``move``).
#: A discard is logged as ``"discard"`` with its card; MOVE_NO_KNOCK is never logged.
MOVE_NAMES = {
    MOVE_PASS: "pass",
    MOVE_DRAW_DISCARD: "draw_discard",
    MOVE_DRAW_STOCK: "draw_stock",
    MOVE_KNOCK: "knock",
    MOVE_NO_KNOCK: "no_knock",
}
DISCARD_NAME = "discard"  # the log's name of every card move
#: Move names a hand log may hold, in code order, discards last.
LOG_MOVE_NAMES: tuple[str, ...] = (*(MOVE_NAMES[m] for m in range(MOVE_PASS, MOVE_NO_KNOCK)),
                                   DISCARD_NAME)
#: name -> code of the logged non-card moves (the inverse of MOVE_NAMES without no_knock).
MOVE_CODES: dict[str, int] = {MOVE_NAMES[m]: m for m in range(MOVE_PASS, MOVE_NO_KNOCK)}

# Decisions a player is asked for (the four of the strategy protocol), or the hand is over.
DEC_OFFER = 0  # take the first upcard (MOVE_DRAW_DISCARD) or MOVE_PASS
DEC_DRAW = 1  # MOVE_DRAW_DISCARD or MOVE_DRAW_STOCK
DEC_KNOCK = 2  # MOVE_KNOCK or MOVE_NO_KNOCK; asked only when knocking is legal
DEC_DISCARD = 3  # a card code
DEC_OVER = 4

# Phases of the state machine.
PH_OFFER_NONDEALER = 0
PH_OFFER_DEALER = 1
PH_FORCED_STOCK = 2  # both declined the upcard: the non-dealer draws from the stock
PH_DRAW = 3
PH_KNOCK = 4
PH_DISCARD = 5
PH_KNOCK_DISCARD = 6
PH_OVER = 7

# How a hand ended (the log's "end").
END_NONE = 0
END_KNOCK = 1
END_GIN = 2
END_UNDERCUT = 3
END_DRAW = 4
END_TURN_LIMIT = 5
#: The one table of end names, indexed by END_* code ("" while the hand runs).
END_NAMES = ("", "knock", "gin", "undercut", "draw", "turn_limit")
#: End names a finished hand may have (the log's ``result.end``).
LOG_END_NAMES: tuple[str, ...] = END_NAMES[END_KNOCK:]

# Errors from apply_move.
OK = 0
ERR_NOT_YOUR_DECISION = 1
ERR_NOT_IN_HAND = 2
ERR_TAKEN_CARD = 3
ERR_KNOCK_TOO_HIGH = 4
ERR_CANNOT_KNOCK = 5
ERR_EMPTY_PILE = 6
ERR_BAD_MOVE = 7
ERROR_TEXT = (
    "ok",
    "that move answers a different decision",
    "the discarded card is not in the player's hand",
    "a card taken from the discard pile may not be discarded in the same turn",
    "after knocking the discard must leave deadwood within the knock limit",
    "knocking is not legal here: no discard leaves deadwood within the knock limit",
    "the discard pile is empty",
    "not a move",
)

# State layout: the hand state array, declared once (offsets computed by Layout).
HS_LAYOUT = Layout("HS_", [
    ("HAND", 2),  # masks of hand players 0 and 1
    ("STOCK_TOP", 1),  # deck index of the next stock card
    ("PILE_LEN", 1),
    ("PHASE", 1),
    ("TO_MOVE", 1),
    ("TAKEN", 1),  # card taken from the pile this turn, or -1
    ("DRAWN", 1),  # card drawn this turn, or -1
    ("TURNS", 1),  # completed turns (draw + discard)
    ("KNOCK_LIMIT", 1),
    ("MULTIPLIER", 1),
    ("UPCARD", 1),
    ("TOOK", 2),  # mask of cards each player took from the pile
    ("DISCARDED", 2),  # mask of cards each player discarded
    ("DECLINED", 2),  # the upcard if that player declined it, else -1
    ("END", 1),
    ("KNOCKER", 1),
    ("WINNER", 1),
    ("POINTS", 1),
    ("KNOCKER_DEADWOOD", 1),
    ("DEFENDER_DEADWOOD", 1),
    ("LAYOFFS", 1),
    ("N_KNOCKER_MELDS", 1),
    ("N_DEFENDER_MELDS", 1),
    ("KNOCKER_MELDS", MAX_MELDS),  # indices into SEARCH_MELDS
    ("DEFENDER_MELDS", MAX_MELDS),
    ("FORBID_TAKEN", 1),
    ("WALL", 1),
    ("MAX_TURNS", 1),
    ("GIN_BONUS", 1),
    ("UNDERCUT_BONUS", 1),
    ("N_MOVES", 1),
    ("KNOCKER_HAND", 1),  # the knocker's 10 cards after his discard
    ("DEFENDER_HAND", 1),
    ("DEADWOOD", 2),  # each player's least deadwood of his 10 cards
    ("PILE_MASK", 1),  # the cards in the discard pile
    ("SHOWDOWN_EAAI", 1),  # 1: settle a knock the EAAI framework's way (Rules.showdown)
    ("SHOWDOWN_WORK", SHOWDOWN_WORK_LEN),  # scratch for settling a knock (not reset by deal)
])
(HS_HAND, HS_STOCK_TOP, HS_PILE_LEN, HS_PHASE, HS_TO_MOVE, HS_TAKEN, HS_DRAWN, HS_TURNS,
 HS_KNOCK_LIMIT, HS_MULTIPLIER, HS_UPCARD, HS_TOOK, HS_DISCARDED, HS_DECLINED, HS_END,
 HS_KNOCKER, HS_WINNER, HS_POINTS, HS_KNOCKER_DEADWOOD, HS_DEFENDER_DEADWOOD, HS_LAYOFFS,
 HS_N_KNOCKER_MELDS, HS_N_DEFENDER_MELDS, HS_KNOCKER_MELDS, HS_DEFENDER_MELDS, HS_FORBID_TAKEN,
 HS_WALL, HS_MAX_TURNS, HS_GIN_BONUS, HS_UNDERCUT_BONUS, HS_N_MOVES, HS_KNOCKER_HAND,
 HS_DEFENDER_HAND, HS_DEADWOOD, HS_PILE_MASK, HS_SHOWDOWN_EAAI,
 HS_SHOWDOWN_WORK) = HS_LAYOUT.offsets
HS_LAYOUT.check(globals())
HS_STATE_LEN = HS_SHOWDOWN_WORK  # the state proper ends here; deal() resets it
HS_LEN = HS_LAYOUT.length

# The turn scratch ("after") array. Slots 0..63 may hold a per-card table (deadwood after
# discarding each card), filled only when someone needs it; the slots after them memoise the
# last best-discard search, so a strategy's "what if I take the top card" and the rules' knock
# check after the draw share one search.
AF_LAYOUT = Layout("AF_", [
    ("TABLE", N_CODES),  # deadwood after discarding each card code
    ("TABLE_KEY", 1),  # hand mask the per-card table was computed for, or -1
    ("TABLE_FORBIDDEN", 1),  # the card excluded from that table, or -1
    ("KEY", 1),  # hand mask of the memoised best-discard search, or -1
    ("FORBIDDEN", 1),  # the card that search excluded, or -1
    ("BEST", 1),  # least deadwood after a discard other than the excluded card
    ("TIES", 1),  # mask of the discards that leave exactly that much
])
AF_TABLE, AF_TABLE_KEY, AF_TABLE_FORBIDDEN, AF_KEY, AF_FORBIDDEN, AF_BEST, AF_TIES = (
    AF_LAYOUT.offsets)
AF_LAYOUT.check(globals())
AFTER_LEN = AF_LAYOUT.length


def hand_fields(hs: np.ndarray) -> Record:
    """The hand state by name (``hand.to_move``, ``hand.hand[p]``, writable): how Python code
    reads ``hs``, so the ``HS_*`` offsets stay inside compiled code."""
    return HS_LAYOUT.record(hs)


def after_fields(after: np.ndarray) -> Record:
    """The turn scratch by name (``scratch.table[card]``, ``scratch.best``), writable."""
    return AF_LAYOUT.record(after)


def new_after() -> np.ndarray:
    """A fresh turn scratch array (nothing memoised)."""
    after = np.zeros(AFTER_LEN, np.int64)
    forget_after(after)
    return after


def new_hand_buffers(max_moves: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Arrays for one hand: state, discard pile, turn scratch, move log (player, move)."""
    return np.zeros(HS_LEN, np.int64), np.zeros(52, np.int64), new_after(), np.zeros(
        (max_moves, 2), np.int64)


@kernel
def deal(hs: np.ndarray, pile: np.ndarray, deck: np.ndarray, rules: np.ndarray) -> None:
    """Start a hand from a shuffled deck (dealer, non-dealer, upcard, stock)."""
    for j in range(HS_STATE_LEN):  # an explicit loop: numba's slice fill is much slower
        hs[j] = 0
    dealer = 0
    nondealer = 0
    for i in range(HAND_SIZE):
        dealer |= 1 << deck[i]
        nondealer |= 1 << deck[HAND_SIZE + i]
    hs[HS_HAND + DEALER] = dealer
    hs[HS_HAND + NONDEALER] = nondealer
    upcard = deck[2 * HAND_SIZE]
    pile[0] = upcard
    hs[HS_PILE_LEN] = 1
    hs[HS_PILE_MASK] = 1 << upcard
    hs[HS_UPCARD] = upcard
    hs[HS_STOCK_TOP] = STOCK_START
    hs[HS_PHASE] = PH_OFFER_NONDEALER
    hs[HS_TO_MOVE] = NONDEALER
    hs[HS_TAKEN] = -1
    hs[HS_DRAWN] = -1
    hs[HS_DECLINED] = -1
    hs[HS_DECLINED + 1] = -1
    hs[HS_KNOCKER] = -1
    hs[HS_WINNER] = -1
    hs[HS_KNOCK_LIMIT], hs[HS_MULTIPLIER] = hand_terms(rules, upcard)
    hs[HS_FORBID_TAKEN] = rules[RI_FORBID_TAKEN_DISCARD]
    hs[HS_WALL] = rules[RI_WALL]
    hs[HS_MAX_TURNS] = rules[RI_MAX_TURNS]
    hs[HS_GIN_BONUS] = rules[RI_GIN_BONUS]
    hs[HS_UNDERCUT_BONUS] = rules[RI_UNDERCUT_BONUS]
    hs[HS_SHOWDOWN_EAAI] = rules[RI_SHOWDOWN_EAAI]
    hs[HS_DEADWOOD + DEALER] = min_deadwood_mask(dealer)
    hs[HS_DEADWOOD + NONDEALER] = min_deadwood_mask(nondealer)


@kernel(inline="always")
def to_move(hs: np.ndarray) -> int:
    """The hand player who moves now (0 the dealer, 1 the non-dealer)."""
    return hs[HS_TO_MOVE]


@kernel(inline="always")
def held(hs: np.ndarray, player: int) -> int:
    """The cards hand player ``player`` holds (a mask)."""
    return hs[HS_HAND + player]


@kernel(inline="always")
def hand_outcome(hs: np.ndarray) -> tuple[int, int, int]:
    """A finished hand's ``(end, winner, points)``: its ``END_*``, the hand player who scored
    (-1 for a draw) and the points he scored."""
    return hs[HS_END], hs[HS_WINNER], hs[HS_POINTS]


@kernel(inline="always")
def stock_count(hs: np.ndarray) -> int:
    """Cards left in the stock."""
    return 52 - hs[HS_STOCK_TOP]


@kernel(inline="always")
def _log(hs: np.ndarray, moves: np.ndarray, player: int, move: int) -> None:
    n = hs[HS_N_MOVES]
    if n < moves.shape[0]:
        moves[n, 0] = player
        moves[n, 1] = move
    hs[HS_N_MOVES] = n + 1


@kernel(inline="always")
def best_discards(h: int, forbidden: int, after: np.ndarray) -> int:
    """Least deadwood of 11 cards ``h`` after discarding any card but ``forbidden`` (-1: none).

    Memoised in ``after``; ``after[AF_TIES]`` holds the mask of the best discards.
    """
    if after[AF_KEY] == h and after[AF_FORBIDDEN] == forbidden:
        return after[AF_BEST]
    best, ties = best_discard_search(h, forbidden)
    after[AF_KEY] = h
    after[AF_FORBIDDEN] = forbidden
    after[AF_BEST] = best
    after[AF_TIES] = ties
    return best


@kernel
def deadwood_table(h: int, forbidden: int, after: np.ndarray) -> None:
    """Fill ``after[c]`` with the deadwood left by discarding each card ``c`` of ``h``.

    ``forbidden`` and codes not in ``h`` get NO_CARD. Memoised: one search per turn at most.
    """
    if after[AF_TABLE_KEY] == h and after[AF_TABLE_FORBIDDEN] == forbidden:
        return
    fill_deadwood_after_discards(h, after)
    if forbidden >= 0:
        after[forbidden] = NO_CARD
    after[AF_TABLE_KEY] = h
    after[AF_TABLE_FORBIDDEN] = forbidden


@kernel(inline="always")
def forget_after(after: np.ndarray) -> None:
    """Wipe ``after`` at the end of a turn, so no player ever sees another's figures.

    Also makes a fresh array ready for use (its table key is not -1 then).
    """
    if after[AF_TABLE_KEY] != -1:
        for i in range(N_CODES):
            after[i] = NO_CARD
    after[AF_TABLE_KEY] = -1
    after[AF_TABLE_FORBIDDEN] = -1
    after[AF_KEY] = -1
    after[AF_FORBIDDEN] = -1
    after[AF_BEST] = NO_CARD
    after[AF_TIES] = 0


@kernel(inline="always")
def forbidden_discard(hs: np.ndarray) -> int:
    """The card the mover may not discard this turn (taken from the pile), or -1."""
    return hs[HS_TAKEN] if hs[HS_FORBID_TAKEN] else -1


@kernel(inline="always")
def best_legal_after(hs: np.ndarray, after: np.ndarray) -> int:
    """Least deadwood the mover's 11 cards can leave with a legal discard."""
    return best_discards(hs[HS_HAND + hs[HS_TO_MOVE]], forbidden_discard(hs), after)


@kernel(inline="always")
def deadwood_after_discard(hs: np.ndarray, after: np.ndarray, card: int) -> int:
    """Least deadwood of the mover's hand once ``card`` is discarded."""
    h = hs[HS_HAND + hs[HS_TO_MOVE]]
    if after[AF_KEY] == h and (after[AF_TIES] >> card) & 1:
        return after[AF_BEST]
    return min_deadwood_mask(h & ~(1 << card))


@kernel(inline="always")
def _after_draw(hs: np.ndarray, after: np.ndarray) -> None:
    """The mover holds 11 cards: ask about knocking only when it is legal."""
    if best_legal_after(hs, after) <= hs[HS_KNOCK_LIMIT]:
        hs[HS_PHASE] = PH_KNOCK
    else:
        hs[HS_PHASE] = PH_DISCARD


@kernel(inline="always")
def _draw(hs: np.ndarray, pile: np.ndarray, deck: np.ndarray, from_pile: bool) -> None:
    p = hs[HS_TO_MOVE]
    if from_pile:
        n = hs[HS_PILE_LEN] - 1
        card = pile[n]
        hs[HS_PILE_LEN] = n
        hs[HS_PILE_MASK] &= ~(1 << card)
        hs[HS_TAKEN] = card
        hs[HS_TOOK + p] |= 1 << card
    else:
        card = deck[hs[HS_STOCK_TOP]]
        hs[HS_STOCK_TOP] += 1
        hs[HS_TAKEN] = -1
    hs[HS_DRAWN] = card
    hs[HS_HAND + p] |= 1 << card


@kernel(inline="always")
def _play_draw(hs: np.ndarray, pile: np.ndarray, deck: np.ndarray, after: np.ndarray,
               moves: np.ndarray, from_pile: bool) -> None:
    """Log and play a draw, then ask about knocking only if it is legal."""
    _log(hs, moves, hs[HS_TO_MOVE], MOVE_DRAW_DISCARD if from_pile else MOVE_DRAW_STOCK)
    _draw(hs, pile, deck, from_pile)
    _after_draw(hs, after)


@kernel
def _settle(hs: np.ndarray) -> None:
    knocker = hs[HS_TO_MOVE]
    defender = 1 - knocker
    work = hs[HS_SHOWDOWN_WORK:]
    if hs[HS_SHOWDOWN_EAAI]:
        outcome, points, k_dw, d_dw, layoff, n_k, n_d = settle_eaai_kernel(
            hs[HS_HAND + knocker], hs[HS_HAND + defender], hs[HS_KNOCK_LIMIT],
            hs[HS_GIN_BONUS], hs[HS_UNDERCUT_BONUS], work)
    else:
        outcome, points, k_dw, d_dw, layoff, n_k, n_d = settle_kernel(
            hs[HS_HAND + knocker], hs[HS_HAND + defender], hs[HS_KNOCK_LIMIT],
            hs[HS_GIN_BONUS], hs[HS_UNDERCUT_BONUS], work)
    hs[HS_KNOCKER] = knocker
    hs[HS_KNOCKER_HAND] = hs[HS_HAND + knocker]
    hs[HS_DEFENDER_HAND] = hs[HS_HAND + defender]
    _record_result(hs, outcome, points, k_dw, d_dw, layoff)
    hs[HS_N_KNOCKER_MELDS] = n_k
    hs[HS_N_DEFENDER_MELDS] = min(n_d, MAX_MELDS)
    for j in range(MAX_MELDS):
        hs[HS_KNOCKER_MELDS + j] = work[SW_KNOCKER_MELDS + j] if j < n_k else -1
        hs[HS_DEFENDER_MELDS + j] = work[SW_DEFENDER_MELDS + j] if j < n_d else -1
    hs[HS_PHASE] = PH_OVER


@kernel(inline="always")
def _record_result(hs: np.ndarray, outcome: int, points: int, k_dw: int, d_dw: int,
                   layoff: int) -> None:
    """Write a settled knock's end, winner, points (times the hand's multiplier), deadwoods
    and layoffs into the hand state (``HS_KNOCKER`` already set)."""
    knocker = hs[HS_KNOCKER]
    if outcome == OUTCOME_GIN:
        hs[HS_END] = END_GIN
        hs[HS_WINNER] = knocker
    elif outcome == OUTCOME_KNOCK:
        hs[HS_END] = END_KNOCK
        hs[HS_WINNER] = knocker
    else:
        hs[HS_END] = END_UNDERCUT
        hs[HS_WINNER] = 1 - knocker
    hs[HS_POINTS] = points * hs[HS_MULTIPLIER]
    hs[HS_KNOCKER_DEADWOOD] = k_dw
    hs[HS_DEFENDER_DEADWOOD] = d_dw
    hs[HS_LAYOFFS] = layoff


@kernel
def settle_declared_hand(hs: np.ndarray, knocker_melds: np.ndarray, n_knocker: int,
                         defender_melds: np.ndarray, n_defender: int) -> int:
    """Settle again, the EAAI framework's way, a hand that just ended with a knock, on the melds
    the two players declared (masks; the knocker's in the order he laid them).

    For a front end whose outside players declare their own melds: the hand's result, deadwoods,
    layoffs and melds (for the hand log) become what
    :func:`sim.engine.showdown.settle_declared_kernel` says. Returns its outcome;
    OUTCOME_ILLEGAL (the knocker's melds) and OUTCOME_DEFENDER_ILLEGAL (the defender's) leave
    the hand as it was: the framework's forfeits are the caller's to apply.
    """
    if hs[HS_KNOCKER] < 0:
        raise ValueError("settle_declared_hand: the hand did not end with a knock")
    if n_knocker > MAX_MELDS:  # ten cards make at most three melds
        return OUTCOME_ILLEGAL
    if n_defender > MAX_MELDS:
        return OUTCOME_DEFENDER_ILLEGAL
    work = hs[HS_SHOWDOWN_WORK:]
    outcome, points, k_dw, d_dw, layoff = settle_declared_kernel(
        hs[HS_KNOCKER_HAND], hs[HS_DEFENDER_HAND], knocker_melds, n_knocker, defender_melds,
        n_defender, (hs[HS_KNOCK_LIMIT], hs[HS_GIN_BONUS], hs[HS_UNDERCUT_BONUS]), work)
    if outcome < 0:
        return outcome
    _record_result(hs, outcome, points, k_dw, d_dw, layoff)
    hs[HS_N_KNOCKER_MELDS] = _store_melds(hs, HS_KNOCKER_MELDS, knocker_melds, n_knocker)
    hs[HS_N_DEFENDER_MELDS] = _store_melds(hs, HS_DEFENDER_MELDS, defender_melds, n_defender)
    return outcome


@kernel
def _store_melds(hs: np.ndarray, at: int, melds: np.ndarray, n: int) -> int:
    """Store declared melds as indices into SEARCH_MELDS (a run longer than 5 as pieces: its
    three lowest cards, then the rest), -1 after them; return how many slots are used."""
    count = 0
    for i in range(n):
        m = melds[i]
        while m:
            piece = m
            if popcount(m) > 5:
                low = m & -m
                piece = low | (low << 1) | (low << 2)
            for j in range(SEARCH_MELDS.shape[0]):
                if SEARCH_MELDS[j] == piece:
                    hs[at + count] = j
                    count += 1
                    break
            m &= ~piece
    for j in range(count, MAX_MELDS):
        hs[at + j] = -1
    return count


@kernel(inline="always")
def _end_turn(hs: np.ndarray) -> None:
    """After a discard that was not a knock: the wall, the turn limit, or the next player."""
    hs[HS_TURNS] += 1
    hs[HS_TAKEN] = -1
    hs[HS_DRAWN] = -1
    if stock_count(hs) <= hs[HS_WALL]:
        hs[HS_END] = END_DRAW
        hs[HS_PHASE] = PH_OVER
    elif hs[HS_TURNS] >= hs[HS_MAX_TURNS]:
        hs[HS_END] = END_TURN_LIMIT
        hs[HS_PHASE] = PH_OVER
    else:
        hs[HS_TO_MOVE] = 1 - hs[HS_TO_MOVE]
        hs[HS_PHASE] = PH_DRAW


@kernel(inline="always")
def decision_of(phase: int) -> int:
    """The DEC_* a phase asks the mover for (DEC_OVER when no one decides: over, or forced)."""
    if phase == PH_OFFER_NONDEALER or phase == PH_OFFER_DEALER:
        return DEC_OFFER
    if phase == PH_DRAW:
        return DEC_DRAW
    if phase == PH_KNOCK:
        return DEC_KNOCK
    if phase == PH_DISCARD or phase == PH_KNOCK_DISCARD:
        return DEC_DISCARD
    return DEC_OVER


@kernel(inline="always")
def advance(hs: np.ndarray, pile: np.ndarray, deck: np.ndarray, after: np.ndarray,
            moves: np.ndarray) -> int:
    """Play forced moves, then return the decision the mover must take (or DEC_OVER).

    Taking the first upcard is a draw like any other: the taker then discards (and may knock)
    and the other player takes a normal turn, because every discard ends a turn.

    ``after`` is the turn scratch array (see AF_*): it memoises the mover's best-discard
    search whenever he holds 11 cards.
    """
    ph = hs[HS_PHASE]
    if ph == PH_FORCED_STOCK:
        _play_draw(hs, pile, deck, after, moves, False)
        ph = hs[HS_PHASE]
    return decision_of(ph)


@kernel(inline="always")
def move_error(decision: int, hand: int, forbidden: int, pile_len: int, move: int) -> int:
    """OK if ``move`` answers ``decision`` legally, else the ERR_* saying why not.

    The one legality predicate: :func:`apply_move` asks it before playing a move and
    ``sim.engine.view.legal_moves`` keeps the candidates it accepts. ``hand`` is the mover's
    mask, ``forbidden`` the card he may not discard (-1: none), ``pile_len`` the discard pile's
    size. One rule is left to :func:`knock_limit_error`: after a knock the discard must keep
    the deadwood within the knock limit, which needs the deadwood the discard leaves.
    """
    if decision == DEC_OFFER:
        if move == MOVE_PASS or move == MOVE_DRAW_DISCARD:
            return OK
    elif decision == DEC_DRAW:
        if move == MOVE_DRAW_STOCK:
            return OK
        if move == MOVE_DRAW_DISCARD:
            return ERR_EMPTY_PILE if pile_len == 0 else OK
    elif decision == DEC_KNOCK:
        if move == MOVE_KNOCK or move == MOVE_NO_KNOCK:
            return OK
    elif decision == DEC_DISCARD:
        if move == MOVE_KNOCK:
            return ERR_CANNOT_KNOCK
        if 0 <= move < N_CODES:
            if not (hand >> move) & 1:
                return ERR_NOT_IN_HAND
            if move == forbidden:
                return ERR_TAKEN_CARD
            return OK
    else:
        return ERR_NOT_YOUR_DECISION
    return ERR_NOT_YOUR_DECISION if move <= MOVE_NO_KNOCK else ERR_BAD_MOVE


@kernel(inline="always")
def knock_limit_error(knocked: bool, knock_limit: int, left: int) -> int:
    """The knock rule of a discard: after a knock it must leave deadwood ``left`` within the
    limit (OK or ERR_KNOCK_TOO_HIGH)."""
    return ERR_KNOCK_TOO_HIGH if knocked and left > knock_limit else OK


@kernel(inline="always")
def apply_move(
    hs: np.ndarray,
    pile: np.ndarray,
    deck: np.ndarray,
    after: np.ndarray,
    moves: np.ndarray,
    move: int,
) -> int:
    """Play ``move`` for the mover if the rules allow it; return OK or an ERR_* code.

    Legality is :func:`move_error` and :func:`knock_limit_error`, the predicates
    ``sim.engine.view.legal_moves`` lists moves with. An illegal move changes nothing.
    """
    ph = hs[HS_PHASE]
    p = hs[HS_TO_MOVE]
    err = move_error(decision_of(ph), hs[HS_HAND + p], forbidden_discard(hs), hs[HS_PILE_LEN],
                     move)
    if err != OK:
        return err
    if ph == PH_OFFER_NONDEALER or ph == PH_OFFER_DEALER:
        if move == MOVE_PASS:
            _log(hs, moves, p, MOVE_PASS)
            hs[HS_DECLINED + p] = hs[HS_UPCARD]
            if ph == PH_OFFER_NONDEALER:
                hs[HS_PHASE] = PH_OFFER_DEALER
                hs[HS_TO_MOVE] = DEALER
            else:
                hs[HS_PHASE] = PH_FORCED_STOCK
                hs[HS_TO_MOVE] = NONDEALER
            return OK
        _play_draw(hs, pile, deck, after, moves, True)  # MOVE_DRAW_DISCARD
        return OK
    if ph == PH_DRAW:
        _play_draw(hs, pile, deck, after, moves, move == MOVE_DRAW_DISCARD)
        return OK
    if ph == PH_KNOCK:
        if move == MOVE_KNOCK:
            _log(hs, moves, p, MOVE_KNOCK)
            hs[HS_PHASE] = PH_KNOCK_DISCARD
        else:  # MOVE_NO_KNOCK
            hs[HS_PHASE] = PH_DISCARD
        return OK
    # a discard (PH_DISCARD or PH_KNOCK_DISCARD)
    knocked = ph == PH_KNOCK_DISCARD
    left = deadwood_after_discard(hs, after, move)
    err = knock_limit_error(knocked, hs[HS_KNOCK_LIMIT], left)
    if err != OK:
        return err
    _log(hs, moves, p, move)
    hs[HS_DEADWOOD + p] = left
    forget_after(after)
    hs[HS_HAND + p] &= ~(1 << move)
    pile[hs[HS_PILE_LEN]] = move
    hs[HS_PILE_LEN] += 1
    hs[HS_PILE_MASK] |= 1 << move
    hs[HS_DISCARDED + p] |= 1 << move
    if knocked:
        hs[HS_TURNS] += 1  # the knocking turn counts like any other
        _settle(hs)
        return OK
    _end_turn(hs)
    return OK
