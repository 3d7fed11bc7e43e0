"""The one move notation: a move as a typed record (:class:`Move`), its one parser
(:func:`parse_move`) and printer (:func:`move_str`), and the hand log's form of a move
(:func:`move_record`, :func:`move_of_record`). The notation is described in docs/rules.md,
"Move notation".

A move is of one of six kinds (:data:`KINDS`); a discard carries its card. Its text comes in
three forms, and :func:`parse_move` reads all of them:

* ``name``: ``pass``, ``draw_discard``, ``draw_stock``, ``knock``, ``no_knock``, or the card
  of a discard (``9H``): the outside players' protocol, :class:`sim.play.state.GameState`,
  the review's and ``mc``'s option names;
* ``short``: ``pass``, ``p``, ``d``, ``k``, ``n``, or the card: the web table's move list;
* ``spelled``: the name, but a discard as ``discard 9H``: OpenSpiel's action strings and the
  replay's messages.

The module is plain Python over the engine's codes (``sim.engine.hand.MOVE_*``, cards as
``sim.engine.cards`` spells them): it sits outside ``sim/engine/`` so the notation is no part
of the compiled engine's source stamp.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from sim.engine.cards import N_CODES, card_str, is_card, parse_card
from sim.engine.hand import DISCARD_NAME, MOVE_NAMES

Kind = Literal["pass", "draw_discard", "draw_stock", "knock", "no_knock", "discard"]
#: The kinds of move, in engine code order (a discard, code 0..51, last).
KINDS: tuple[Kind, ...] = get_args(Kind)
Form = Literal["name", "short", "spelled"]
#: The forms a move's text is printed in.
FORMS: tuple[Form, ...] = get_args(Form)
#: The short text of each kind but a discard (the web table's move list).
SHORT: dict[str, str] = {"pass": "pass", "draw_discard": "p", "draw_stock": "d", "knock": "k",
                         "no_knock": "n"}
_CODE_OF_KIND: dict[str, int] = {name: code for code, name in MOVE_NAMES.items()}
_KIND_OF_WORD: dict[str, str] = {**{k: k for k in SHORT}, **{s: k for k, s in SHORT.items()}}
_EXPECTED = ("expected pass, draw_discard (p), draw_stock (d), knock (k), no_knock (n), "
             "or a discard such as 9H or discard 9H")

assert KINDS[:-1] == tuple(MOVE_NAMES[c] for c in sorted(MOVE_NAMES)) and \
    KINDS[-1] == DISCARD_NAME, "the notation's kinds are the engine's move names"


#: The most characters of a bad text a message repeats (a message stays one short line).
SHOWN_CHARS = 40


def _quoted(value: Any) -> str:
    """``value`` as a message quotes it, cut to :data:`SHOWN_CHARS` characters."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


class MoveTextError(ValueError):
    """Text, or a logged move, that is not a move of the notation: the message is one line."""


@dataclass(frozen=True)
class Move:
    """One move: its ``kind``, and for a discard the ``card`` (an engine card code)."""

    kind: Kind
    card: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise MoveTextError(f"{_quoted(self.kind)} is not a kind of move: expected one of "
                                + ", ".join(KINDS))
        if (self.kind == DISCARD_NAME) != (self.card is not None):
            raise MoveTextError("a discard, and only a discard, has a card")
        if self.card is not None and not is_card(self.card):
            raise MoveTextError(f"{_quoted(self.card)} is not a card code")

    @staticmethod
    def of_code(code: int) -> Move:
        """The move of an engine move code (a card code is its discard), from a table made
        once: every logged move passes through here."""
        move = _MOVE_OF_CODE.get(int(code))
        if move is None:
            raise MoveTextError(f"{_quoted(code)} is not an engine move code")
        return move

    @property
    def code(self) -> int:
        """The engine move code (``sim.engine.hand.MOVE_*``, a discard's card code)."""
        return self.card if self.card is not None else _CODE_OF_KIND[self.kind]

    def __str__(self) -> str:
        return move_str(self)


#: Every engine move code's move: the 52 discards and the five other kinds.
_MOVE_OF_CODE: dict[int, Move] = {
    **{code: Move(cast(Kind, name)) for code, name in MOVE_NAMES.items()},
    **{code: Move("discard", code) for code in range(N_CODES) if is_card(code)}}


def parse_move(text: str) -> Move:
    """The move a text names, in any of the three forms; a card is read as ``parse_card``
    reads it (``9h`` and ``10H`` too). MoveTextError, in one line, for anything else."""
    if not isinstance(text, str):
        raise MoveTextError(f"{_quoted(text)} is not a move: {_EXPECTED}")
    words = text.split()
    if len(words) == 1 and words[0] in _KIND_OF_WORD:
        return Move(cast(Kind, _KIND_OF_WORD[words[0]]))
    card_text = words[1] if len(words) == 2 and words[0] == DISCARD_NAME else \
        words[0] if len(words) == 1 else None
    if card_text is not None:
        try:
            return Move("discard", parse_card(card_text))
        except ValueError:
            pass
    raise MoveTextError(f"{_quoted(text)} is not a move: {_EXPECTED}")


def move_str(move: Move, form: Form = "name") -> str:
    """The text of ``move`` in ``form`` (``name``, ``short`` or ``spelled``)."""
    if move.card is not None:
        return f"discard {card_str(move.card)}" if form == "spelled" else card_str(move.card)
    if form == "short":
        return SHORT[move.kind]
    if form not in FORMS:
        raise MoveTextError(f"{form!r} is not a form of move text: expected one of "
                            + ", ".join(FORMS))
    return move.kind


def move_name(code: int) -> str:
    """An engine move code's ``name`` text: what the protocol and the logs call it."""
    return move_str(Move.of_code(code))


def move_record(seat: int, move: Move) -> dict[str, Any]:
    """The hand log's object of one move: ``{"seat": 1, "move": "discard", "card": "KD"}``,
    ``{"seat": 0, "move": "pass"}``. A ``no_knock`` is never logged: MoveTextError."""
    if move.kind == "no_knock":
        raise MoveTextError("no_knock is not a move of the hand log")
    if move.card is not None:
        return {"seat": seat, "move": DISCARD_NAME, "card": card_str(move.card)}
    return {"seat": seat, "move": move.kind}


def move_of_record(record: Mapping[str, Any]) -> Move:
    """The move of a hand log's move object (its ``move`` and, for a discard, ``card``)."""
    kind = record.get("move")
    if kind == DISCARD_NAME:
        card: Any = record.get("card")
        try:
            return Move("discard", parse_card(card))
        except ValueError:
            raise MoveTextError(f"{_quoted(card)} is not a card: expected a card such as 9H") \
                from None
    if kind not in SHORT or kind == "no_knock":
        raise MoveTextError(f"{_quoted(kind)} is not a logged move: expected one of pass, "
                            "draw_discard, draw_stock, knock, discard")
    return Move(kind)


__all__ = ["FORMS", "KINDS", "SHORT", "Form", "Kind", "Move", "MoveTextError", "move_name",
           "move_of_record", "move_record", "move_str", "parse_move"]
