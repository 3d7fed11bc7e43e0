"""Shared helpers for the engine tests: decks built card by card, a kernel hand runner, scripted
and spying Python strategies, and an independent referee that re-checks hand logs by RULES.md.

The referee is plain Python: it keeps hands, pile and stock as Python collections, takes least
deadwood from ``sim.engine.melds.min_deadwood_mask`` and showdowns from the public
``sim.engine.showdown.settle``
(both tested against the brute-force oracle elsewhere), so a log is checked move by move without
trusting the hand kernels that produced it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings

import sim.play.driver
from sim.engine.cards import DECK, card_str, card_value, mask_cards, parse_card, parse_cards
from sim.engine.game import start_hand as real_start_hand
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    END_NAMES,
    HS_END,
    HS_HAND,
    HS_KNOCK_LIMIT,
    HS_N_MOVES,
    HS_PHASE,
    HS_PILE_LEN,
    HS_STOCK_TOP,
    HS_TAKEN,
    HS_TO_MOVE,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NAMES,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    OK,
    PH_KNOCK_DISCARD,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.melds import min_deadwood_mask
from sim.engine.rules import Rules
from sim.engine.showdown import settle
from sim.engine.view import View

#: Deterministic, modest hypothesis settings: the engine tests must stay fast and reproducible.
PROFILE = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ALL_CARDS: frozenset[int] = frozenset(int(c) for c in DECK)
FULL = sum(1 << c for c in ALL_CARDS)
DECISIONS = ("offer", "draw", "knock", "discard")
MOVE_WORDS = {
    "pass": MOVE_PASS,
    "take": MOVE_DRAW_DISCARD,
    "draw_discard": MOVE_DRAW_DISCARD,
    "stock": MOVE_DRAW_STOCK,
    "draw_stock": MOVE_DRAW_STOCK,
    "knock": MOVE_KNOCK,
    "no_knock": MOVE_NO_KNOCK,
}


# Hands for scripted deals (the tests work out every expected value from these by hand).

# Two hands without a single meld: nobody can knock for a while.
JUNK_DEALER = "KS QH JD TC 8S 6H 4D 2C AH 9D"  # deadwood 70
JUNK_NONDEALER = "KH QD JC TS 8H 6D 4C 2S AD 9C"  # deadwood 70

# Taking 7H the knocker holds AS-2S-3S, 4H-5H-6H, 7C-7D-7H, 2C and KD: discarding KD leaves 2.
KNOCKER = "AS 2S 3S 4H 5H 6H 7C 7D 2C KD"
# No meld and nothing to lay off on the knocker's melds: 10+10+10+10+9+9+5+8+3+4 = 78.
DEFENDER = "KS KH QD JC 9C 9D 5S 8H 3D 4C"

# Drawing 9H: AS-4S, 5H-6H-7H, 9C-9D-9H; discarding KD is gin.
GIN_HAND = "AS 2S 3S 4S 5H 6H 7H 9C 9D KD"
# 8C 8D is no meld: 10+10+10+10+8+8+5+2+3+4 = 70. 5S would lay off on AS-4S, but not on gin.
GIN_DEFENDER = "KS KH QD JC 8C 8D 5S 2H 3D 4C"


def move_code(move: str | int) -> int:
    """Kernel move code of a word (``pass``, ``take``, ``stock``, ``knock``, ...) or a card."""
    if isinstance(move, int):
        return move
    return MOVE_WORDS[move] if move in MOVE_WORDS else parse_card(move)


def cards(text: str) -> set[str]:
    """Canonical card strings of ``text`` as a set."""
    return {card_str(c) for c in parse_cards(text)}


def mask(cs: Iterable[int]) -> int:
    """Hand mask of card codes."""
    m = 0
    for c in cs:
        m |= 1 << int(c)
    return m


def make_deck(dealer: str, nondealer: str, upcard: str, stock: str = "") -> np.ndarray:
    """A 52-card deck in deal order: dealer's 10, non-dealer's 10, the upcard, then the stock.

    ``stock`` gives the first stock cards (next to draw first); the rest of the deck follows in
    code order.
    """
    d, n, u, s = parse_cards(dealer), parse_cards(nondealer), parse_card(upcard), parse_cards(stock)
    assert len(d) == 10 and len(n) == 10, "each hand needs exactly 10 cards"
    head = d + n + [u] + s
    assert len(set(head)) == len(head), f"a card is dealt twice: {head}"
    rest = [int(c) for c in DECK if int(c) not in set(head)]
    deck = np.array(head + rest, np.int64)
    assert len(deck) == 52
    return deck


def shuffled_deck(seed: int) -> np.ndarray:
    """A shuffled deck from a numpy seed (for hands whose cards do not matter)."""
    return np.random.default_rng(seed).permutation(DECK).astype(np.int64)


class HandRunner:
    """One hand through the compiled kernels, with readable accessors."""

    def __init__(self, deck: np.ndarray, rules: Rules | None = None) -> None:
        self.rules = rules if rules is not None else Rules()
        self.deck = np.array(deck, np.int64)
        self.hs, self.pile_arr, self.after, self.moves = new_hand_buffers(4096)
        deal(self.hs, self.pile_arr, self.deck, self.rules.to_array())

    def decision(self) -> int:
        """Play forced moves and return the pending DEC_* (``advance``)."""
        return int(advance(self.hs, self.pile_arr, self.deck, self.after, self.moves))

    @property
    def to_move(self) -> int:
        """Hand player to move (0 dealer, 1 non-dealer)."""
        return int(self.hs[HS_TO_MOVE])

    def try_move(self, move: str | int) -> int:
        """Apply a move and return OK or the ERR_* code (without advancing first)."""
        return int(apply_move(self.hs, self.pile_arr, self.deck, self.after, self.moves,
                              move_code(move)))

    def play(self, player: int, decision: int, move: str | int) -> None:
        """Advance, check whose decision it is and which, then play ``move`` (must be legal)."""
        got = self.decision()
        assert (got, self.to_move) == (decision, player), (
            f"expected decision {decision} of player {player}, got {got} of {self.to_move}"
        )
        err = self.try_move(move)
        assert err == OK, f"move {move!r} refused with error {err}"

    def hand(self, player: int) -> set[str]:
        """Cards held by a hand player."""
        return {card_str(c) for c in mask_cards(int(self.hs[HS_HAND + player]))}

    def size(self, player: int) -> int:
        """Number of cards a hand player holds."""
        return bin(int(self.hs[HS_HAND + player])).count("1")

    @property
    def stock_count(self) -> int:
        """Cards left in the stock."""
        return 52 - int(self.hs[HS_STOCK_TOP])

    def pile(self) -> list[str]:
        """Discard pile, bottom first."""
        return [card_str(int(c)) for c in self.pile_arr[: int(self.hs[HS_PILE_LEN])]]

    def stock(self) -> list[str]:
        """Remaining stock, next to draw first."""
        return [card_str(int(c)) for c in self.deck[int(self.hs[HS_STOCK_TOP]):]]

    @property
    def end(self) -> str:
        """End reason name ('' while the hand runs)."""
        return END_NAMES[int(self.hs[HS_END])]

    def log(self) -> list[tuple[int, str]]:
        """The move log as (player, move name or card)."""
        out = []
        for player, move in self.moves[: int(self.hs[HS_N_MOVES])]:
            name = card_str(int(move)) if move < 64 else MOVE_NAMES[int(move)]
            out.append((int(player), name))
        return out

    def check_conservation(self) -> None:
        """Both hands, the pile and the stock are disjoint and hold the 52 cards."""
        h0, h1 = int(self.hs[HS_HAND]), int(self.hs[HS_HAND + 1])
        pile = self.pile_arr[: int(self.hs[HS_PILE_LEN])]
        stock = self.deck[int(self.hs[HS_STOCK_TOP]):]
        rest = mask(pile.tolist()) | mask(stock.tolist())
        n = self.size(0) + self.size(1) + len(pile) + len(stock)
        assert n == 52 and h0 & h1 == 0 and (h0 | h1) & rest == 0 and h0 | h1 | rest == FULL, (
            f"cards not conserved: {self.size(0)}+{self.size(1)}+{len(pile)}+{len(stock)}"
        )

    def legal_moves(self, decision: int) -> list[int]:
        """Every legal answer to the pending decision (from the rules, via ``after``)."""
        if decision == DEC_OFFER:
            return [MOVE_PASS, MOVE_DRAW_DISCARD]
        if decision == DEC_DRAW:
            return [MOVE_DRAW_STOCK, MOVE_DRAW_DISCARD]
        if decision == DEC_KNOCK:
            return [MOVE_KNOCK, MOVE_NO_KNOCK]
        assert decision == DEC_DISCARD
        h = int(self.hs[HS_HAND + self.to_move])
        taken = int(self.hs[HS_TAKEN])
        knocked = int(self.hs[HS_PHASE]) == PH_KNOCK_DISCARD
        limit = int(self.hs[HS_KNOCK_LIMIT])
        return [c for c in mask_cards(h)
                if not (self.rules.forbid_taken_discard and c == taken)
                and (not knocked or min_deadwood_mask(h & ~(1 << c)) <= limit)]

    def play_out(self, rng: np.random.Generator,
                 each: Callable[[HandRunner, int], None] | None = None) -> None:
        """Play uniformly random legal moves to the end of the hand.

        ``each(runner, decision)`` runs at every decision before the move. After every move the
        kernel state is checked: 52 cards conserved, hands of 10 between turns and 11 during a
        turn, the stock never below the wall unless the hand ended.
        """
        wall = self.rules.wall
        self.check_conservation()
        while True:
            decision = self.decision()
            self.check_conservation()
            if decision == DEC_OVER:
                break
            if each is not None:
                each(self, decision)
            p = self.to_move
            sizes = (self.size(0), self.size(1))
            if decision in (DEC_OFFER, DEC_DRAW):
                assert sizes == (10, 10), f"hands of {sizes} before a draw"
            else:
                assert sizes[p] == 11 and sizes[1 - p] == 10, f"hands of {sizes} in a turn"
            legal = self.legal_moves(decision)
            assert legal, "no legal move"
            err = self.try_move(legal[int(rng.integers(len(legal)))])
            assert err == OK, f"a legal move was refused: {err}"
            self.check_conservation()
            stock = self.stock_count
            if self.end == "":
                assert stock > wall or (stock == wall and decision != DEC_DISCARD), (
                    "the stock reached the wall and the hand goes on"
                )
            assert stock >= wall, "the stock went below the wall"
        assert self.end in END_NAMES[1:]

    def record(self) -> dict[str, Any]:
        """A hand-log-like record of this hand (seat 0 deals, seat 1 is the non-dealer)."""
        d = self.deck
        moves = []
        for player, name in self.log():
            if name in MOVE_WORDS:
                moves.append({"seat": player, "move": name})
            else:
                moves.append({"seat": player, "move": "discard", "card": name})
        return {
            "dealer": 0, "nondealer": 1, "sitter": None,
            "deal": {"dealer": [card_str(int(c)) for c in d[:10]],
                     "nondealer": [card_str(int(c)) for c in d[10:20]],
                     "upcard": card_str(int(d[20])),
                     "stock": [card_str(int(c)) for c in d[21:]]},
            "moves": moves,
        }


# ------------------------------------------------------------------------ Python strategies


def autopilot(view: View) -> Any:
    """A fixed plain policy: pass, draw from the stock, never knock, discard the drawn card
    (or, after taking from the pile, the highest legal discard; after a knock, the best)."""
    if view.decision == "offer":
        return False
    if view.decision == "draw":
        return False
    if view.decision == "knock":
        return False
    legal = view.legal_discards
    if view.knocked:
        return min(legal, key=lambda c: (view.deadwood_after[c], -c))
    if view.drawn is not None and view.taken is None:
        return view.drawn
    return max(legal)


def random_policy(view: View) -> Any:
    """Uniform over the legal choices, from the view's reproducible generator."""
    assert view.rng is not None
    if view.decision in ("offer", "draw", "knock"):
        return bool(view.rng.integers(2))
    legal = view.legal_discards
    return legal[int(view.rng.integers(len(legal)))]


