"""One seat's move, written once, and the typed records every game is played in.

A game is played in a :class:`GameBuffers` (its buffers: game and hand state, pile, deck, view,
the strategies' memory and workspace, the random streams) by a :class:`Seating` (the rules
and who sits where): two records passed whole to every compiled function of a game, so
adding a buffer never means editing a list of parameters. :class:`Streams` says which deals
and strategy draws game ``g`` gets.

Every loop (:mod:`sim.play.loop`: the batch loop, the game object
:class:`sim.play.state.GameState`, the environments, the recorders of ``ginbox train``)
plays each decision through :func:`seat_move`, so who decides, what that seat sees and which
team policy chooses the move cannot differ between them. A new front end does not call the
step itself: it owns a ``GameState``, which plays the built-ins and stops at the decisions
that are its own.

``Seating.ids[seat]`` is the registered built-in's id (``StrategySpec.strategy_id``) or -1
for a seat whose moves come from outside the dispatcher; bit ``seat`` of
``Seating.controlled`` marks a seat the caller plays whatever its id (a learning seat).
``Seating.params`` holds one row of strategy parameters per seat
(``StrategySpec.params_array``; -1 rows for the others).

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
from sim.engine.hand import AFTER_LEN, HS_LEN, HS_TO_MOVE, forget_after
from sim.engine.jit import allocating, kernel
from sim.engine.rules import RI_PLAYERS, RI_TEAM_CONSENSUS, rules_fields
from sim.engine.view import GI_LEN, V_LEN, fill_view
from strategies._dispatch import decide
from strategies.builtin import MEM_LEN, N_PARAMS, SCRATCH_LEN
from strategies.registry import StrategySpec
from strategies.team import team_decide


class GameBuffers(NamedTuple):
    """The buffers of one game (or, from :func:`new_tables`, of many: a leading axis on all
    but ``scratch``). The offsets inside ``gs``, ``hs``, ``player_view`` and ``game_info`` are the
    engine's (``sim.engine.layout``); code outside the kernels reads them through the typed
    records of the engine or :class:`sim.play.state.GameState`."""

    gs: np.ndarray  # game state (GS_*)
    hs: np.ndarray  # hand state (HS_*)
    pile: np.ndarray  # discard pile
    deck: np.ndarray  # the deck the hand was dealt from
    after: np.ndarray  # turn scratch of the engine
    moves: np.ndarray  # the hand's move log (player, move)
    player_view: np.ndarray  # the deciding seat's view (V_*; "view" is a numpy method to numba)
    game_info: np.ndarray  # public game facts the views show (GI_*)
    mem: np.ndarray  # both hand players' per-hand strategy memory
    scratch: np.ndarray  # a decision's workspace
    rng: np.ndarray  # [deck stream, strategy stream]

    def row(self, i: int) -> GameBuffers:
        """Game ``i`` of a record of many (its rows; the shared scratch), from Python:
        compiled code calls :func:`table_row`."""
        return GameBuffers(*(a if name == "scratch" else a[i]
                       for name, a in zip(GameBuffers._fields, self, strict=True)))


class Seating(NamedTuple):
    """Who plays a game, passed whole to the compiled step: the rules array
    (``Rules.to_array()``), the seats' built-in ids and parameter rows (:func:`seat_arrays`)
    and the bit mask of the seats the caller plays whatever their id."""

    rules: np.ndarray
    ids: np.ndarray
    params: np.ndarray
    controlled: int


class Streams(NamedTuple):
    """Which random streams game ``g`` plays from: its deals from stream ``g`` of ``deck``,
    its strategies' draws from stream ``g`` of ``strategy`` (so a game's result never depends
    on how games are batched or which worker plays it); ``rotate``: seat game ``g`` by the
    rotation (:func:`sim.engine.game.game_init`), else as the rules' initial roles say."""

    deck: np.uint64
    strategy: np.uint64
    rotate: bool


#: The move :func:`seat_move` returns when the deciding seat's move is the caller's to make.
CALLER = -1


