"""Oklahoma: the upcard sets the hand's knock limit, and a spade upcard doubles its points.

Two rules fields (docs/rules.md, "Oklahoma and spade doubling"): ``oklahoma``, the value of
the hand's first upcard is its knock limit (an ace: gin only; a face card: 10), and
``spade_doubling``, a spade upcard doubles the hand's points; the ``oklahoma`` preset turns both
on. The whole variant is this module (hook points: :mod:`sim.engine.variants.base`): the
compiled hook :func:`hand_terms`, which the deal (``sim.engine.hand.deal``), the showdown
(``sim.engine.showdown.settle``) and ``Rules.hand_knock_limit`` all ask, and its declaration
:data:`OKLAHOMA`: the preset, the values of its two rules-array slots, the upcard a settled
hand needs, and its words in a hand told in words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.engine.cards import CARD_VALUE, SUIT_STRIDE
from sim.engine.jit import kernel
from sim.engine.rules_array import RI_KNOCK_LIMIT, RI_OKLAHOMA, RI_SPADE_DOUBLING
from sim.engine.variants.base import Variant

#: Card codes below this are spades (suit 0 of the suit-major codes).
_SPADES_END = SUIT_STRIDE


@kernel
def hand_terms(rules: np.ndarray, upcard: int) -> tuple[int, int]:
    """(knock limit, points multiplier) of one hand, from the rules array and its upcard.

    The Oklahoma rule (the upcard's value sets the knock limit, an ace meaning gin only) and
    spade doubling live here alone; ``upcard`` -1 means unknown (neither applies).
    """
    limit = rules[RI_KNOCK_LIMIT]
    if rules[RI_OKLAHOMA] and upcard >= 0:
        value = CARD_VALUE[upcard]
        limit = 0 if value == 1 else value
    multiplier = 2 if rules[RI_SPADE_DOUBLING] and 0 <= upcard < _SPADES_END else 1
    return limit, multiplier


def _rules_notes(rules: Any) -> list[str]:
    return (["Oklahoma"] if rules.oklahoma else []) + (
        ["spade doubling"] if rules.spade_doubling else [])


def _upcard_note(rules: Any, upcard: int) -> str:
    """The hand's knock limit (Oklahoma) and its doubling (a spade upcard)."""
    note = ""
    if rules.oklahoma:
        limit, _ = hand_terms(rules.to_array(), upcard)
        note = f"; knock limit {int(limit)} for this hand"
    if rules.spade_doubling and upcard < _SPADES_END:
        note += "; a spade: points are doubled"
    return note


OKLAHOMA = Variant(
    name="oklahoma",
    played=lambda rules: rules.oklahoma or rules.spade_doubling,
    rules_slots={"OKLAHOMA": lambda rules: int(rules.oklahoma),
                 "SPADE_DOUBLING": lambda rules: int(rules.spade_doubling)},
    presets={"oklahoma": (None, {"oklahoma": True, "spade_doubling": True})},
    upcard_needed=lambda rules: ("oklahoma rules need the hand's upcard to set the knock limit"
                                 if rules.oklahoma else None),
    rules_notes=_rules_notes,
    upcard_note=_upcard_note,
)