def _answer_of(decision: str, word: str) -> Any:
    """Translate a script word to the protocol's answer for ``decision``."""
    if decision in ("offer", "draw"):
        assert word in ("take", "pass", "stock"), f"{word!r} does not answer {decision}"
        return word == "take"
    if decision == "knock":
        assert word in ("knock", "no_knock"), f"{word!r} does not answer {decision}"
        return word == "knock"
    assert word not in MOVE_WORDS, f"{word!r} does not answer {decision}"
    return word


class Director:
    """Scripts whole games for several seats: one script per hand, shared by all seats.

    ``scripts[h]`` is the list of (seat, word) answers of hand ``h`` in order, or None to let
    every seat play :func:`autopilot` in that hand. Words: ``take``/``pass`` (offer),
    ``take``/``stock`` (draw), ``knock``/``no_knock``, or a card to discard. A seat asked out
    of turn, or a decision the script does not expect, fails the game (as a StrategyError).
    """

    def __init__(self, scripts: Sequence[Sequence[tuple[int, str]] | None]) -> None:
        self.scripts = [None if s is None else list(s) for s in scripts]
        self.hand = -1
        self.asked: list[tuple[int, int, View]] = []  # (hand, seat, view)

    def seat(self, seat: int) -> ScriptedSeat:
        """The strategy object for one seat."""
        return ScriptedSeat(self, seat)

    def answer(self, seat: int, view: View) -> Any:
        if view.decision == "offer" and view.role == "nondealer":
            self.hand += 1  # the non-dealer's offer opens every hand
        self.asked.append((self.hand, seat, view))
        script = self.scripts[self.hand]
        if script is None:
            return autopilot(view)
        assert script, f"hand {self.hand}: script exhausted, seat {seat} asked {view.decision}"
        want_seat, word = script.pop(0)
        assert want_seat == seat, (
            f"hand {self.hand}: seat {seat} asked {view.decision}, script expected seat "
            f"{want_seat} ({word})"
        )
        return _answer_of(view.decision, word)

    def finished(self) -> bool:
        """Every scripted answer was used."""
        return all(not s for s in self.scripts if s is not None)


