"""One hand through the compiled kernels (``deal``, ``advance``, ``apply_move``) with readable
accessors, so the hand tests can script a hand move by move or play it out at random while the
kernel state is checked after every move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sim.engine.cards import card_str, mask_cards
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
from support.decks import FULL, mask
from support.moves import MOVE_WORDS, move_code


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
