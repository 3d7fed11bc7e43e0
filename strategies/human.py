"""A person at the table: the typed notation, and the ``human`` strategy that asks for moves.

The typed notation (docs/play.md) is what a player types, built on the move notation's short
form (:mod:`strategies.moves`): ``d`` draw from the stock, ``p`` take the pile's top card
(the first upcard, or the discard), ``pass`` decline the first upcard,
``x 9H`` discard the nine of hearts, ``k 9H`` knock and discard it; plus ``hint``, ``help``
and ``quit``. At the knock question (11 cards, knocking legal) ``x 9H`` answers "no knock"
and discards, ``k 9H`` knocks and discards, and a bare ``k`` knocks and asks for the card.

Every move is checked by the engine's own predicates (:meth:`sim.engine.view.View.legal_moves`)
before anything is played, so a refused move changes nothing. :func:`parse_answer` turns one
line into the engine moves it stands for; :class:`Human` is a plain-Python strategy (the
protocol of :mod:`strategies.base`) that asks a terminal, for any place a strategy name is
accepted. ``ginbox play`` seats a person through :mod:`sim.table` instead, which also shows the
scores of all seats, the roles, the showdown and the hints.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Sequence
from typing import TextIO

from sim.engine.cards import card_str, fan, parse_card, sort_for_display
from sim.engine.hand import (
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)
from sim.engine.melds import best_arrangement
from sim.engine.view import DECISION_NAMES, View
from strategies.moves import Move, move_str, parse_move

#: Words that are not moves: answered by the front end.
COMMANDS = ("hint", "help", "quit")

HELP = ("moves: d (draw from the stock), p (take the pile's top card), pass (decline the "
        "first upcard), x 9H (discard 9H), k 9H (knock and discard 9H); hint, help, quit")

class MoveError(ValueError):
    """A line that is not a legal move here: its one-line message says why."""


def _card(text: str) -> int:
    try:
        return parse_card(text)
    except ValueError:
        raise MoveError(f"malformed card {text.upper()!r}: expected rank A23456789TJQK then suit "
                        "SHDC, e.g. 9H or TD") from None


def _why_not_discard(view: View, card: int, knocked: bool) -> str:
    """Why ``card`` may not be discarded now (it is known not to be legal)."""
    name = card_str(card)
    if card not in view.hand:
        return f"illegal: {name} is not in your hand"
    if card == view.forbidden:
        return f"illegal: {name} was just taken from the pile and may not be discarded this turn"
    if knocked:
        left = view.deadwood_after.get(card)
        return (f"illegal: knocking with {name} discarded leaves {left} deadwood, over the "
                f"knock limit {view.knock_limit}")
    return f"illegal: {name} may not be discarded now"


def _discard(view: View, card_text: str, knocked: bool) -> int:
    card = _card(card_text)
    legal = dataclasses.replace(view, knocked=knocked, decision="discard").legal_moves()
    if card not in legal:
        raise MoveError(_why_not_discard(view, card, knocked))
    return card


def parse_answer(text: str, view: View) -> list[int] | str:
    """The engine moves one typed line stands for at ``view``'s decision (one or two: a knock
    and its discard), or the command word (``hint``, ``help``, ``quit``).

    Raises :class:`MoveError` with a one-line reason when the line is malformed or the move
    is illegal; nothing is played either way.
    """
    words = text.strip().lower().split()
    if not words:
        raise MoveError("no move: " + HELP)
    if len(words) == 1 and words[0] in COMMANDS:
        return words[0]
    decision = DECISION_NAMES.index(view.decision)
    head, args = words[0], words[1:]
    if head in ("d", "p", "pass"):
        if args:
            raise MoveError(f"malformed: {head!r} takes no card")
        if decision not in (DEC_OFFER, DEC_DRAW):
            raise MoveError(f"illegal: you hold 11 cards and must discard ({legal_text(view)})")
        move = parse_move(head).code
        if move not in view.legal_moves():
            if move == MOVE_DRAW_DISCARD:
                raise MoveError("illegal: the discard pile is empty")
            raise MoveError(f"illegal: {'pass' if move == MOVE_PASS else 'd'} answers another "
                            f"question; legal now: {legal_text(view)}")
        return [move]
    if head in ("x", "k"):
        if len(args) > 1:
            raise MoveError(f"malformed: {head!r} takes one card, e.g. {head} 9H")
        if args:
            _card(args[0])  # a malformed line is named as such before any rule is asked
        if decision in (DEC_OFFER, DEC_DRAW):
            raise MoveError(f"illegal: draw first ({legal_text(view)})")
        if head == "k":
            if decision != DEC_KNOCK:
                reason = ("you have already knocked" if view.knocked else
                          "no discard leaves deadwood within the knock limit "
                          f"{view.knock_limit}")
                raise MoveError(f"illegal: you may not knock now: {reason}")
            return [MOVE_KNOCK] + ([_discard(view, args[0], True)] if args else [])
        if not args:
            raise MoveError("malformed: say which card, e.g. x 9H")
        card = _discard(view, args[0], view.knocked)
        return [MOVE_NO_KNOCK, card] if decision == DEC_KNOCK else [card]
    if len(words) == 1 and decision != DEC_OFFER and decision != DEC_DRAW:
        try:
            parse_card(head)
        except ValueError:
            pass
        else:  # a bare card: a discard
            return parse_answer(f"x {head}", view)
    raise MoveError(f"malformed: {text.strip()!r} is not a move; {HELP}")


def legal_notation(view: View) -> list[str]:
    """The legal answers to ``view``'s decision in the notation (``x 9H`` for each card, in
    :func:`hand_order`, the order the hand is shown in)."""
    decision = DECISION_NAMES.index(view.decision)
    legal = view.legal_moves()
    if decision in (DEC_OFFER, DEC_DRAW):
        return [move_str(Move.of_code(m), "short") for m in legal]
    order = {card: i for i, card in enumerate(hand_order(view.hand))}
    discards = dataclasses.replace(view, decision="discard").legal_moves()
    out = [f"x {card_str(c)}" for c in sorted(discards, key=order.__getitem__)]
    if decision == DEC_KNOCK:
        knocks = dataclasses.replace(view, knocked=True, decision="discard").legal_moves()
        out += [f"k {card_str(c)}" for c in sorted(knocks, key=order.__getitem__)]
    return out


def legal_text(view: View) -> str:
    """:func:`legal_notation` in one line, with the many discards folded."""
    moves = legal_notation(view)
    knocks = [m[2:] for m in moves if m.startswith("k ")]
    discards = [m[2:] for m in moves if m.startswith("x ")]
    parts = [m for m in moves if m[0] not in "xk" or m == "pass"]
    if discards:
        parts.append("x " + "|".join(discards))
    if knocks:
        parts.append("k " + "|".join(knocks))
    return ", ".join(parts)


def arrangement(cards: Iterable[int]) -> tuple[list[list[int]], list[int], int]:
    """The cards as a player arranges them: the melds of a least-deadwood arrangement (each
    in :func:`sim.engine.melds.meld_cards` order), the loose cards in hand order
    (:func:`sim.engine.cards.sort_for_display`: by suit, A 2 .. 9 T J Q K), and the
    deadwood."""
    cards = list(cards)
    melds, deadwood = best_arrangement(cards)
    meld_codes = [[parse_card(c) for c in meld] for meld in melds]
    melded = {c for meld in meld_codes for c in meld}
    return meld_codes, sort_for_display(c for c in cards if c not in melded), deadwood


def hand_order(cards: Iterable[int]) -> list[int]:
    """The cards in the order :func:`melds_text` shows them: meld by meld, then the loose
    cards in hand order."""
    melds, loose, _ = arrangement(cards)
    return [c for meld in melds for c in meld] + loose


def melds_text(cards: Iterable[int]) -> tuple[str, int]:
    """The cards sorted into a least-deadwood arrangement, the loose cards in hand order:
    ``"[2C 3C 4C] [7S 7H 7D] · KS  9H"``, and the deadwood."""
    melds, loose, deadwood = arrangement(cards)
    text = " ".join(f"[{' '.join(card_str(c) for c in meld)}]" for meld in melds)
    if loose:
        text += (" · " if text else "") + fan(loose)
    return text, deadwood


def cards_text(cards: Iterable[int]) -> str:
    """Cards as text in the order given, ``-`` for none."""
    return " ".join(card_str(c) for c in cards) or "-"


def view_lines(view: View, opponent_took: Sequence[int] | None = None,
               opponent_threw: Sequence[int] | None = None) -> list[str]:
    """What a player sees at a decision, from the view alone (no other seat's names).

    ``opponent_took`` and ``opponent_threw``: the opponent's pile draws and discards this
    hand in the order played, when the caller knows it (the table does); else the view's,
    in hand order."""
    melds, deadwood = melds_text(view.hand)
    top = card_str(view.top) if view.top is not None else "none"
    pile = len(view.discard_pile)
    took = view.opponent_took if opponent_took is None else opponent_took
    threw = view.opponent_discarded if opponent_threw is None else opponent_threw
    lines = [f"You hold {melds}  (deadwood {deadwood})",
             f"Pile top {top} ({pile} card{'' if pile == 1 else 's'}), stock "
             f"{view.stock_count}, knock at {view.knock_limit} or less",
             f"Opponent took {cards_text(took)}, threw {cards_text(threw)}"]
    if view.drawn is not None and view.taken is None:
        lines.append(f"You drew {card_str(view.drawn)} from the stock")
    if view.knocked:
        lines.append("You have knocked: discard a card that leaves deadwood within the limit")
    return lines


def in_play_order(order: list[int], now: Iterable[int]) -> list[int]:
    """``order`` (cards seen at a seat's earlier decisions, in the order they came) followed
    by the cards of ``now`` new since then; ``now`` alone when it lacks one of ``order`` (a
    new hand). Between two decisions of a seat its opponent plays one turn, so the order is
    the order played."""
    now = list(now)
    if not set(order) <= set(now):
        return list(now)
    return order + [c for c in now if c not in order]


class Human:
    """A person answering at a terminal: a plain-Python strategy (``take_upcard``,
    ``draw_from_discard``, ``knock``, ``discard``) for any place a strategy name is accepted.

    Reads one line per decision in the notation of the module docstring, refuses a malformed
    or illegal line with one line and asks again; ``quit`` (or the end of input) stops the run
    with KeyboardInterrupt. ``hint_samples`` is accepted for ``human:hint_samples=N``; hints
    need the table's full view, which :mod:`sim.table` (``ginbox play``) has.
    """

    name = "human"

    def __init__(self, hint_samples: int | str | None = None, stdin: TextIO | None = None,
                 stdout: TextIO | None = None) -> None:
        self.hint_samples = None if hint_samples is None else int(hint_samples)
        self.stdin = stdin
        self.stdout = stdout
        self._discard: int | None = None
        self._took: list[int] = []  # the opponent's pile draws and discards, in play order
        self._threw: list[int] = []

    def _ask(self, view: View) -> list[int]:
        out = self.stdout or sys.stdout
        inp = self.stdin or sys.stdin
        self._took = in_play_order(self._took, view.opponent_took)
        self._threw = in_play_order(self._threw, view.opponent_discarded)
        for line in view_lines(view, self._took, self._threw):
            print(line, file=out)
        while True:
            print(f"{view.decision}> ", end="", file=out, flush=True)
            line = inp.readline()
            if not line:
                raise KeyboardInterrupt("end of input")
            try:
                answer = parse_answer(line, view)
            except MoveError as exc:
                print(exc, file=out)
                continue
            if answer == "quit":
                raise KeyboardInterrupt("quit")
            if answer == "help":
                print(HELP, file=out)
            elif answer == "hint":
                print("hint: play at 'ginbox play', whose table values every option", file=out)
            elif not isinstance(answer, str):
                return list(answer)

    def take_upcard(self, view: View) -> bool:
        return self._ask(view)[0] == MOVE_DRAW_DISCARD

    def draw_from_discard(self, view: View) -> bool:
        return self._ask(view)[0] == MOVE_DRAW_DISCARD

    def knock(self, view: View) -> bool:
        moves = self._ask(view)
        self._discard = moves[1] if len(moves) > 1 else None
        return moves[0] == MOVE_KNOCK

    def discard(self, view: View) -> int:
        if self._discard is not None:
            card, self._discard = self._discard, None
            return card
        return self._ask(view)[-1]


def is_human(name: str) -> bool:
    """True for the strategy name of a person (``human``, ``human:hint_samples=32``)."""
    return name.strip().partition(":")[0].strip().lower() == "human"


__all__ = ["COMMANDS", "HELP", "Human", "MoveError", "arrangement", "cards_text",
           "hand_order", "in_play_order", "is_human", "legal_notation", "legal_text",
           "melds_text", "parse_answer", "view_lines"]
