"""The expert's self-play, recorded decision by decision from the mover's view.

Every seat plays the expert (``mc``, searching with the round's network when it has one). At
each decision with more than one legal move the recorder keeps what the mover saw (the view
array: nothing else of the deal), the expert's candidates with their mean game values (the
values ``ginbox review`` and :func:`strategies.mc_options.option_values` read from the same
search), the move played, and, once the hand and the game end, their outcomes for the seat
whose hand it is: the hand won, lost or drawn, its points (signed), the game won.

Games are numbered as everywhere in ginbox: game ``g`` deals from stream ``g`` of the deck
seed and draws the search's worlds from stream ``g`` of the strategy seed, so a chunk's
records are the same whichever worker plays it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from sim.engine.game import GS_OVER, GS_ROLE_SEAT, GS_WINNER, end_hand, game_init, start_hand
from sim.engine.hand import (
    DEC_OVER,
    END_DRAW,
    END_TURN_LIMIT,
    HS_END,
    HS_POINTS,
    HS_TO_MOVE,
    HS_WINNER,
    OK,
    advance,
    apply_move,
)
from sim.engine.jit import allocating
from sim.engine.rng import stream_seed
from sim.engine.view import V_LEN, legal_moves
from sim.play.step import clear_memory, new_tables, seat_move
from strategies.mc import search_with
from strategies.mc_worlds import MAX_CANDIDATES, S_CAND, S_COUNT, S_SUM, VALUE_ONE

ALL_SEATS = 7
"""The step's ``controlled`` bits for every seat: the recorder asks the expert itself."""
ROWS_PER_GAME = 2000
"""Room for one game's decisions (an eaai game averages about 200, a long three-handed one
rarely passes 1,000); a game that would overflow its chunk's room is not recorded."""

META = ("game", "hand", "seat", "owner", "decision", "move", "candidates", "worlds",
        "hand_result", "points", "game_won")
"""The columns of a record's ``meta`` row: the game and hand numbers, the seat that decided
and the seat whose hand it is (they differ when the advisor decides for the captain), the
decision, the move played, how many candidates the expert searched and on how many worlds,
then the outcomes for the owner: the hand (1 won, 0 lost, -1 drawn or cut off), its points
(positive won, negative lost) and the game (1 won)."""
(M_GAME, M_HAND, M_SEAT, M_OWNER, M_DECISION, M_MOVE, M_CANDIDATES, M_WORLDS, M_HAND_RESULT,
 M_POINTS, M_GAME_WON) = range(len(META))