class ScriptedSeat:
    """One seat of a :class:`Director` script."""

    def __init__(self, director: Director, seat: int) -> None:
        self.director = director
        self.seat_no = seat
        self.name = f"scripted{seat}"

    def take_upcard(self, view: View) -> bool:
        return bool(self.director.answer(self.seat_no, view))

    def draw_from_discard(self, view: View) -> bool:
        return bool(self.director.answer(self.seat_no, view))

    def knock(self, view: View) -> bool:
        return bool(self.director.answer(self.seat_no, view))

    def discard(self, view: View) -> int | str:
        return self.director.answer(self.seat_no, view)


class ScriptedStrategy:
    """Plays a given list of answers in order (words as for :class:`Director`)."""

    def __init__(self, moves: Iterable[str], name: str = "scripted") -> None:
        self.moves = list(moves)
        self.name = name
        self.asked: list[str] = []

    def _next(self, view: View) -> Any:
        self.asked.append(view.decision)
        assert self.moves, f"script exhausted at a {view.decision} decision"
        return _answer_of(view.decision, self.moves.pop(0))

    def take_upcard(self, view: View) -> bool:
        return bool(self._next(view))

    def draw_from_discard(self, view: View) -> bool:
        return bool(self._next(view))

    def knock(self, view: View) -> bool:
        return bool(self._next(view))

    def discard(self, view: View) -> int | str:
        return self._next(view)


