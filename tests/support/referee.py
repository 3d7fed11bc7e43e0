"""An independent referee that re-checks hand logs by the rules (docs/rules.md).

The referee is plain Python: it keeps hands, pile and stock as Python collections, takes least
deadwood and showdowns from the brute-force oracle (``support.oracle``, which uses nothing of
``sim.engine.melds`` or ``sim.engine.showdown``) and works out each hand's knock limit and
spade multiplier from the rule text itself (:func:`hand_terms`), so a log is checked move by
move without trusting any engine kernel that produced it. Only card parsing
(``sim.engine.cards``) and the ``Rules`` record are shared with the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.engine.cards import card_str, parse_card, parse_cards
from sim.engine.rules import Rules
from support.decks import ALL_CARDS, mask
from support.hollywood import HollywoodSheet
from support.oracle import (
    brute_settle,
    defender_reply,
    is_meld,
    legal_layoff_sets,
    mask_of,
    mask_value,
    min_deadwood_of_mask,
    value,
)


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
    """Least deadwood of ``hand`` without ``c``, from the brute-force oracle (not the engine's
    meld search, which decides knocking in the hand kernel)."""
    return min_deadwood_of_mask(mask(hand) & ~(1 << c))


def hand_terms(rules: Rules, upcard: int) -> tuple[int, int]:
    """(knock limit, points multiplier) of a hand, from the text of docs/rules.md.

    Oklahoma: the first upcard's value is the hand's knock limit (a picture card or ten gives
    10) and an ace upcard means only gin may knock (limit 0); otherwise ``knock_limit``.
    Spade doubling: a spade first upcard (suit 0) doubles the hand's points, bonuses included.
    Written here rather than taken from ``sim.engine.variants.oklahoma.hand_terms``, so the
    view's knock limit is compared with an independent value.
    """
    if rules.oklahoma:
        limit = 0 if upcard % 16 == 0 else value(upcard)
    else:
        limit = rules.knock_limit
    return limit, 2 if rules.spade_doubling and upcard // 16 == 0 else 1


class Referee:
    """Replays one hand-log record by docs/rules.md, asserting every rule after every move.

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
        self.limit, self.multiplier = hand_terms(rules, self.upcard)
        self.points: list[Point] = []
        self.sheet_before: HollywoodSheet | None = None  # set by referee_game (Hollywood)
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
        kmask, dmask = mask(self.hands[k]), mask(self.hands[1 - k])
        best = brute_settle([card_str(c) for c in self.hands[k]],
                            [card_str(c) for c in self.hands[1 - k]],
                            gin_bonus=self.rules.gin_bonus,
                            undercut_bonus=self.rules.undercut_bonus, knock_limit=self.limit)
        kd, dd = best.knocker_deadwood, best.defender_deadwood
        end = "gin" if kd == 0 else "knock" if best.winner == "knocker" else "undercut"
        winner = self.seat_of[k] if best.winner == "knocker" else self.seat_of[1 - k]
        want = {"end": end, "knocker": self.seat_of[k], "winner": winner,
                "points": best.points * self.multiplier, "knocker_deadwood": kd,
                "defender_deadwood": dd}
        got = {key: result[key] for key in want}
        if got != want:
            raise self.fail(f"showdown result {got}, the rules give {want}")
        self.check_layout(result, kmask, dmask)

    def check_layout(self, result: dict[str, Any], kmask: int, dmask: int) -> None:
        """The logged melds and layoffs are a legal layout giving the logged deadwoods: the
        knocker's melds are disjoint melds of his cards leaving his deadwood, the layoffs fit
        them (none after gin), the defender's reply to them is his best, and his melds are
        disjoint melds of what he did not lay off, leaving his deadwood."""
        k_melds = [mask_of(m) for m in result["knocker_melds"]]
        d_melds = [mask_of(m) for m in result["defender_melds"]]
        layoffs = mask_of(result["layoffs"])
        gin = result["knocker_deadwood"] == 0
        for owner, melds, cards in (("knocker", k_melds, kmask),
                                    ("defender", d_melds, dmask & ~layoffs)):
            used = 0
            for m in melds:
                if not is_meld(m) or m & ~cards or m & used:
                    raise self.fail(f"{owner} melds {result[owner + '_melds']} are not "
                                    "disjoint melds of his cards")
                used |= m
            if mask_value(cards & ~used) != result[owner + "_deadwood"]:
                raise self.fail(f"{owner} melds {result[owner + '_melds']} do not leave "
                                f"deadwood {result[owner + '_deadwood']}")
        if gin and layoffs:
            raise self.fail(f"layoffs {result['layoffs']} onto gin")
        if not gin and layoffs not in set(legal_layoff_sets(k_melds, dmask)):
            raise self.fail(f"layoffs {result['layoffs']} do not fit {result['knocker_melds']}")
        reply, _ = defender_reply(k_melds, dmask, gin)
        if reply != result["defender_deadwood"]:
            raise self.fail(f"the defender's best reply leaves {reply}, the log says "
                            f"{result['defender_deadwood']}")

    @property
    def winner_seat(self) -> int | None:
        """Seat that won the hand (None for a draw)."""
        return self.rec["result"]["winner"]


def next_roles(rules: Rules, roles: tuple[int, ...], dealer_won: bool | None) -> tuple[int, ...]:
    """Roles (dealer/box, non-dealer/captain[, sitter]) after a hand, by docs/rules.md.

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
    """Check one game's hand records by docs/rules.md (every hand, scores, roles, the end)."""
    n = rules.players
    assert records, "a game has at least one hand"
    assert [r["hand"] for r in records] == list(range(len(records)))
    assert len({r["game"] for r in records}) == 1
    scores = [0] * n
    roles: tuple[int, ...] | None = None
    refs = []
    sheet = HollywoodSheet(rules) if rules.scoring == "hollywood" else None
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
        ref.sheet_before = None if sheet is None else sheet.copy()
        refs.append(ref)
        res = r["result"]
        if sheet is not None:
            check_hollywood_hand(r, sheet, records[-1])
            roles = next_roles(rules, here, None if res["winner"] is None
                               else res["winner"] == r["dealer"])
            continue
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


def check_hollywood_hand(r: dict[str, Any], sheet: HollywoodSheet,
                         last: dict[str, Any]) -> None:
    """One hand under Hollywood scoring: enter it on the sheet, compare the record."""
    res = r["result"]
    if res["winner"] is not None:
        assert res["winner"] in (r["dealer"], r["nondealer"]) and res["points"] > 0
        sheet.win(res["winner"], res["points"])
    n = sheet.rules.players
    assert r["scores"] == [sheet.points(s) for s in range(n)], f"hand {r['hand']}: scores"
    assert r["hollywood"] == sheet.record(), (
        f"hand {r['hand']}: hollywood {r['hollywood']}, the sheet gives {sheet.record()}")
    assert r["game_over"] == sheet.over, f"hand {r['hand']}: game_over {r['game_over']}"
    if sheet.over:
        assert r is last, "hands were played after the match was over"
        assert r["game_winner"] == sheet.match_winner()
        assert r["final_scores"] == sheet.match_totals()
    else:
        assert r["game_winner"] is None and "final_scores" not in r
