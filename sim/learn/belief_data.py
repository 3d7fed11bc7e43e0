"""The belief's training data: games among a population, recorded from the mover's view.

Why a population: a belief learned from one opponent learns his habits (when he knocks, what
he keeps). Each chunk of games seats players drawn from the table's ``population`` (every
seat its own draw, so a player meets others and himself), and every ``every``-th decision
of a game is kept: the view the mover saw (nothing else of the deal) and, as the label, the
opponent's true hand. Who the opponent was is kept too (an index into the population), so a
study can score the belief per opponent.

Games are numbered as everywhere in ginbox: game ``g`` deals from stream ``g`` of the deck
seed and its strategies draw from stream ``g`` of the strategy seed; chunk ``k`` of table
``t`` seats the players :func:`chunk_lineup` draws from ``(seed, t, k)``. So the records are
the same whichever worker plays a chunk, and a rerun writes the same files.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from sim.engine.game import GO_LEN, GS_ROLE_SEAT
from sim.engine.hand import HS_HAND, HS_TO_MOVE
from sim.engine.jit import allocating, kernel
from sim.engine.rng import seed_words
from sim.engine.rules import Rules
from sim.engine.view import V_LEN
from sim.play.loop import play_game, register_hooks
from sim.play.step import GameBuffers, Seating, Streams, new_tables, seat_arrays, table_row
from strategies.registry import resolve

ROWS_PER_GAME = 2000
"""Room for one game's decisions (an eaai game averages about 200); a game that would
overflow its chunk's room is not recorded."""
META = ("game", "hand", "decision", "opponent")
"""A record's ``meta`` row: game and hand numbers, the decision, and the opponent's index in
the table's population."""
M_GAME, M_HAND, M_DECISION, M_OPPONENT = range(len(META))


class BeliefRecorder(NamedTuple):
    """The recorder's hooks into the one game loop (:mod:`sim.play.loop`): which decisions to
    keep, the seats' population indices, the record arrays and the counters (``B_*``)."""

    every: int
    who: np.ndarray
    views: np.ndarray
    hands: np.ndarray
    meta: np.ndarray
    counters: np.ndarray


B_ROWS, B_COUNT, B_GAME, B_HAND, B_OVERFLOW = range(5)
"""The recorder's counters: rows written, decisions seen (from the game number, so the first
decision kept differs between games), the game and hand numbers, and whether the game
overflowed the room for rows."""


@kernel
def _keep_every(rec: BeliefRecorder, seating: Seating, table: GameBuffers, decision: int,
                seat: int, move: int) -> int:
    """Keep every ``every``-th decision: the mover's view (the step filled it), the
    opponent's true hand and who he is; the built-in's move is played as chosen."""
    c = rec.counters
    c[B_COUNT] += 1
    if c[B_COUNT] % rec.every == 0:
        n = c[B_ROWS]
        if n < rec.views.shape[0]:
            view = table.player_view
            for j in range(view.shape[0]):
                rec.views[n, j] = view[j]
            p = table.hs[HS_TO_MOVE]
            rec.hands[n] = table.hs[HS_HAND + 1 - p]
            m = rec.meta[n]
            m[M_GAME], m[M_HAND], m[M_DECISION] = c[B_GAME], c[B_HAND], decision
            m[M_OPPONENT] = rec.who[table.gs[GS_ROLE_SEAT + 1 - p]]
            c[B_ROWS] = n + 1
        else:
            c[B_OVERFLOW] = 1
    return move


@kernel
def _next_hand_number(rec: BeliefRecorder, seating: Seating, table: GameBuffers) -> None:
    rec.counters[B_HAND] += 1


register_hooks(BeliefRecorder, on_decision=_keep_every, on_hand_end=_next_hand_number)