@allocating
def record_games(rules: np.ndarray, params: np.ndarray, net: np.ndarray, deck_base: np.uint64,
                 strategy_base: np.uint64, first_game: int, games: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Play games ``first_game ..`` (``games`` of them) with the expert (``mc`` with
    ``params``, searching with ``net``) in every seat; return the records (views, meta,
    candidate moves, candidate values) and how many games were kept."""
    gs, hs, pile, deck, after, moves, view, game_info, mem, scratch, rng = new_tables(1, 0)
    gs, hs, pile, deck, after = gs[0], hs[0], pile[0], deck[0], after[0]
    moves, view, game_info, mem, rng = moves[0], view[0], game_info[0], mem[0], rng[0]
    rows = games * ROWS_PER_GAME
    views = np.zeros((rows, V_LEN), np.int64)
    meta = np.zeros((rows, len(META)), np.int64)
    cands = np.full((rows, MAX_CANDIDATES), -1, np.int64)
    values = np.zeros((rows, MAX_CANDIDATES), np.float32)
    ids = np.full(3, -1, np.int64)
    seat_params = np.zeros((3, params.shape[0]), np.int64)
    legal = np.zeros(16, np.int64)
    n = 0
    kept = 0
    for i in range(games):
        g = first_game + i
        rng[0] = stream_seed(deck_base, g)
        rng[1] = stream_seed(strategy_base, g)
        game_init(gs, rules, rng[0:1], g)
        game_start = n
        hand = 0
        overflow = False
        while not gs[GS_OVER]:
            start_hand(gs, hs, pile, deck, rules, rng[0:1], game_info)
            clear_memory(mem)
            hand_start = n
            while True:
                decision = advance(hs, pile, deck, after, moves)
                if decision == DEC_OVER:
                    break
                p = hs[HS_TO_MOVE]
                owner = gs[GS_ROLE_SEAT + p]
                seat, _ = seat_move(decision, rules, ids, seat_params, ALL_SEATS, gs, hs, pile,
                                    game_info, view, after, mem, rng[1:2], scratch)
                best = search_with(net, decision, params, view, after, mem[p], rng[1:2],
                                   scratch)
                move = scratch[S_CAND + best]
                if legal_moves(view, after, legal) > 1:
                    if n < rows:
                        _record(views, meta, cands, values, n, view, scratch, g, hand, seat,
                                owner, decision, move)
                        n += 1
                    else:
                        overflow = True
                if apply_move(hs, pile, deck, after, moves, move) != OK:
                    raise RuntimeError("the expert played an illegal move")
            _hand_outcomes(meta, hand_start, n, gs, hs)
            end_hand(gs, hs, rules)
            hand += 1
        if overflow:
            n = game_start  # a game cut short would teach wrong outcomes: drop it whole
            continue
        for r in range(game_start, n):
            meta[r, M_GAME_WON] = 1 if gs[GS_WINNER] == meta[r, M_OWNER] else 0
        kept += 1
    return views[:n], meta[:n], cands[:n], values[:n], kept


@allocating
def _record(views: np.ndarray, meta: np.ndarray, cands: np.ndarray, values: np.ndarray,
            n: int, view: np.ndarray, scratch: np.ndarray, game: int, hand: int, seat: int,
            owner: int, decision: int, move: int) -> None:
    """Row ``n``: the view, who decided and played what, and the search's candidates."""
    views[n] = view
    count = scratch[S_COUNT]
    worlds = scratch[S_COUNT + 1]
    m = meta[n]
    m[M_GAME], m[M_HAND], m[M_SEAT], m[M_OWNER] = game, hand, seat, owner
    m[M_DECISION], m[M_MOVE], m[M_CANDIDATES], m[M_WORLDS] = decision, move, count, worlds
    for i in range(count):
        cands[n, i] = scratch[S_CAND + i]
        if worlds > 0:
            values[n, i] = scratch[S_SUM + i] / VALUE_ONE / worlds


@allocating
def _hand_outcomes(meta: np.ndarray, start: int, stop: int, gs: np.ndarray,
                   hs: np.ndarray) -> None:
    """The ended hand's result and points for the owner of each of its rows (before
    ``end_hand`` moves the roles)."""
    end = hs[HS_END]
    winner = -1 if end == END_DRAW or end == END_TURN_LIMIT else gs[GS_ROLE_SEAT + hs[HS_WINNER]]
    for r in range(start, stop):
        if winner < 0:
            meta[r, M_HAND_RESULT] = -1
        elif winner == meta[r, M_OWNER]:
            meta[r, M_HAND_RESULT] = 1
            meta[r, M_POINTS] = hs[HS_POINTS]
        else:
            meta[r, M_HAND_RESULT] = 0
            meta[r, M_POINTS] = -hs[HS_POINTS]


@dataclass(frozen=True)
class Shard:
    """One chunk's records: the arrays :func:`record_games` returns, with the table they were
    played under and how many games were kept."""

    table: str
    views: np.ndarray
    meta: np.ndarray
    candidates: np.ndarray
    values: np.ndarray
    games: int

    def to_bytes(self) -> bytes:
        """The shard as a compressed ``.npz`` (written atomically by the caller)."""
        buffer = io.BytesIO()
        np.savez_compressed(buffer, table=np.array(self.table), views=self.views,
                            meta=self.meta, candidates=self.candidates, values=self.values,
                            games=np.array(self.games))
        return buffer.getvalue()

    @classmethod
    def read(cls, path: str) -> Shard:
        """A shard written by :meth:`to_bytes`."""
        with np.load(path, allow_pickle=False) as f:
            return cls(str(f["table"]), f["views"], f["meta"], f["candidates"], f["values"],
                       int(f["games"]))
