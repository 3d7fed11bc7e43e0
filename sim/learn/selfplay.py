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
from typing import NamedTuple

import numpy as np

from sim.engine.game import GO_LEN, GS_ROLE_SEAT, GS_WINNER
from sim.engine.hand import END_DRAW, END_TURN_LIMIT, HS_END, HS_POINTS, HS_TO_MOVE, HS_WINNER
from sim.engine.jit import allocating, kernel
from sim.engine.view import V_LEN, legal_moves
from sim.play.loop import play_game, register_hooks
from sim.play.step import GameBuffers, Seating, Streams, new_tables, table_row
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


class ExpertRecorder(NamedTuple):
    """The recorder's hooks into the one game loop (:mod:`sim.play.loop`): the expert's
    parameters and network, the record arrays, a workspace for the legal moves and the
    counters (``R_*``)."""

    params: np.ndarray
    net: np.ndarray
    views: np.ndarray
    meta: np.ndarray
    cands: np.ndarray
    values: np.ndarray
    legal: np.ndarray
    counters: np.ndarray


R_ROWS, R_HAND_START, R_GAME, R_HAND, R_OVERFLOW = range(5)
"""The recorder's counters: rows written, the first row of the hand being played, the game
and hand numbers, and whether the game overflowed the room for rows."""


@kernel
def _expert_decides(rec: ExpertRecorder, seating: Seating, table: GameBuffers, decision: int,
                    seat: int, move: int) -> int:
    """The expert's move (every seat is the caller's: the step filled the view), and the
    decision recorded when it had more than one legal move."""
    hs, view, after, scratch = table.hs, table.player_view, table.after, table.scratch
    p = hs[HS_TO_MOVE]
    best = search_with(rec.net, decision, rec.params, view, after, table.mem[p],
                       table.rng[1:2], scratch)
    move = scratch[S_CAND + best]
    if legal_moves(view, after, rec.legal) > 1:
        c = rec.counters
        n = c[R_ROWS]
        if n < rec.views.shape[0]:
            _record(rec, n, view, scratch, seat, table.gs[GS_ROLE_SEAT + p], decision, move)
            c[R_ROWS] = n + 1
        else:
            c[R_OVERFLOW] = 1
    return move


@kernel
def _record(rec: ExpertRecorder, n: int, view: np.ndarray, scratch: np.ndarray, seat: int,
            owner: int, decision: int, move: int) -> None:
    """Row ``n``: the view, who decided and played what, and the search's candidates."""
    for j in range(view.shape[0]):
        rec.views[n, j] = view[j]
    count = scratch[S_COUNT]
    worlds = scratch[S_COUNT + 1]
    m = rec.meta[n]
    m[M_GAME], m[M_HAND] = rec.counters[R_GAME], rec.counters[R_HAND]
    m[M_SEAT], m[M_OWNER] = seat, owner
    m[M_DECISION], m[M_MOVE], m[M_CANDIDATES], m[M_WORLDS] = decision, move, count, worlds
    for i in range(count):
        rec.cands[n, i] = scratch[S_CAND + i]
        if worlds > 0:
            rec.values[n, i] = scratch[S_SUM + i] / VALUE_ONE / worlds


@kernel
def _hand_outcomes(rec: ExpertRecorder, seating: Seating, table: GameBuffers) -> None:
    """The ended hand's result and points for the owner of each of its rows (before
    ``end_hand`` moves the roles)."""
    gs, hs, meta, c = table.gs, table.hs, rec.meta, rec.counters
    end = hs[HS_END]
    winner = -1 if end == END_DRAW or end == END_TURN_LIMIT else gs[GS_ROLE_SEAT + hs[HS_WINNER]]
    for r in range(c[R_HAND_START], c[R_ROWS]):
        if winner < 0:
            meta[r, M_HAND_RESULT] = -1
        elif winner == meta[r, M_OWNER]:
            meta[r, M_HAND_RESULT] = 1
            meta[r, M_POINTS] = hs[HS_POINTS]
        else:
            meta[r, M_HAND_RESULT] = 0
            meta[r, M_POINTS] = -hs[HS_POINTS]
    c[R_HAND] += 1
    c[R_HAND_START] = c[R_ROWS]


register_hooks(ExpertRecorder, on_decision=_expert_decides, on_hand_end=_hand_outcomes)


@allocating
def record_games(rules: np.ndarray, params: np.ndarray, net: np.ndarray, deck_base: np.uint64,
                 strategy_base: np.uint64, first_game: int, games: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Play games ``first_game ..`` (``games`` of them) with the expert (``mc`` with
    ``params``, searching with ``net``) in every seat; return the records (views, meta,
    candidate moves, candidate values) and how many games were kept.

    The games are the one game loop's (:func:`sim.play.loop.play_game`), every seat the
    caller's, with the recorder's hooks choosing and recording the expert's moves."""
    table = table_row(new_tables(1, 0), 0)
    rows = games * ROWS_PER_GAME
    rec = ExpertRecorder(params, net, np.zeros((rows, V_LEN), np.int64),
                         np.zeros((rows, len(META)), np.int64),
                         np.full((rows, MAX_CANDIDATES), -1, np.int64),
                         np.zeros((rows, MAX_CANDIDATES), np.float32), np.zeros(16, np.int64),
                         np.zeros(5, np.int64))
    seating = Seating(rules, np.full(3, -1, np.int64), np.zeros((3, params.shape[0]), np.int64),
                      ALL_SEATS)
    streams = Streams(deck_base, strategy_base, True)
    row = np.zeros(GO_LEN, np.int64)
    c = rec.counters
    kept = 0
    for i in range(games):
        g = first_game + i
        game_start = c[R_ROWS]
        c[R_GAME], c[R_HAND], c[R_HAND_START], c[R_OVERFLOW] = g, 0, game_start, 0
        if not play_game(seating, table, rec, streams, g, row):
            raise RuntimeError("the expert played an illegal move")
        if c[R_OVERFLOW]:
            c[R_ROWS] = game_start  # a game cut short would teach wrong outcomes: drop it whole
            continue
        for r in range(game_start, c[R_ROWS]):
            rec.meta[r, M_GAME_WON] = 1 if table.gs[GS_WINNER] == rec.meta[r, M_OWNER] else 0
        kept += 1
    n = c[R_ROWS]
    return rec.views[:n], rec.meta[:n], rec.cands[:n], rec.values[:n], kept


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
