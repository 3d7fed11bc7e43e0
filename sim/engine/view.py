"""What one player may see: the View a strategy decides from.

A strategy never receives the hand state, only a view filled from it here: its own cards, the
discard pile in order, the cards the opponent took from the pile or discarded, the first upcard
each player declined, the stock count, its role, the scores, the knock limit and the turn.
The opponent's hidden cards and the stock order are never copied in, so information hygiene
holds by construction. The advisor decides from the captain's view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.engine.cards import N_CODES, card_str, mask_cards
from sim.engine.hand import (
    HS_DEADWOOD,
    HS_DECLINED,
    HS_DISCARDED,
    HS_DRAWN,
    HS_GIN_BONUS,
    HS_HAND,
    HS_KNOCK_LIMIT,
    HS_PHASE,
    HS_PILE_LEN,
    HS_PILE_MASK,
    HS_TAKEN,
    HS_TO_MOVE,
    HS_TOOK,
    HS_TURNS,
    HS_UNDERCUT_BONUS,
    HS_UPCARD,
    HS_WALL,
    PH_KNOCK_DISCARD,
    forbidden_discard,
    stock_count,
)
from sim.engine.jit import kernel
from sim.engine.melds import fill_deadwood_after_discards

V_HAND = 0  # own cards (mask)
V_ROLE = 1  # 0 dealer (the box), 1 non-dealer (the captain)
V_DECISION = 2  # DEC_* of sim.engine.hand
V_STOCK = 3  # cards left in the stock
V_TURN = 4  # completed turns this hand
V_PILE_LEN = 5
V_TOP = 6  # top card of the discard pile, or -1
V_OPP_TOOK = 7  # mask: cards the opponent took from the pile this hand
V_OPP_DISCARDED = 8  # mask: cards the opponent discarded this hand
V_OPP_DECLINED = 9  # the first upcard if the opponent declined it, else -1
V_SELF_DECLINED = 10
V_SELF_TOOK = 11  # mask
V_DRAWN = 12  # card drawn this turn, or -1
V_TAKEN = 13  # card taken from the pile this turn (may not be discarded), or -1
V_KNOCK_LIMIT = 14
V_UPCARD = 15  # the hand's first upcard
V_SCORE_SELF = 16
V_SCORE_OPP = 17
V_SCORE_OTHER = 18  # the third player's score (three-handed), else 0
V_TARGET = 19
V_WALL = 20
V_GIN_BONUS = 21
V_UNDERCUT_BONUS = 22
V_SELF_DISCARDED = 23  # mask
V_KNOCKED = 24  # 1 when the mover has knocked and now discards
V_DEADWOOD = 25  # least deadwood of the mover's 10 cards before this turn's draw
V_FORBIDDEN = 26  # the card the mover may not discard this turn, or -1
V_PILE_MASK = 27  # the cards in the discard pile
V_LEN = 28

# Game facts a view needs, passed in by the game loop: scores by hand player and the target.
GI_SCORE = 0  # 2 slots: score of the seat holding hand player 0's and 1's role
GI_SCORE_OTHER = 2  # the sitter's score (three-handed)
GI_TARGET = 3
GI_LEN = 4


@kernel(inline="always")
def fill_view(view: np.ndarray, hs: np.ndarray, pile: np.ndarray, game_info: np.ndarray,
              decision: int) -> None:
    """Fill ``view`` for the player to move from the hand state and the public game facts."""
    p = hs[HS_TO_MOVE]
    o = 1 - p
    view[V_HAND] = hs[HS_HAND + p]
    view[V_ROLE] = p
    view[V_DECISION] = decision
    view[V_STOCK] = stock_count(hs)
    view[V_TURN] = hs[HS_TURNS]
    n = hs[HS_PILE_LEN]
    view[V_PILE_LEN] = n
    view[V_TOP] = pile[n - 1] if n > 0 else -1
    view[V_OPP_TOOK] = hs[HS_TOOK + o]
    view[V_OPP_DISCARDED] = hs[HS_DISCARDED + o]
    view[V_OPP_DECLINED] = hs[HS_DECLINED + o]
    view[V_SELF_DECLINED] = hs[HS_DECLINED + p]
    view[V_SELF_TOOK] = hs[HS_TOOK + p]
    view[V_SELF_DISCARDED] = hs[HS_DISCARDED + p]
    view[V_DRAWN] = hs[HS_DRAWN]
    view[V_TAKEN] = hs[HS_TAKEN]
    view[V_KNOCK_LIMIT] = hs[HS_KNOCK_LIMIT]
    view[V_UPCARD] = hs[HS_UPCARD]
    view[V_SCORE_SELF] = game_info[GI_SCORE + p]
    view[V_SCORE_OPP] = game_info[GI_SCORE + o]
    view[V_SCORE_OTHER] = game_info[GI_SCORE_OTHER]
    view[V_TARGET] = game_info[GI_TARGET]
    view[V_WALL] = hs[HS_WALL]
    view[V_GIN_BONUS] = hs[HS_GIN_BONUS]
    view[V_UNDERCUT_BONUS] = hs[HS_UNDERCUT_BONUS]
    view[V_KNOCKED] = 1 if hs[HS_PHASE] == PH_KNOCK_DISCARD else 0
    view[V_DEADWOOD] = hs[HS_DEADWOOD + p]
    view[V_FORBIDDEN] = forbidden_discard(hs)
    view[V_PILE_MASK] = hs[HS_PILE_MASK]


DECISION_NAMES = ("offer", "draw", "knock", "discard")


@dataclass(frozen=True)
class View:
    """A plain-Python copy of one player's view, handed to user strategies.

    Cards are codes (``sim.engine.cards``); ``*_str`` helpers give text. ``deadwood_after`` maps
    each
    card the player may discard now to the least deadwood that discard leaves (11-card
    decisions only; empty otherwise).
    """

    hand: tuple[int, ...]
    role: str  # "dealer" (the box in three-handed play) or "nondealer" (the captain)
    decision: str  # "offer", "draw", "knock" or "discard"
    stock_count: int
    turn: int
    discard_pile: tuple[int, ...]  # bottom first; the last is the top
    opponent_took: tuple[int, ...]
    opponent_discarded: tuple[int, ...]
    opponent_declined: int | None
    self_declined: int | None
    self_took: tuple[int, ...]
    self_discarded: tuple[int, ...]
    drawn: int | None
    taken: int | None
    knock_limit: int
    upcard: int
    score: int
    opponent_score: int
    other_score: int
    target: int
    wall: int
    gin_bonus: int
    undercut_bonus: int
    knocked: bool
    deadwood: int  # least deadwood of own 10 cards before this turn's draw
    deadwood_after: dict[int, int]
    rng: np.random.Generator | None = None

    @property
    def top(self) -> int | None:
        """The top card of the discard pile, if any."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def legal_discards(self) -> list[int]:
        """Cards that may be discarded now (after a knock: only those within the limit)."""
        cards = sorted(self.deadwood_after)
        if self.knocked:
            cards = [c for c in cards if self.deadwood_after[c] <= self.knock_limit]
        return cards

    @property
    def hand_str(self) -> list[str]:
        """Own cards as text."""
        return [card_str(c) for c in self.hand]

    @property
    def hand_mask(self) -> int:
        """Own cards as a mask."""
        m = 0
        for c in self.hand:
            m |= 1 << c
        return m

    @classmethod
    def from_arrays(cls, view: np.ndarray, pile: np.ndarray,
                    rng: np.random.Generator | None = None) -> View:
        """Build from the compiled view array (the same facts the built-ins see)."""
        def opt(x: int) -> int | None:
            return None if x < 0 else int(x)

        decision = int(view[V_DECISION])
        deadwood_after: dict[int, int] = {}
        if decision >= 2:  # 11 cards: what each legal discard would leave
            table = np.empty(N_CODES, np.int64)
            fill_deadwood_after_discards(int(view[V_HAND]), table)
            forbidden = int(view[V_FORBIDDEN])
            deadwood_after = {c: int(table[c]) for c in mask_cards(int(view[V_HAND]))
                              if c != forbidden}
        return cls(
            hand=tuple(mask_cards(int(view[V_HAND]))),
            role="dealer" if view[V_ROLE] == 0 else "nondealer",
            decision=DECISION_NAMES[decision],
            stock_count=int(view[V_STOCK]),
            turn=int(view[V_TURN]),
            discard_pile=tuple(int(c) for c in pile[: int(view[V_PILE_LEN])]),
            opponent_took=tuple(mask_cards(int(view[V_OPP_TOOK]))),
            opponent_discarded=tuple(mask_cards(int(view[V_OPP_DISCARDED]))),
            opponent_declined=opt(int(view[V_OPP_DECLINED])),
            self_declined=opt(int(view[V_SELF_DECLINED])),
            self_took=tuple(mask_cards(int(view[V_SELF_TOOK]))),
            self_discarded=tuple(mask_cards(int(view[V_SELF_DISCARDED]))),
            drawn=opt(int(view[V_DRAWN])),
            taken=opt(int(view[V_TAKEN])),
            knock_limit=int(view[V_KNOCK_LIMIT]),
            upcard=int(view[V_UPCARD]),
            score=int(view[V_SCORE_SELF]),
            opponent_score=int(view[V_SCORE_OPP]),
            other_score=int(view[V_SCORE_OTHER]),
            target=int(view[V_TARGET]),
            wall=int(view[V_WALL]),
            gin_bonus=int(view[V_GIN_BONUS]),
            undercut_bonus=int(view[V_UNDERCUT_BONUS]),
            knocked=bool(view[V_KNOCKED]),
            deadwood=int(view[V_DEADWOOD]),
            deadwood_after=deadwood_after,
            rng=rng,
        )