@dataclass
class SpyStrategy:
    """Records every (seat, View) it is asked about into a shared list, then plays ``policy``."""

    seat: int
    calls: list[tuple[int, View]]
    policy: Callable[[View], Any] = random_policy
    name: str = "spy"
    started: list[View] = field(default_factory=list)

    def start_hand(self, view: View) -> None:
        self.started.append(view)

    def _ask(self, view: View) -> Any:
        self.calls.append((self.seat, view))
        return self.policy(view)

    def take_upcard(self, view: View) -> bool:
        return bool(self._ask(view))

    def draw_from_discard(self, view: View) -> bool:
        return bool(self._ask(view))

    def knock(self, view: View) -> bool:
        return bool(self._ask(view))

    def discard(self, view: View) -> int | str:
        return self._ask(view)


def fixed_decks(monkeypatch: Any, decks: Sequence[np.ndarray]) -> None:
    """Make GameDriver deal ``decks[h]`` for hand ``h`` of every game it plays.

    The real ``start_hand`` still runs (it shuffles from the game's stream and fills the public
    game facts); the hand is then re-dealt from the fixed deck.
    """
    queue = [np.array(d, np.int64) for d in decks]
    counter = [0]

    def start_hand(gs: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
                   rules: np.ndarray, deck_rng: np.ndarray, game_info: np.ndarray) -> None:
        real_start_hand(gs, hs, pile, deck, rules, deck_rng, game_info)
        deck[:] = queue[counter[0] % len(queue)]
        counter[0] += 1
        deal(hs, pile, deck, rules)

    monkeypatch.setattr(sim.play.driver, "start_hand", start_hand)


# ------------------------------------------------------------------------------- referee