@allocating
def record_beliefs(seating: Seating, who: np.ndarray, streams: Streams, first_game: int,
                   games: int, every: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Play games ``first_game ..`` (``games`` of them) with the built-ins of ``seating``;
    keep every ``every``-th decision: the mover's view, the opponent's true hand (a mask) and
    the meta row (``who[seat]``: the seat's population index). Return the views, hands, meta
    and the games kept. The games are the one game loop's
    (:func:`sim.play.loop.play_game`), the recorder a hook of it."""
    table = table_row(new_tables(1, 0), 0)
    rows = games * ROWS_PER_GAME
    rec = BeliefRecorder(every, who, np.zeros((rows, V_LEN), np.int64),
                         np.zeros(rows, np.int64), np.zeros((rows, len(META)), np.int64),
                         np.zeros(5, np.int64))
    row = np.zeros(GO_LEN, np.int64)
    c = rec.counters
    kept = 0
    for i in range(games):
        g = first_game + i
        game_start = c[B_ROWS]
        c[B_COUNT], c[B_GAME], c[B_HAND], c[B_OVERFLOW] = g, g, 0, 0
        if not play_game(seating, table, rec, streams, g, row):
            raise RuntimeError("a built-in played an illegal move")
        if c[B_OVERFLOW]:
            c[B_ROWS] = game_start
            continue
        kept += 1
    n = c[B_ROWS]
    return rec.views[:n], rec.hands[:n], rec.meta[:n], kept


def chunk_lineup(seed: int, table_index: int, chunk: int, population: tuple[str, ...],
                 players: int) -> list[int]:
    """The population indices seated in a chunk: each seat an independent draw, from the
    seed, the table and the chunk alone."""
    draw = np.random.default_rng(int(seed_words(seed, table_index, chunk, 7)))
    return [int(i) for i in draw.integers(0, len(population), players)]


class ChunkTable(NamedTuple):
    """How a chunk is played: its lineup (population indices), the seating, each seat's
    population index (-1 past the players) and the game streams."""

    lineup: list[int]
    seating: Seating
    who: np.ndarray
    streams: Streams


def chunk_table(seed: int, table: str, table_index: int, chunk: int,
                population: tuple[str, ...]) -> ChunkTable:
    """Chunk ``chunk`` of a table seated: its lineup drawn (:func:`chunk_lineup`), the
    players resolved, the table's streams; what every recorder of ``ginbox train`` plays."""
    rules = Rules.preset(table)
    lineup = chunk_lineup(seed, table_index, chunk, population, rules.players)
    ids, params = seat_arrays(resolve([population[i] for i in lineup], rules))
    who = np.array(lineup + [-1] * (3 - len(lineup)), np.int64)
    streams = Streams(np.uint64(seed_words(seed, table_index, 0)),
                      np.uint64(seed_words(seed, table_index, 1)), True)
    return ChunkTable(lineup, Seating(rules.to_array(), ids, params, 0), who, streams)


def shard_bytes(fields: dict[str, Any]) -> bytes:
    """A chunk's records (its ``table``, ``lineup``, ``games`` and arrays) as a compressed
    ``.npz`` (written atomically by the caller)."""
    buffer = io.BytesIO()
    arrays = {k: np.asarray(v) for k, v in fields.items()}
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]  # numpy types **kwds as allow_pickle
    return buffer.getvalue()


def shard_fields(path: str | Path) -> dict[str, Any]:
    """The fields :func:`shard_bytes` wrote: the table a string, the lineup a tuple, the games
    a number, the rest arrays."""
    with np.load(path, allow_pickle=False) as f:
        out: dict[str, Any] = {k: f[k] for k in f.files}
    out["table"], out["games"] = str(out["table"]), int(out["games"])
    out["lineup"] = tuple(int(i) for i in out["lineup"])
    return out


@dataclass(frozen=True)
class BeliefShard:
    """One chunk's records (:func:`record_beliefs`), with its table and lineup."""

    table: str
    lineup: tuple[int, ...]
    views: np.ndarray
    hands: np.ndarray
    meta: np.ndarray
    games: int

    def to_bytes(self) -> bytes:
        """The shard as a compressed ``.npz`` (written atomically by the caller)."""
        return shard_bytes({f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def read(cls, path: str | Path) -> BeliefShard:
        """A shard written by :meth:`to_bytes`."""
        return cls(**shard_fields(path))


def play_chunk(seed: int, table: str, table_index: int, chunk: int, chunk_size: int,
               population: tuple[str, ...], every: int) -> BeliefShard:
    """Chunk ``chunk`` of a table: its lineup drawn, its games played and recorded."""
    c = chunk_table(seed, table, table_index, chunk, population)
    views, hands, meta, kept = record_beliefs(c.seating, c.who, c.streams, chunk * chunk_size,
                                              chunk_size, every)
    return BeliefShard(table, tuple(c.lineup), views, hands, meta, kept)
