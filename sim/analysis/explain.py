"""Why did ``mc`` play that? Its option values at any decision of a logged hand.

:func:`decision_view` replays a hand-log record (``ginbox play --log``, ``play_games(...,
log=True)``) through the engine's own kernels up to one recorded move and returns the view
array the mover decided from, with the scores before the hand. :func:`explain_move` hands
that view to ``mc``'s search (:func:`strategies.mc_options.option_values`) and returns its
options as an :class:`Explanation`: a list of options that also says whose decision it was
(seat and strategy), which option the log shows was played, and, when the seat is not an
``mc`` seat, a warning that the values are ``mc``'s view of another strategy's move::

    from sim.play.driver import play_games
    from sim.analysis.explain import explain_move

    hand = play_games("mc,simple", rules="eaai", games=1, seed=3, log=True).log[0]
    options = explain_move(hand, 1)  # move 1: the first discard
    print(options.seat, options.strategy, options.warning)
    for option in options:
        print(option.move, f"{option.value:.3f}", "<- mc plays" if option.chosen else "",
              "<- played" if option is options.played else "")
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.analysis.positions import iter_decision_points
from strategies.mc_options import Option, option_values
from strategies.moves import move_of_record, move_str
from strategies.registry import parse_strategy


def decision_view(record: dict[str, Any], index: int,
                  previous: dict[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The view array (and the rules' turn scratch) of the decision that recorded move
    ``index`` (0-based in ``record["moves"]``) answered. A knock's view is the knock
    decision; a discard's, the discard. ``previous``: the same game's previous hand, for the
    scores the hand starts from (without it they are worked back from the record). Raises
    ValueError for a forced move or an index outside the hand."""
    moves = record["moves"]
    if not 0 <= index < len(moves):
        raise ValueError(f"move {index} is not in this hand: it has moves 0..{len(moves) - 1}")
    for point in iter_decision_points(record, previous):
        if point.index == index and point.played != "no_knock":
            return point.view, point.after
        if point.index > index:
            break
    raise ValueError(f"move {index} was forced (both passed the upcard): there was no choice "
                     "to explain")


class Explanation(list[Option]):
    """``mc``'s options at one logged decision (a list of :class:`Option`, base move first),
    with whose decision it was.

    ``seat`` and ``strategy``: the seat that made the logged move and the strategy the log
    names for it; ``mc_seat``: whether that strategy is ``mc``; ``played_move``: the move the
    log shows (``"9H"``, ``"draw_stock"``, ...) and ``played``: the option that is that move,
    or None when ``mc`` did not list it (a discard off its shortlist, say); ``warning``: None
    for an ``mc`` seat, else one line saying that the values are what ``mc`` would have made
    of another strategy's decision, not why that strategy played it.
    """

    def __init__(self, options: list[Option], seat: int, strategy: str, played_move: str) -> None:
        super().__init__(options)
        self.seat = seat
        self.strategy = strategy
        self.mc_seat = _is_mc(strategy)
        self.played_move = played_move
        self.played: Option | None = next((o for o in options if o.move == played_move), None)
        self.warning: str | None = None
        if not self.mc_seat:
            unlisted = "" if self.played is not None else (
                f"; the move played, {played_move}, is not among mc's options")
            self.warning = (f"seat {seat} plays {strategy}, not mc: these are mc's values for "
                            f"its decision, not why it played {played_move}{unlisted}")


def _is_mc(strategy: str) -> bool:
    try:
        return parse_strategy(strategy).name == "mc"
    except ValueError:  # a Python strategy that no longer imports, say: not mc
        return False


def _played_move(move: dict[str, Any]) -> str:
    """A logged move as an option names it: the card of a discard, else the move."""
    return move_str(move_of_record(move))


def explain_move(record: dict[str, Any], index: int, strategy: str = "mc",
                 seed: int = 0) -> Explanation:
    """``mc``'s option values at the decision of recorded move ``index`` (see the module
    docstring), with the seat, its strategy and the move played; ``strategy`` may set
    parameters, e.g. ``"mc:samples=1024"`` for a closer estimate, and ``seed`` picks the
    worlds."""
    view, after = decision_view(record, index)
    move = record["moves"][index]
    seat = int(move["seat"])
    seats = record.get("seats") or []
    name = str(seats[seat]) if seat < len(seats) else "?"
    return Explanation(option_values(view, strategy, seed, after), seat, name,
                       _played_move(move))
