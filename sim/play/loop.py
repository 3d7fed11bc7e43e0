"""The one compiled game loop, and the hooks a caller adds to it.

Every game ginbox plays goes through these three kernels: :func:`begin_hand` deals a hand and
resets the strategies' per-hand memory (the one place it is reset), :func:`play_hand` plays
the hand through the seat step (:func:`sim.play.step.seat_move`) up to a decision that is the
caller's or the hand's end, and :func:`play_game` plays a whole game of them. The batch loop
(:mod:`sim.play.batch`), the game object (:class:`sim.play.state.GameState`), the learning
environments (:mod:`sim.env.core`), the recorders of ``ginbox train`` and the ceiling
study's clairvoyant seat all drive them.

What a caller adds is a **hook record**: a ``NamedTuple`` of its own class, holding what it
needs (its output arrays, a network, counters), registered with :func:`register_hooks`
beside its kernels. The loop calls ``on_decision`` at each decision, with the move the seat
step chose (or :data:`sim.play.step.CALLER`), and plays the move it returns; ``on_hand_end``
when a hand is over, before it is scored into the game. A recorder keeps rows there, the
clairvoyant seat replaces the caller's move with its search. The hooks are resolved when the
loop is compiled (numba's ``overload``, typed on the record's class), so a loop with
:data:`NO_HOOKS` compiles to the plain loop, and each hook class gets its own cached
specialisation: the hooks cost nothing at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numba.core import types
from numba.extending import overload

from sim.engine.game import (
    GO_ERROR,
    GO_LEN,
    GS_OVER,
    end_hand,
    fill_game_info,
    game_init,
    record_game,
    record_hand,
    shuffle_deck,
)
from sim.engine.hand import DEC_OVER, OK, advance, apply_move, deal
from sim.engine.jit import kernel
from sim.engine.rng import stream_seed
from sim.play.step import CALLER, GameBuffers, Seating, Streams, clear_memory, seat_move


class NoHooks(NamedTuple):
    """The plain loop: the seat step's moves played as they are."""

    unused: int = 0


NO_HOOKS = NoHooks()

_HOOKS: dict[type, tuple[Callable[..., Any], Callable[..., Any]]] = {}


@kernel(inline="always")
def _keep_move(hooks: Any, seating: Seating, table: GameBuffers, decision: int, seat: int,
               move: int) -> int:
    """The default ``on_decision``: the seat step's move."""
    return move


@kernel(inline="always")
def _nothing_at_hand_end(hooks: Any, seating: Seating, table: GameBuffers) -> None:
    """The default ``on_hand_end``."""


def register_hooks(cls: type, on_decision: Callable[..., Any] | None = None,
                   on_hand_end: Callable[..., Any] | None = None) -> None:
    """Make the hook record class ``cls`` (a ``NamedTuple``) drive the loop with the compiled
    ``on_decision(hooks, seating, table, decision, seat, move) -> move`` and
    ``on_hand_end(hooks, seating, table)``; either may be left out."""
    _HOOKS[cls] = (on_decision or _keep_move, on_hand_end or _nothing_at_hand_end)


register_hooks(NoHooks)


