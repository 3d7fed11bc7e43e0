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

from sim.engine.cards import parse_card
from sim.engine.hand import (
    DEC_KNOCK,
    DEC_OVER,
    HS_N_MOVES,
    MOVE_CODES,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.view import (
    GI_LEN,
    GI_PLAYERS,
    GI_SCORE,
    GI_SCORE_OTHER,
    GI_TARGET,
    V_LEN,
    fill_view,
)
from sim.records.log import rules_of
from sim.records.replay import deck_of
from strategies.mc_options import Option, option_values
from strategies.registry import parse_strategy


def _scores_before(record: dict[str, Any]) -> list[int]:
    """Each seat's score before the hand: after it, less the winner's points."""
    scores = [int(s) for s in record["scores"]]
    result = record.get("result") or {}
    if result.get("winner") is not None:
        scores[int(result["winner"])] -= int(result.get("points", 0))
    return scores


def decision_view(record: dict[str, Any], index: int) -> tuple[np.ndarray, np.ndarray]:
    """The view array (and the rules' turn scratch) of the decision that recorded move
    ``index`` (0-based in ``record["moves"]``) answered. A knock's view is the knock
    decision; a discard's, the discard. Raises ValueError for a forced move or an index
    outside the hand."""
    moves = record["moves"]
    if not 0 <= index < len(moves):
        raise ValueError(f"move {index} is not in this hand: it has moves 0..{len(moves) - 1}")
    rules = rules_of(record)
    scores = _scores_before(record)
    info = np.zeros(GI_LEN, np.int64)
    info[GI_SCORE] = scores[int(record["dealer"])]
    info[GI_SCORE + 1] = scores[int(record["nondealer"])]
    sitter = record.get("sitter")
    info[GI_SCORE_OTHER] = scores[int(sitter)] if sitter is not None else 0
    info[GI_TARGET] = rules.target
    info[GI_PLAYERS] = rules.players
    hs, pile, after, log = new_hand_buffers(len(moves) + 4)
    deck = deck_of(record)
    deal(hs, pile, deck, rules.to_array())
    view = np.zeros(V_LEN, np.int64)
    i = 0
    while True:
        n_logged = int(hs[HS_N_MOVES])
        decision = advance(hs, pile, deck, after, log)
        if int(hs[HS_N_MOVES]) > n_logged:  # a forced draw from the stock
            if i == index:
                raise ValueError(f"move {index} was forced (both passed the upcard): "
                                 "there was no choice to explain")
            i += 1
        if decision == DEC_OVER:
            break
        m = moves[i] if i < len(moves) else None
        if decision == DEC_KNOCK:
            knocks = m is not None and m["move"] == "knock"
            if knocks and i == index:
                fill_view(view, hs, pile, info, decision)
                return view, after
            apply_move(hs, pile, deck, after, log, MOVE_KNOCK if knocks else MOVE_NO_KNOCK)
            i += int(knocks)
            continue
        if m is None:
            break
        if i == index:
            fill_view(view, hs, pile, info, decision)
            return view, after
        move = parse_card(m["card"]) if m["move"] == "discard" else MOVE_CODES[m["move"]]
        if apply_move(hs, pile, deck, after, log, move) != OK:
            raise ValueError(f"move {i} of the record is illegal: replay_hand tells why")
        i += 1
    raise ValueError(f"move {index} is not a decision of this hand")


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
    return str(move["card"]) if move["move"] == "discard" else str(move["move"])


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
