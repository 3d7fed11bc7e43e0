"""Plain-Python strategies: worked examples of the protocol in :mod:`strategies.base`.

``GreedyKnockPy`` is a line-by-line twin of the compiled ``greedy-knock``; the test suite
checks that both give byte-identical hand logs for the same seeds, which proves the compiled
and the Python paths play by one set of rules.
"""

from __future__ import annotations

from sim.engine.cards import CARD_VALUE
from sim.engine.melds import best_discard_search
from sim.engine.view import View
from strategies.base import BaseStrategy


class GreedyKnockPy(BaseStrategy):
    """``greedy-knock`` in plain Python (see ``strategies.builtin.greedy_decide``)."""

    name = "greedy-knock-py"

    def __init__(self, knock_at: int | str | None = None) -> None:
        self.knock_at = None if knock_at is None else int(knock_at)

    def _lowers_deadwood(self, view: View) -> bool:
        top = view.top
        assert top is not None
        taken, _ = best_discard_search(view.hand_mask | (1 << top), top)
        return int(taken) < view.deadwood

    def take_upcard(self, view: View) -> bool:
        return self._lowers_deadwood(view)

    def draw_from_discard(self, view: View) -> bool:
        return self._lowers_deadwood(view)

    def knock(self, view: View) -> bool:
        knock_at = view.knock_limit if self.knock_at is None else self.knock_at
        return min(view.deadwood_after.values()) <= knock_at

    def discard(self, view: View) -> int:
        legal = view.legal_discards
        best = min(view.deadwood_after[c] for c in legal)
        ties = [c for c in legal if view.deadwood_after[c] == best]
        return max(ties, key=lambda c: (CARD_VALUE[c], c))


class LowCardHoarder(BaseStrategy):
    """A deliberately simple example for the docs: keep low cards, knock as soon as legal.

    Takes a discard only if it is an ace, two or three; discards its highest-value card among
    those leaving least deadwood.
    """

    name = "low-card-hoarder"

    def take_upcard(self, view: View) -> bool:
        return view.top is not None and CARD_VALUE[view.top] <= 3

    def draw_from_discard(self, view: View) -> bool:
        return self.take_upcard(view)

    def knock(self, view: View) -> bool:
        return True

    def discard(self, view: View) -> int:
        legal = view.legal_discards
        best = min(view.deadwood_after[c] for c in legal)
        return max((c for c in legal if view.deadwood_after[c] == best),
                   key=lambda c: (CARD_VALUE[c], c))