def _hooks_of(hooks: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    named = types.BaseNamedTuple  # type: ignore[attr-defined]  # numba.core.types fills its namespace at import
    if not isinstance(hooks, named) or hooks.instance_class not in _HOOKS:
        raise TypeError(f"{hooks} is not a hook record registered with register_hooks")
    return _HOOKS[hooks.instance_class]


def on_decision(hooks: Any, seating: Seating, table: GameBuffers, decision: int, seat: int,
                move: int) -> int:
    """The move to play at a decision: the hook class's ``on_decision`` (resolved when the
    loop compiles; from Python, looked up here)."""
    return int(_HOOKS[type(hooks)][0](hooks, seating, table, decision, seat, move))


def on_hand_end(hooks: Any, seating: Seating, table: GameBuffers) -> None:
    """What a hook does as a hand ends: the hook class's ``on_hand_end``."""
    _HOOKS[type(hooks)][1](hooks, seating, table)


@overload(on_decision, jit_options={"_nrt": False}, inline="always")
def _on_decision_overload(hooks: Any, seating: Any, table: Any, decision: Any, seat: Any,
                          move: Any) -> Callable[..., int]:
    hook = _hooks_of(hooks)[0]

    def impl(hooks: Any, seating: Any, table: Any, decision: Any, seat: Any,
             move: Any) -> int:
        return hook(hooks, seating, table, decision, seat, move)
    return impl


@overload(on_hand_end, jit_options={"_nrt": False}, inline="always")
def _on_hand_end_overload(hooks: Any, seating: Any, table: Any) -> Callable[..., None]:
    hook = _hooks_of(hooks)[1]

    def impl(hooks: Any, seating: Any, table: Any) -> None:
        hook(hooks, seating, table)
    return impl


@kernel(inline="always")
def begin_hand(rules: np.ndarray, table: GameBuffers, shuffle: bool = True) -> None:
    """Deal the game's next hand and forget the strategies' per-hand memory: how every loop
    starts a hand. ``shuffle``: from the deck stream; else from ``table.deck`` as the caller
    set it (a logged deal replayed)."""
    if shuffle:
        shuffle_deck(table.deck, table.rng[0:1])
    deal(table.hs, table.pile, table.deck, rules)
    fill_game_info(table.gs, rules, table.game_info)
    clear_memory(table.mem)


@kernel(inline="always")  # inlined into the loops: a call a hand with the records flattened
def play_hand(seating: Seating, table: GameBuffers, hooks: Any) -> tuple[int, int, int]:
    """Play the hand on through the seat step (and ``hooks``) up to the next decision that is
    the caller's, in one compiled call: ``(decision, seat, OK)`` with the seat's view filled,
    ``(DEC_OVER, -1, OK)`` when the hand is over, or ``(decision, seat, error)`` when the
    engine refused a move (a built-in's: an engine bug)."""
    hs, pile, deck, after, moves = table.hs, table.pile, table.deck, table.after, table.moves
    strategy_rng = table.rng[1:2]  # once a hand (see seat_move)
    while True:
        decision = advance(hs, pile, deck, after, moves)
        if decision == DEC_OVER:
            return DEC_OVER, -1, OK
        seat, move = seat_move(decision, seating, table, strategy_rng)
        move = on_decision(hooks, seating, table, decision, seat, move)
        if move == CALLER:
            return decision, seat, OK
        err = apply_move(hs, pile, deck, after, moves, move)
        if err != OK:
            return decision, seat, err


@kernel
def play_game(seating: Seating, table: GameBuffers, hooks: Any, streams: Streams, game: int,
              row: np.ndarray) -> bool:
    """Play game number ``game`` of ``streams`` whole, every decision through the seat step
    and ``hooks``, its statistics to ``row`` (``GO_*``, :func:`sim.engine.game.record_game`).
    False, with ``row[GO_ERROR]`` set and the game abandoned, when a move was refused or a
    decision was left to the caller (the batch loop plays built-ins only)."""
    gs = table.gs
    table.rng[0] = stream_seed(streams.deck, game)
    table.rng[1] = stream_seed(streams.strategy, game)
    for j in range(GO_LEN):
        row[j] = 0
    game_init(gs, seating.rules, table.rng[0:1], game if streams.rotate else -1)
    while not gs[GS_OVER]:
        begin_hand(seating.rules, table)
        decision, _, err = play_hand(seating, table, hooks)
        if decision != DEC_OVER or err != OK:
            row[GO_ERROR] = 1
            return False
        on_hand_end(hooks, seating, table)
        record_hand(row, gs, table.hs)
        end_hand(gs, table.hs, seating.rules)
    record_game(row, gs)
    return True