@dataclass(frozen=True)
class Point:
    """The true state when a hand player is asked a decision (what its view must match)."""

    player: int  # 0 dealer, 1 non-dealer
    decision: str
    hands: tuple[frozenset[int], frozenset[int]]
    pile: tuple[int, ...]
    stock: tuple[int, ...]
    took: tuple[frozenset[int], frozenset[int]]
    discarded: tuple[frozenset[int], frozenset[int]]
    declined: tuple[int | None, int | None]
    drawn: int | None
    taken: int | None
    turn: int
    knocked: bool
    knock_limit: int
    upcard: int


def deadwood_after(hand: frozenset[int] | set[int], c: int) -> int:
    """Least deadwood of ``hand`` without ``c``.

    From ``sim.engine.melds.min_deadwood_mask`` (checked against the oracle in test_melds), a
    different
    search from the one the hand kernel uses to decide knocking (``fill_deadwood_after_discards``).
    """
    return int(min_deadwood_mask(mask(hand) & ~(1 << c)))


class Referee:
    """Replays one hand-log record by RULES.md, asserting every rule after every move.

    ``points`` lists the decision points in the order the engine must have asked them
    (the forced stock draw after two passes is not one; a knock question is, whenever knocking
    was legal, whatever the answer).
    """

    def __init__(self, record: dict[str, Any], rules: Rules) -> None:
        self.rec = record
        self.rules = rules
        d = record["deal"]
        self.seat_of = (record["dealer"], record["nondealer"])
        hands = [set(parse_cards(d["dealer"])), set(parse_cards(d["nondealer"]))]
        self.upcard = parse_card(d["upcard"])
        stock = parse_cards(d["stock"])
        assert len(hands[0]) == len(hands[1]) == 10 and len(stock) == 31
        assert hands[0] | hands[1] | {self.upcard} | set(stock) == ALL_CARDS
        self.hands = hands
        self.pile: list[int] = [self.upcard]
        self.stock = stock
        self.took: list[set[int]] = [set(), set()]
        self.discarded: list[set[int]] = [set(), set()]
        self.declined: list[int | None] = [None, None]
        self.drawn: int | None = None
        self.taken: int | None = None
        self.turn = 0
        self.knocked = False
        self.limit = rules.hand_knock_limit(card_value(self.upcard))
        self.points: list[Point] = []
        self.moves = list(record["moves"])
        self.i = 0
        self.end: str | None = None
        self.knocker: int | None = None
        self.run()

    # ------------------------------------------------------------------ bookkeeping

    def fail(self, msg: str) -> AssertionError:
        r = self.rec
        return AssertionError(f"game {r.get('game')} hand {r.get('hand')} move {self.i}: {msg}")

    def point(self, player: int, decision: str) -> None:
        self.points.append(Point(
            player, decision, (frozenset(self.hands[0]), frozenset(self.hands[1])),
            tuple(self.pile), tuple(self.stock),
            (frozenset(self.took[0]), frozenset(self.took[1])),
            (frozenset(self.discarded[0]), frozenset(self.discarded[1])),
            (self.declined[0], self.declined[1]), self.drawn, self.taken, self.turn,
            self.knocked, self.limit, self.upcard))

    def next_move(self, player: int) -> dict[str, Any]:
        if self.i >= len(self.moves):
            raise self.fail(f"log ends while player {player} must move")
        m = self.moves[self.i]
        if m["seat"] not in self.seat_of:
            raise self.fail(f"seat {m['seat']} is not in the hand (the sitter never moves)")
        if m["seat"] != self.seat_of[player]:
            raise self.fail(f"seat {m['seat']} moved, expected seat {self.seat_of[player]}")
        self.i += 1
        return m

    def check_cards(self, mover: int | None) -> None:
        """52 cards conserved, hand sizes 10 (11 for a mover who drew), stock above the wall."""
        everything = [*self.hands[0], *self.hands[1], *self.pile, *self.stock]
        if len(everything) != 52 or set(everything) != ALL_CARDS:
            raise self.fail("the 52 cards are not conserved")
        for p in (0, 1):
            want = 11 if p == mover else 10
            if len(self.hands[p]) != want:
                raise self.fail(f"player {p} holds {len(self.hands[p])} cards, expected {want}")
        if len(self.stock) < self.rules.wall:
            raise self.fail(f"the stock ({len(self.stock)}) went below the wall")

    # ---------------------------------------------------------------------- the rules

    def draw(self, player: int, from_pile: bool) -> None:
        if from_pile:
            if not self.pile:
                raise self.fail("drew from an empty discard pile")
            card = self.pile.pop()
            self.took[player].add(card)
            self.taken = card
        else:
            card = self.stock.pop(0)
            self.taken = None
        self.drawn = card
        self.hands[player].add(card)
        self.check_cards(player)

    def legal_discards(self, player: int) -> list[int]:
        return [c for c in self.hands[player]
                if not (self.rules.forbid_taken_discard and c == self.taken)]

    def finish_turn(self, player: int) -> int | None:
        """Knock question, discard, then the wall / turn limit; the next player or None."""
        legal = self.legal_discards(player)
        can_knock = min(deadwood_after(self.hands[player], c) for c in legal) <= self.limit
        if can_knock:
            self.point(player, "knock")
        m = self.next_move(player)
        if m["move"] == "knock":
            if not can_knock:
                raise self.fail("knocked although no discard gets within the knock limit")
            self.knocked = True
            self.point(player, "discard")
            m = self.next_move(player)
        else:
            self.point(player, "discard")
        if m["move"] != "discard":
            raise self.fail(f"expected a discard, got {m['move']}")
        card = parse_card(m["card"])
        if card not in self.hands[player]:
            raise self.fail(f"discarded {m['card']}, not in hand")
        if card not in legal:
            raise self.fail(f"discarded {m['card']}, the card just taken from the pile")
        if self.knocked and deadwood_after(self.hands[player], card) > self.limit:
            raise self.fail(f"knock discard {m['card']} leaves deadwood above the limit")
        self.hands[player].remove(card)
        self.pile.append(card)
        self.discarded[player].add(card)
        self.drawn = self.taken = None
        self.check_cards(None)
        if self.knocked:
            self.end, self.knocker = "showdown", player
            return None
        self.turn += 1
        if len(self.stock) <= self.rules.wall:
            self.end = "draw"
            return None
        if self.turn >= self.rules.max_turns:
            self.end = "turn_limit"
            return None
        return 1 - player

    def run(self) -> None:
        self.check_cards(None)
        self.point(1, "offer")
        m = self.next_move(1)
        if m["move"] == "draw_discard":
            self.draw(1, True)
            player: int | None = 1
        elif m["move"] == "pass":
            self.declined[1] = self.upcard
            self.point(0, "offer")
            m = self.next_move(0)
            if m["move"] == "draw_discard":
                self.draw(0, True)
                player = 0
            elif m["move"] == "pass":
                self.declined[0] = self.upcard
                m = self.next_move(1)
                if m["move"] != "draw_stock":
                    raise self.fail(f"after two passes the non-dealer must draw, got {m}")
                self.draw(1, False)
                player = 1
            else:
                raise self.fail(f"the dealer's offer answered with {m['move']}")
        else:
            raise self.fail(f"the non-dealer's offer answered with {m['move']}")
        while True:
            nxt = self.finish_turn(player)
            if nxt is None:
                break
            player = nxt
            self.point(player, "draw")
            m = self.next_move(player)
            if m["move"] not in ("draw_discard", "draw_stock"):
                raise self.fail(f"expected a draw, got {m['move']}")
            self.draw(player, m["move"] == "draw_discard")
        if self.i != len(self.moves):
            raise self.fail(f"moves logged after the end of the hand: {self.moves[self.i:]}")
        if "result" in self.rec:
            self.check_result(self.rec["result"])

    def check_result(self, result: dict[str, Any]) -> None:
        if self.end in ("draw", "turn_limit"):
            want = {"end": self.end, "knocker": None, "winner": None, "points": 0,
                    "knocker_melds": [], "layoffs": [], "defender_melds": []}
            got = {k: result[k] for k in want}
            if got != want:
                raise self.fail(f"a drawn hand has result {result}, expected {want}")
            return
        k = self.knocker
        assert k is not None
        # The hand's knock limit and spade multiplier are applied here rather than through
        # settle's ``upcard`` argument, which refuses an upcard that ended in a hand.
        plain = self.rules.replace(oklahoma=False, spade_doubling=False, knock_limit=self.limit)
        s = settle([card_str(c) for c in self.hands[k]],
                   [card_str(c) for c in self.hands[1 - k]], plain)
        multiplier = 2 if self.rules.spade_doubling and self.upcard < 16 else 1
        winner = self.seat_of[k] if s.winner == "knocker" else self.seat_of[1 - k]
        want = {"end": s.end, "knocker": self.seat_of[k], "winner": winner,
                "points": s.points * multiplier, "knocker_deadwood": s.knocker_deadwood,
                "defender_deadwood": s.defender_deadwood}
        got = {key: result[key] for key in want}
        if got != want:
            raise self.fail(f"showdown result {got}, the rules give {want}")
        if sorted(map(sorted, result["knocker_melds"])) != sorted(map(sorted, s.knocker_melds)):
            raise self.fail(f"knocker melds {result['knocker_melds']} != {s.knocker_melds}")
        if sorted(result["layoffs"]) != sorted(s.layoffs):
            raise self.fail(f"layoffs {result['layoffs']} != {s.layoffs}")

    @property
    def winner_seat(self) -> int | None:
        """Seat that won the hand (None for a draw)."""
        return self.rec["result"]["winner"]


