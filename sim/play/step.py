"""One seat's move, written once: the step every game plays a decision through.

The batch loop (:func:`sim.play.batch.play_batch_into`), the game object every Python front
end steps (:class:`sim.play.state.GameState`, through :func:`play_to_decision`) and the
learning environments (:func:`sim.env.core.advance_table`) all call :func:`seat_move` at each
decision, so who decides, what that seat sees and which team policy chooses the move cannot
differ between them. They all play in buffers of :func:`new_tables`. A new front end does not
call the step itself: it owns a ``GameState``, which plays the built-ins and stops at the
decisions that are its own.

``ids[seat]`` is the registered built-in's id (``StrategySpec.strategy_id``) or -1 for a seat
whose moves come from outside the dispatcher; bit ``seat`` of ``controlled`` marks a seat the
caller plays whatever its id (a learning seat). ``params`` holds one row of strategy
parameters per seat (``StrategySpec.params_array``; -1 rows for the others).

**Team policies.** ``advisor``: the sitter decides for the captain (:func:`decider_seat`), and
the sitter is then the seat returned. ``consensus`` (three-handed): the captain's move comes from
:func:`strategies.team.team_decide` with the sitter's strategy as partner only when both the
captain and the sitter are built-ins the step plays (``ids >= 0``, not ``controlled``); a
learning seat, a plain-Python strategy or an unregistered compiled strategy has no option
values the step can read, so when either chair holds one the captain decides alone, exactly as
under ``captain`` (and as ``team_decide`` itself does for two built-ins of which one has no
option values). A controlled or outside captain is asked for its move (``CALLER``) under every
policy.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

import numpy as np

from sim.engine.game import CAPTAIN, GS_LEN, GS_ROLE_SEAT, SITTER, decider_seat
from sim.engine.hand import (
    AFTER_LEN,
    DEC_OVER,
    HS_LEN,
    HS_TO_MOVE,
    OK,
    advance,
    apply_move,
    forget_after,
)
from sim.engine.jit import allocating, kernel
from sim.engine.rules import RI_MAX_TURNS, RI_PLAYERS, RI_TEAM_CONSENSUS
from sim.engine.view import GI_LEN, V_LEN, fill_view
from strategies._dispatch import decide
from strategies.builtin import MEM_LEN, N_PARAMS, SCRATCH_LEN
from strategies.registry import StrategySpec
from strategies.team import team_decide

#: The move :func:`seat_move` returns when the deciding seat's move is the caller's to make.
CALLER = -1


@kernel(inline="always")
def seat_move(decision: int, rules: np.ndarray, ids: np.ndarray, params: np.ndarray,
              controlled: int, gs: np.ndarray, hs: np.ndarray, pile: np.ndarray,
              game_info: np.ndarray, view: np.ndarray, after: np.ndarray, mem: np.ndarray,
              rng: np.ndarray, scratch: np.ndarray) -> tuple[int, int]:
    """``(seat, move)`` for the decision ``advance`` stopped at: the seat that decides (the
    advisor when it decides for the captain), with its view filled in ``view``, and the
    built-in's move, or :data:`CALLER` when the seat is controlled or not a built-in.

    ``mem`` is both hand players' memory (``(2, MEM_LEN)``), ``rng`` the strategy stream (one
    word). Nothing is played: the caller applies the move (``apply_move``).
    """
    p = hs[HS_TO_MOVE]
    seat = decider_seat(gs, rules, p)
    fill_view(view, hs, pile, game_info, decision)
    if (controlled >> seat) & 1 or ids[seat] < 0:
        return seat, CALLER
    if p == CAPTAIN and rules[RI_TEAM_CONSENSUS] and rules[RI_PLAYERS] == 3:
        sitter = gs[GS_ROLE_SEAT + SITTER]
        if ids[sitter] >= 0 and not (controlled >> sitter) & 1:
            return seat, team_decide(ids[seat], ids[sitter], decision, params[seat],
                                     params[sitter], view, after, mem[p], rng, scratch)
    return seat, decide(ids[seat], decision, params[seat], view, after, mem[p], rng, scratch)


@kernel(inline="always")
def clear_memory(mem: np.ndarray) -> None:
    """Forget both hand players' per-hand memory (``(2, MEM_LEN)``): every compiled loop calls
    it as a hand starts, as :class:`sim.play.state.GameState` does. Explicit loops: numba's
    slice fill is about 30 times slower."""
    for j in range(MEM_LEN):
        mem[0, j] = 0
        mem[1, j] = 0


@kernel
def play_to_decision(rules: np.ndarray, ids: np.ndarray, params: np.ndarray, controlled: int,
                     gs: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
                     after: np.ndarray, moves: np.ndarray, view: np.ndarray,
                     game_info: np.ndarray, mem: np.ndarray, rng: np.ndarray,
                     scratch: np.ndarray) -> tuple[int, int, int]:
    """Play the built-ins' moves of a hand through :func:`seat_move` up to the next decision
    that is the caller's, in one compiled call: ``(decision, seat, OK)`` with the seat's view
    filled, ``(DEC_OVER, -1, OK)`` when the hand is over, or ``(decision, seat, error)`` when
    the engine refused a built-in's move (an engine bug). What
    :class:`sim.play.state.GameState` runs between the caller's moves."""
    while True:
        decision = advance(hs, pile, deck, after, moves)
        if decision == DEC_OVER:
            return DEC_OVER, -1, OK
        seat, move = seat_move(decision, rules, ids, params, controlled, gs, hs, pile,
                               game_info, view, after, mem, rng, scratch)
        if move == CALLER:
            return decision, seat, OK
        err = apply_move(hs, pile, deck, after, moves, move)
        if err != OK:
            return decision, seat, err