@kernel(inline="always")
def seat_move(decision: int, seating: Seating, table: GameBuffers,
              rng: np.ndarray) -> tuple[int, int]:
    """``(seat, move)`` for the decision ``advance`` stopped at: the seat that decides (the
    advisor when it decides for the captain), with its view filled in ``table.player_view``,
    and the built-in's move, or :data:`CALLER` when the seat is controlled or not a built-in.

    The strategies draw from ``rng``, the table's strategy stream (``table.rng[1:2]``, sliced
    once a hand by the caller: slicing it at every decision cost the batch loop a few
    percent), and keep their per-hand memory in ``table.mem`` (a row per hand player).
    Nothing is played: the caller applies the move (``apply_move``).
    """
    rules, ids, params, controlled = seating
    hs, view, after, scratch = table.hs, table.player_view, table.after, table.scratch
    p = hs[HS_TO_MOVE]
    seat = decider_seat(table.gs, rules, p)
    fill_view(view, hs, table.pile, table.game_info, decision)
    if (controlled >> seat) & 1 or ids[seat] < 0:
        return seat, CALLER
    if p == CAPTAIN and rules[RI_TEAM_CONSENSUS] and rules[RI_PLAYERS] == 3:
        sitter = table.gs[GS_ROLE_SEAT + SITTER]
        if ids[sitter] >= 0 and not (controlled >> sitter) & 1:
            return seat, team_decide((ids[seat], ids[sitter]), decision,
                                     (params[seat], params[sitter]), view, after,
                                     table.mem[p], rng, scratch)
    return seat, decide(ids[seat], decision, params[seat], view, after, table.mem[p], rng,
                        scratch)


@kernel(inline="always")
def clear_memory(mem: np.ndarray) -> None:
    """Forget both hand players' per-hand memory (``(2, MEM_LEN)``), as a hand starts
    (:func:`sim.play.loop.begin_hand`). Explicit loops: numba's slice fill is about 30 times
    slower."""
    for j in range(MEM_LEN):
        mem[0, j] = 0
        mem[1, j] = 0


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
    return int(3 * rules_fields(rules).max_turns + 8) if log else 0


@allocating
def new_tables(tables: int, rows: int) -> GameBuffers:
    """A :class:`GameBuffers` for ``tables`` games side by side (a leading axis on every buffer but
    ``scratch``); ``rows`` of move log per game (:func:`move_rows`).

    Compiled, so the compiled loops allocate through it too (one table, its rows taken by
    :func:`table_row`). The strategies' ``scratch`` is shared by the tables: it holds nothing
    between decisions. ``after`` starts forgotten (ready for a first turn); ``rng`` rows are
    the deck and strategy streams, for the caller to seed.
    """
    after = np.zeros((tables, AFTER_LEN), np.int64)
    for t in range(tables):
        forget_after(after[t])
    return GameBuffers(np.zeros((tables, GS_LEN), np.int64), np.zeros((tables, HS_LEN), np.int64),
                 np.zeros((tables, 52), np.int64), np.zeros((tables, 52), np.int64), after,
                 np.zeros((tables, rows, 2), np.int64), np.zeros((tables, V_LEN), np.int64),
                 np.zeros((tables, GI_LEN), np.int64),
                 np.zeros((tables, 2, MEM_LEN), np.int64), np.zeros(SCRATCH_LEN, np.int64),
                 np.zeros((tables, 2), np.uint64))


@kernel(inline="always")
def table_row(tables: GameBuffers, i: int) -> GameBuffers:
    """Game ``i`` of a :func:`new_tables` record (its rows; the shared scratch)."""
    return GameBuffers(tables.gs[i], tables.hs[i], tables.pile[i], tables.deck[i], tables.after[i],
                 tables.moves[i], tables.player_view[i], tables.game_info[i],
                 tables.mem[i], tables.scratch, tables.rng[i])


def table_buffers(rules: np.ndarray, log: bool = False, tables: int | None = None) -> GameBuffers:
    """A :class:`GameBuffers` for one game (``tables=None``) or ``tables`` games, with a move log
    if ``log``: what the driver, the environments and any new front end play in."""
    bufs = new_tables(1 if tables is None else tables, move_rows(rules, log))
    return bufs.row(0) if tables is None else bufs