def next_roles(rules: Rules, roles: tuple[int, ...], dealer_won: bool | None) -> tuple[int, ...]:
    """Roles (dealer/box, non-dealer/captain[, sitter]) after a hand, by RULES.md.

    ``dealer_won`` is None for a drawn hand.
    """
    if dealer_won is None:
        return roles
    if rules.players == 2:
        return (roles[1], roles[0])
    box, captain, sitter = roles
    if dealer_won:
        return (box, sitter, captain)
    return (captain, sitter, box)


def referee_game(records: Sequence[dict[str, Any]], rules: Rules,
                 seats: int | None = None) -> list[Referee]:
    """Check one game's hand records by RULES.md (every hand, scores, roles, the end)."""
    n = rules.players
    assert records, "a game has at least one hand"
    assert [r["hand"] for r in records] == list(range(len(records)))
    assert len({r["game"] for r in records}) == 1
    scores = [0] * n
    roles: tuple[int, ...] | None = None
    refs = []
    for r in records:
        here = (r["dealer"], r["nondealer"]) + ((r["sitter"],) if n == 3 else ())
        if n == 2:
            assert r["sitter"] is None
        assert sorted(here) == list(range(n)), f"roles {here} are not a seating"
        if roles is None:
            if rules.initial_roles is not None:
                assert here == rules.initial_roles, f"initial roles {here}"
        else:
            assert here == roles, f"hand {r['hand']}: roles {here}, the rules give {roles}"
        ref = Referee(r, rules)
        refs.append(ref)
        res = r["result"]
        new = list(scores)
        if res["winner"] is None:
            dealer_won = None
        else:
            assert res["winner"] in (r["dealer"], r["nondealer"])
            if n == 3:
                assert res["winner"] != r["sitter"], "the sitter scored"
            assert res["points"] > 0
            new[res["winner"]] += res["points"]
            dealer_won = res["winner"] == r["dealer"]
        assert r["scores"] == new, f"hand {r['hand']}: scores {r['scores']}, expected {new}"
        assert all(b >= a for a, b in zip(scores, new, strict=True)), "a score went down"
        scores = new
        over = max(scores) >= rules.target
        assert r["game_over"] == over, f"hand {r['hand']}: game_over {r['game_over']}"
        if over:
            assert r is records[-1], "hands were played after the game was over"
            reached = [s for s in range(n) if scores[s] >= rules.target]
            assert reached == [res["winner"]] and r["game_winner"] == res["winner"]
        else:
            assert r["game_winner"] is None
        roles = next_roles(rules, here, dealer_won)
    assert records[-1]["game_over"], "the game ended before a score reached the target"
    return refs