def seat_arrays(specs: Sequence[StrategySpec | None],
                controlled: Collection[int] = ()) -> tuple[np.ndarray, np.ndarray]:
    """The step's ``ids`` and ``params`` for seats ``specs``, written once for every front
    end: the registered built-in's id, or -1 for a seat whose moves come from elsewhere (None,
    a Python strategy, an unregistered compiled one, a ``controlled`` seat); one parameter
    row per seat (-1 rows for the seats that have none, and for the third chair of a
    two-player game)."""
    ids = np.full(3, -1, np.int64)
    params = np.full((3, N_PARAMS), -1, np.int64)
    for seat, spec in enumerate(specs):
        if spec is None:
            continue
        params[seat] = spec.params_array()
        if spec.compiled and spec.strategy_id is not None and seat not in controlled:
            ids[seat] = spec.strategy_id
    return ids, params


def move_rows(rules: np.ndarray, log: bool) -> int:
    """Rows of a hand's move log: a turn logs at most draw, knock, discard and the first turn
    adds two passes; none when no log is written."""
    return int(3 * rules[RI_MAX_TURNS] + 8) if log else 0


@allocating
def new_tables(tables: int, rows: int) -> tuple[np.ndarray, ...]:
    """Every buffer a game is played in, for ``tables`` games side by side (leading axis), in
    the order of :class:`TableBuffers`; ``rows`` of move log per game (:func:`move_rows`).

    Compiled, so the batch kernel allocates through it too (one table, its rows taken). The
    strategies' ``scratch`` is shared by the tables: it holds nothing between decisions.
    ``after`` starts forgotten (ready for a first turn); ``rng`` rows are the deck and strategy
    streams, for the caller to seed.
    """
    after = np.zeros((tables, AFTER_LEN), np.int64)
    for t in range(tables):
        forget_after(after[t])
    return (np.zeros((tables, GS_LEN), np.int64), np.zeros((tables, HS_LEN), np.int64),
            np.zeros((tables, 52), np.int64), np.zeros((tables, 52), np.int64), after,
            np.zeros((tables, rows, 2), np.int64), np.zeros((tables, V_LEN), np.int64),
            np.zeros((tables, GI_LEN), np.int64), np.zeros((tables, 2, MEM_LEN), np.int64),
            np.zeros(SCRATCH_LEN, np.int64), np.zeros((tables, 2), np.uint64))


class TableBuffers(NamedTuple):
    """The buffers of one game (or, from :func:`new_tables`, of many: a leading axis)."""

    gs: np.ndarray  # game state (GS_*)
    hs: np.ndarray  # hand state (HS_*)
    pile: np.ndarray  # discard pile
    deck: np.ndarray  # the deck the hand was dealt from
    after: np.ndarray  # turn scratch of the engine
    moves: np.ndarray  # the hand's move log (player, move)
    view: np.ndarray  # the deciding seat's view (V_*)
    game_info: np.ndarray  # public game facts the views show (GI_*)
    mem: np.ndarray  # both hand players' per-hand strategy memory
    scratch: np.ndarray  # a decision's workspace
    rng: np.ndarray  # [deck stream, strategy stream]


def table_buffers(rules: np.ndarray, log: bool = False,
                  tables: int | None = None) -> TableBuffers:
    """Buffers for one game (``tables=None``) or ``tables`` games, with a move log if
    ``log``: what the driver, the environments and any new front end play in."""
    bufs = TableBuffers(*new_tables(1 if tables is None else tables, move_rows(rules, log)))
    if tables is None:  # the one table's rows (the shared scratch has no table axis)
        return bufs._replace(**{name: getattr(bufs, name)[0] for name in TableBuffers._fields
                                if name != "scratch"})
    return bufs
