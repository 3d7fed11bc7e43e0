"""What one player may see: the View a strategy decides from.

A strategy never receives the hand state, only a view filled from it here: its own cards, the
discard pile in order, the cards the opponent took from the pile or discarded, the first upcard
each player declined, the stock count, its role, the scores, the knock limit and the turn.
The opponent's hidden cards and the stock order are never copied in, so information hygiene
holds by construction. The advisor decides from the captain's view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import N_CODES, card_str, mask_cards
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_KNOCK,
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
    MOVE_NO_KNOCK,
    MOVE_PASS,
    OK,
    PH_KNOCK_DISCARD,
    deadwood_table,
    forbidden_discard,
    knock_limit_error,
    move_error,
    new_after,
    stock_count,
)
from sim.engine.jit import kernel
from sim.engine.layout import Layout, Record
from sim.engine.melds import fill_deadwood_after_discards
from sim.engine.variants import VARIANTS, hollywood

# The view array, declared once (offsets computed by Layout).
V_LAYOUT = Layout("V_", [
    ("HAND", 1),  # own cards (mask)
    ("ROLE", 1),  # 0 dealer (the box), 1 non-dealer (the captain)
    ("DECISION", 1),  # DEC_* of sim.engine.hand
    ("STOCK", 1),  # cards left in the stock
    ("TURN", 1),  # completed turns this hand
    ("PILE_LEN", 1),
    ("TOP", 1),  # top card of the discard pile, or -1
    ("OPP_TOOK", 1),  # mask: cards the opponent took from the pile this hand
    ("OPP_DISCARDED", 1),  # mask: cards the opponent discarded this hand
    ("OPP_DECLINED", 1),  # the first upcard if the opponent declined it, else -1
    ("SELF_DECLINED", 1),
    ("SELF_TOOK", 1),  # mask
    ("DRAWN", 1),  # card drawn this turn, or -1
    ("TAKEN", 1),  # card taken from the pile this turn (may not be discarded), or -1
    ("KNOCK_LIMIT", 1),
    ("UPCARD", 1),  # the hand's first upcard
    ("SCORE_SELF", 1),
    ("SCORE_OPP", 1),
    ("SCORE_OTHER", 1),  # the third player's score (three-handed), else 0
    ("TARGET", 1),
    ("WALL", 1),
    ("GIN_BONUS", 1),
    ("UNDERCUT_BONUS", 1),
    ("SELF_DISCARDED", 1),  # mask
    ("KNOCKED", 1),  # 1 when the mover has knocked and now discards
    ("DEADWOOD", 1),  # least deadwood of the mover's 10 cards before this turn's draw
    ("FORBIDDEN", 1),  # the card the mover may not discard this turn, or -1
    ("PILE_MASK", 1),  # the cards in the discard pile
    ("PLAYERS", 1),  # players in the game: 2, or 3 (box, captain and sitter)
    # how the opponent ended the game's earlier hands (any he played, three-handed too):
    ("OPP_KNOCKS", 1),  # hands he ended by knocking with deadwood (undercut or not)
    ("OPP_GINS", 1),  # hands he ended by going gin
    ("OPP_KNOCK_DEADWOOD", 1),  # the most deadwood he knocked with (0: no knock yet)
    # the rules variants' blocks: Hollywood scoring's (sim.engine.variants.hollywood.VIEW; all
    # 0 under standard scoring, where SCORE_* above are the scores; under Hollywood SCORE_*
    # above are the first open game's scores)
    *hollywood.VIEW.pieces,
])
(V_HAND, V_ROLE, V_DECISION, V_STOCK, V_TURN, V_PILE_LEN, V_TOP, V_OPP_TOOK, V_OPP_DISCARDED,
 V_OPP_DECLINED, V_SELF_DECLINED, V_SELF_TOOK, V_DRAWN, V_TAKEN, V_KNOCK_LIMIT, V_UPCARD,
 V_SCORE_SELF, V_SCORE_OPP, V_SCORE_OTHER, V_TARGET, V_WALL, V_GIN_BONUS, V_UNDERCUT_BONUS,
 V_SELF_DISCARDED, V_KNOCKED, V_DEADWOOD, V_FORBIDDEN, V_PILE_MASK, V_PLAYERS, V_OPP_KNOCKS,
 V_OPP_GINS, V_OPP_KNOCK_DEADWOOD, V_HOLLYWOOD,
 V_GAME_SCORE_SELF, V_GAME_SCORE_OPP, V_GAME_SCORE_OTHER, V_GAME_OPEN, V_OPENED_SELF,
 V_OPENED_OPP, V_OPENED_OTHER) = V_LAYOUT.offsets
V_LAYOUT.check(globals())
V_LEN = V_LAYOUT.length

# Game facts a view needs, passed in by the game loop: scores by hand player and the target.
GI_LAYOUT = Layout("GI_", [
    ("SCORE", 2),  # score of the seat holding hand player 0's and 1's role
    ("SCORE_OTHER", 1),  # the sitter's score (three-handed)
    ("TARGET", 1),
    ("PLAYERS", 1),  # 2 or 3: a search strategy values the scores differently three-handed
    # by hand player, how the seat holding his role ended the game's earlier hands (GS_KNOCKS..)
    ("KNOCKS", 2),
    ("GINS", 2),
    ("KNOCK_DEADWOOD", 2),
    # the rules variants' blocks: Hollywood scoring's (sim.engine.variants.hollywood.FACTS)
    *hollywood.FACTS.pieces,
])
(GI_SCORE, GI_SCORE_OTHER, GI_TARGET, GI_PLAYERS, GI_KNOCKS, GI_GINS, GI_KNOCK_DEADWOOD,
 GI_HOLLYWOOD, GI_GAME_SCORE, GI_GAME_OPEN,
 GI_OPENED) = GI_LAYOUT.offsets
GI_LAYOUT.check(globals())
GI_LEN = GI_LAYOUT.length
if GI_SCORE_OTHER != GI_SCORE + 2:  # Hollywood's hook writes the plain scores as one block
    raise AssertionError("GI_SCORE and GI_SCORE_OTHER must be adjacent")

_HV_LEN = hollywood.VIEW.length
_HF_LEN = hollywood.FACTS.length
#: Each rules variant's block of the view array, by variant name (its Python hooks read it).
VIEW_BLOCKS: dict[str, slice] = {"hollywood": slice(V_HOLLYWOOD, V_HOLLYWOOD + _HV_LEN)}


def view_fields(view: np.ndarray) -> Record:
    """A view array by name (``seen.hand``, ``seen.decision``, writable), or a 2-D array of
    views by column: how Python code reads what a player sees without ``V_*`` offsets."""
    return V_LAYOUT.record(view)


def info_fields(game_info: np.ndarray) -> Record:
    """The game facts a view is filled from, by name (``info.score[p]``, ``info.target``)."""
    return GI_LAYOUT.record(game_info)


@kernel
def fill_hand_info(game_info: np.ndarray, target: int, players: int) -> None:
    """The game facts of a hand played on its own, every score 0 (a study's or a test's
    hand outside any game): the target and the players the views show."""
    for j in range(GI_LEN):
        game_info[j] = 0
    game_info[GI_TARGET] = target
    game_info[GI_PLAYERS] = players


@kernel(inline="always")
def fill_view(view: np.ndarray, hs: np.ndarray, pile: np.ndarray, game_info: np.ndarray,
              decision: int) -> None:
    """Fill ``view`` for the player to move from the hand state and the public game facts."""
    fill_player_view(view, hs, pile, game_info, hs[HS_TO_MOVE], decision)


@kernel(inline="always")
def fill_player_view(view: np.ndarray, hs: np.ndarray, pile: np.ndarray,
                     game_info: np.ndarray, p: int, decision: int) -> None:
    """Fill ``view`` as hand player ``p`` sees the hand now (:func:`fill_view` for the
    mover): what an observer of any seat is shown."""
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
    view[V_PLAYERS] = game_info[GI_PLAYERS]
    view[V_OPP_KNOCKS] = game_info[GI_KNOCKS + o]
    view[V_OPP_GINS] = game_info[GI_GINS + o]
    view[V_OPP_KNOCK_DEADWOOD] = game_info[GI_KNOCK_DEADWOOD + o]
    # Hollywood's games (its hook fills its view block from its facts block). Under standard
    # scoring game_info holds 0 there and a view buffer is allocated with 0, so the copy is
    # skipped on this hot path (one branch per decision); a buffer holding anything else in
    # V_HOLLYWOOD (a Hollywood view, or garbage) is rewritten.
    if game_info[GI_HOLLYWOOD] or view[V_HOLLYWOOD]:
        hollywood.fill_view(view[V_HOLLYWOOD:V_HOLLYWOOD + _HV_LEN],
                            game_info[GI_HOLLYWOOD:GI_HOLLYWOOD + _HF_LEN], p)


@kernel
def legal_moves(view: np.ndarray, after: np.ndarray, out: np.ndarray) -> int:
    """Write every legal answer to the view's decision into ``out``; return how many.

    The decision is ``view[V_DECISION]``. Offer: MOVE_PASS, MOVE_DRAW_DISCARD. Draw:
    MOVE_DRAW_DISCARD (when the pile is not empty), MOVE_DRAW_STOCK. Knock: MOVE_KNOCK,
    MOVE_NO_KNOCK (asked only when knocking is legal). Discard: the card codes the mover may
    discard, ascending: every card but the forbidden one (just taken from the pile), and after
    a knock only those leaving deadwood within the knock limit (read from the per-card table in
    ``after``, filled here if needed, as ``sim.engine.hand.deadwood_table`` does). Always in
    ascending code order; ``out`` needs room for 11 entries.

    Exactly the moves :func:`sim.engine.hand.apply_move` accepts: both ask the predicates
    :func:`sim.engine.hand.move_error` and :func:`sim.engine.hand.knock_limit_error`.
    """
    decision = view[V_DECISION]
    hand = view[V_HAND]
    forbidden = view[V_FORBIDDEN]
    pile_len = view[V_PILE_LEN]
    n = 0
    if decision == DEC_DISCARD:
        knocked = view[V_KNOCKED] == 1
        if knocked:
            deadwood_table(hand, forbidden, after)
        m = hand
        while m:
            c = trailing_zeros(m)
            m &= m - 1
            if move_error(DEC_DISCARD, hand, forbidden, pile_len, c) != OK:
                continue
            if knocked and knock_limit_error(True, view[V_KNOCK_LIMIT], after[c]) != OK:
                continue
            out[n] = c
            n += 1
        return n
    for move in range(MOVE_PASS, MOVE_NO_KNOCK + 1):
        if move_error(decision, hand, forbidden, pile_len, move) == OK:
            out[n] = move
            n += 1
    return n


DECISION_NAMES = ("offer", "draw", "knock", "discard")
#: A view's ``decision`` text by code: the four decisions, then ``"none"`` for the view of a
#: seat that has no decision to take (an observer's, or any seat's after the hand).
_DECISION_TEXT = (*DECISION_NAMES, "none")


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
    decision: str  # "offer", "draw", "knock" or "discard" ("none": nothing to decide)
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
    forbidden: int | None = None  # the card that may not be discarded this turn (just taken)
    players: int = 2  # players in the game (3: this hand is box against captain)
    # how the opponent ended the game's earlier hands (every showdown is public)
    opponent_knocks: int = 0  # hands he ended by knocking with deadwood
    opponent_gins: int = 0  # hands he ended by going gin
    opponent_knock_deadwood: int = 0  # the most deadwood he knocked with (0: no knock yet)
    # Hollywood scoring (docs/rules.md): games 1, 2, 3 in order; empty under standard scoring,
    # where ``score`` and the others are the scores (under Hollywood: the first open game's)
    hollywood: bool = False
    game_scores: tuple[int, ...] = ()  # own points in each game
    opponent_game_scores: tuple[int, ...] = ()
    other_game_scores: tuple[int, ...] = ()  # the third player's (three-handed), else zeros
    games_open: tuple[bool, ...] = ()  # which games are still being played
    games_opened: int = 0  # own games opened, 0..3 (the next win scores in one more)
    opponent_games_opened: int = 0
    other_games_opened: int = 0

    @property
    def top(self) -> int | None:
        """The top card of the discard pile, if any."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def legal_discards(self) -> list[int]:
        """Cards that may be discarded now (after a knock: only those within the limit).

        Read off ``deadwood_after`` (which the engine filled without the forbidden card): 15
        times cheaper than a kernel call, and the same list as :meth:`legal_moves` at a discard
        (tests/test_legal_moves.py checks it at every decision of real hands).
        """
        cards = sorted(self.deadwood_after)
        if self.knocked:
            cards = [c for c in cards if self.deadwood_after[c] <= self.knock_limit]
        return cards

    def to_array(self) -> np.ndarray:
        """The facts of the view array that legality depends on (the rest left 0)."""
        seen = view_fields(np.zeros(V_LEN, np.int64))
        seen.hand = self.hand_mask
        seen.decision = _DECISION_TEXT.index(self.decision)
        seen.pile_len = len(self.discard_pile)
        seen.top = self.discard_pile[-1] if self.discard_pile else -1
        seen.knocked = int(self.knocked)
        seen.knock_limit = self.knock_limit
        seen.forbidden = -1 if self.forbidden is None else self.forbidden
        seen.taken = -1 if self.taken is None else self.taken
        seen.drawn = -1 if self.drawn is None else self.drawn
        return seen.buffer

    def legal_moves(self) -> list[int]:
        """Every legal answer to this decision as move codes, from the engine's
        :func:`legal_moves` kernel: ``MOVE_*`` codes of ``sim.engine.hand`` at the offer, draw
        and knock decisions, card codes at a discard (after a knock, only those within the
        limit)."""
        out = np.zeros(N_CODES, np.int64)
        n = legal_moves(self.to_array(), new_after(), out)
        return [int(m) for m in out[:n]]

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
    def from_arrays(cls, view: np.ndarray, pile: np.ndarray | Sequence[int],
                    rng: np.random.Generator | None = None) -> View:
        """Build from the compiled view array (the same facts the built-ins see)."""
        def opt(x: int) -> int | None:
            return None if x < 0 else int(x)

        seen = view_fields(view)
        decision = int(seen.decision)
        variant_fields: dict[str, Any] = {}
        for variant in VARIANTS:  # the fields each variant's block fills
            if variant.view_fields is not None:
                variant_fields |= variant.view_fields(view[VIEW_BLOCKS[variant.name]])
        hand = int(seen.hand)
        deadwood_after: dict[int, int] = {}
        if DEC_KNOCK <= decision <= DEC_DISCARD:  # 11 cards: what each legal discard leaves
            table = np.empty(N_CODES, np.int64)
            fill_deadwood_after_discards(hand, table)
            forbidden = int(seen.forbidden)
            deadwood_after = {c: int(table[c]) for c in mask_cards(hand) if c != forbidden}
        return cls(
            hand=tuple(mask_cards(hand)),
            role="dealer" if seen.role == 0 else "nondealer",
            decision=_DECISION_TEXT[decision],
            stock_count=int(seen.stock),
            turn=int(seen.turn),
            discard_pile=tuple(int(c) for c in pile[: int(seen.pile_len)]),
            opponent_took=tuple(mask_cards(int(seen.opp_took))),
            opponent_discarded=tuple(mask_cards(int(seen.opp_discarded))),
            opponent_declined=opt(int(seen.opp_declined)),
            self_declined=opt(int(seen.self_declined)),
            self_took=tuple(mask_cards(int(seen.self_took))),
            self_discarded=tuple(mask_cards(int(seen.self_discarded))),
            drawn=opt(int(seen.drawn)),
            taken=opt(int(seen.taken)),
            knock_limit=int(seen.knock_limit),
            upcard=int(seen.upcard),
            score=int(seen.score_self),
            opponent_score=int(seen.score_opp),
            other_score=int(seen.score_other),
            target=int(seen.target),
            wall=int(seen.wall),
            gin_bonus=int(seen.gin_bonus),
            undercut_bonus=int(seen.undercut_bonus),
            knocked=bool(seen.knocked),
            deadwood=int(seen.deadwood),
            deadwood_after=deadwood_after,
            rng=rng,
            forbidden=opt(int(seen.forbidden)),
            players=int(seen.players) or 2,
            opponent_knocks=int(seen.opp_knocks),
            opponent_gins=int(seen.opp_gins),
            opponent_knock_deadwood=int(seen.opp_knock_deadwood),
            **variant_fields,
        )