# --------------------------------------------------------------------------- views

#: View fields holding one card code (or None).
CARD_FIELDS = ("opponent_declined", "self_declined", "drawn", "taken", "upcard")


def view_cards(view: View) -> set[int]:
    """Every card a view mentions, found generically over all its fields.

    Tuples of ints are card lists; ``deadwood_after`` keys are cards; the scalar card fields are
    listed in ``CARD_FIELDS``. A field added to View later is still scanned if it is a sequence.
    """
    out: set[int] = set()
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if f.name in CARD_FIELDS:
            if value is not None:
                out.add(int(value))
        elif isinstance(value, tuple | list | set | frozenset):
            out.update(int(c) for c in value if isinstance(c, int | np.integer))
        elif isinstance(value, dict):
            out.update(int(c) for c in value)
    return out


def check_view(view: View, pt: Point, rules: Rules, scores: Sequence[int],
               roles: Sequence[int | None]) -> None:
    """The view of hand player ``pt.player`` shows exactly the facts it may see, and no hidden
    card: nothing the opponent holds that he did not take from the pile, no stock card."""
    p, o = pt.player, 1 - pt.player
    hidden = pt.hands[o] - pt.took[o]
    secret = hidden | set(pt.stock)
    leaked = view_cards(view) & secret
    assert not leaked, f"the view shows hidden cards {[card_str(c) for c in leaked]}"
    # No scalar field may carry a hidden hand or the stock as a mask. Masks below 2**16 (spades
    # only) are skipped: they cannot be told apart from counts and scores.
    secret_masks = {m for m in (mask(hidden), mask(pt.stock)) if m >= 1 << 16}
    if hidden:
        secret_masks.add(mask(pt.hands[o]))
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if isinstance(value, int | np.integer) and not isinstance(value, bool):
            assert value not in secret_masks, f"view field {f.name} equals a hidden mask"
    expect = {
        "decision": pt.decision,
        "hand": tuple(sorted(pt.hands[p])),
        "role": ("dealer", "nondealer")[p],
        "stock_count": len(pt.stock),
        "turn": pt.turn,
        "discard_pile": pt.pile,
        "opponent_took": tuple(sorted(pt.took[o])),
        "opponent_discarded": tuple(sorted(pt.discarded[o])),
        "opponent_declined": pt.declined[o],
        "self_declined": pt.declined[p],
        "self_took": tuple(sorted(pt.took[p])),
        "self_discarded": tuple(sorted(pt.discarded[p])),
        "drawn": pt.drawn,
        "taken": pt.taken,
        "knock_limit": pt.knock_limit,
        "upcard": pt.upcard,
        "knocked": pt.knocked,
        "score": scores[roles[p]],
        "opponent_score": scores[roles[o]],
        "other_score": scores[roles[2]] if rules.players == 3 else 0,
        "target": rules.target,
        "wall": rules.wall,
        "gin_bonus": rules.gin_bonus,
        "undercut_bonus": rules.undercut_bonus,
    }
    got = {k: getattr(view, k) for k in expect}
    assert got == expect, {k: (got[k], expect[k]) for k in expect if got[k] != expect[k]}
    if hasattr(view, "deadwood"):  # own least deadwood before this turn's draw
        before = pt.hands[p] - {pt.drawn}
        assert view.deadwood == min_deadwood_mask(mask(before)), "wrong own deadwood"
    if pt.decision in ("knock", "discard"):
        legal = [c for c in pt.hands[p] if not (rules.forbid_taken_discard and c == pt.taken)]
        want = {c: deadwood_after(pt.hands[p], c) for c in legal}
        assert view.deadwood_after == want
        if pt.knocked:
            assert view.legal_discards == sorted(c for c in legal if want[c] <= pt.knock_limit)
    else:
        assert view.deadwood_after == {}


