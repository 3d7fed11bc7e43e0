"""Game states driven hand by hand: a game with fixed roles, and hands ended with a given result.

The scoring and rotation tests (tests/test_game.py, tests/test_hollywood.py) call the engine's
``end_hand`` on a hand state holding only a result, so the scores they expect can be worked out
by hand, hand after hand.
"""

from __future__ import annotations

import numpy as np

from sim.engine.game import GS_LEN, GS_ROLE_SEAT, end_hand, game_init
from sim.engine.hand import (
    END_KNOCK,
    END_UNDERCUT,
    HS_END,
    HS_KNOCKER,
    HS_LEN,
    HS_POINTS,
    HS_WINNER,
)
from sim.engine.rules import Rules


def new_game(rules: Rules, roles: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """A game state with fixed initial roles, and the rules array."""
    arr = rules.replace(initial_roles=roles).to_array()
    gs = np.zeros(GS_LEN, np.int64)
    game_init(gs, arr, np.array([123], np.uint64), -1)
    return gs, arr


def finish(gs: np.ndarray, rules: np.ndarray, end: int, winner: int = -1,
           points: int = 0) -> int:
    """Run end_hand on a finished hand state with the given result."""
    hs = np.zeros(HS_LEN, np.int64)
    hs[HS_END] = end
    hs[HS_WINNER] = winner
    hs[HS_POINTS] = points
    hs[HS_KNOCKER] = -1 if winner < 0 else (winner if end != END_UNDERCUT else 1 - winner)
    return int(end_hand(gs, hs, rules))


def seat_wins(gs: np.ndarray, rules: np.ndarray, seat: int, points: int) -> None:
    """``seat`` (the dealer or the non-dealer now) wins a hand by a knock for ``points``."""
    players = [int(gs[GS_ROLE_SEAT + r]) for r in range(2)]
    assert seat in players, f"seat {seat} does not play this hand (roles {players})"
    assert finish(gs, rules, END_KNOCK, players.index(seat), points) == seat
