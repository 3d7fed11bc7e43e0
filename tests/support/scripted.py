"""Python strategies for the tests: a fixed autopilot, a uniform random policy, scripts of
answers (one seat, or whole games over several seats) and a spy that records every view it is
shown. They drive the Python driver through exact situations and capture what it asks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.engine.view import View
from support.moves import MOVE_WORDS


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



def protocol_policy(strategy: Any) -> Callable[[View], Any]:
    """A policy (view -> answer) from an object implementing the four protocol methods."""
    def policy(view: View) -> Any:
        method = {"offer": strategy.take_upcard, "draw": strategy.draw_from_discard,
                  "knock": strategy.knock, "discard": strategy.discard}[view.decision]
        return method(view)
    return policy