def check_views(records: Sequence[dict[str, Any]], calls: Sequence[tuple[int, View]],
                rules: Rules, spied: Iterable[int] | None = None) -> int:
    """Match every (seat, View) a strategy was asked about to the true state replayed from the
    log: the right seat decided (the advisor for the captain under ``team_policy='advisor'``),
    nothing else was asked (not the forced draw), and every view is right and hygienic.

    ``spied`` lists the seats whose views were recorded (default: all). Returns the number of
    views checked.
    """
    spied_seats = set(range(rules.players)) if spied is None else set(spied)
    games: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        games.setdefault(r["game"], []).append(r)
    i = 0
    for recs in games.values():
        scores = [0] * rules.players
        for ref in referee_game(recs, rules):
            r = ref.rec
            roles = (r["dealer"], r["nondealer"], r["sitter"])
            for pt in ref.points:
                advised = rules.team_policy == "advisor" and rules.players == 3
                decider = roles[2] if advised and pt.player == 1 else roles[pt.player]
                if decider not in spied_seats:
                    continue
                assert i < len(calls), "fewer decisions were asked than the log implies"
                seat, view = calls[i]
                i += 1
                assert seat == decider, (
                    f"game {r['game']} hand {r['hand']}: seat {seat} was asked {pt.decision} "
                    f"for hand player {pt.player}, expected seat {decider}"
                )
                check_view(view, pt, rules, scores, roles)
            scores = list(r["scores"])
    assert i == len(calls), f"{len(calls) - i} decisions asked beyond those of the log"
    return i


def protocol_policy(strategy: Any) -> Callable[[View], Any]:
    """A policy (view -> answer) from an object implementing the four protocol methods."""
    def policy(view: View) -> Any:
        method = {"offer": strategy.take_upcard, "draw": strategy.draw_from_discard,
                  "knock": strategy.knock, "discard": strategy.discard}[view.decision]
        return method(view)
    return policy
