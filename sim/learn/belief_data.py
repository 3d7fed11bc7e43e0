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
from dataclasses import dataclass

import numpy as np

from sim.engine.game import GS_OVER, GS_ROLE_SEAT, end_hand, game_init, start_hand
from sim.engine.hand import DEC_OVER, HS_HAND, HS_TO_MOVE, OK, advance, apply_move
from sim.engine.jit import allocating
from sim.engine.rng import seed_words, stream_seed
from sim.engine.rules import Rules
from sim.engine.view import V_LEN
from sim.play.step import clear_memory, new_tables, seat_arrays, seat_move
from strategies.registry import resolve

ROWS_PER_GAME = 2000
"""Room for one game's decisions (an eaai game averages about 200); a game that would
overflow its chunk's room is not recorded."""
META = ("game", "hand", "decision", "opponent")
"""A record's ``meta`` row: game and hand numbers, the decision, and the opponent's index in
the table's population."""
M_GAME, M_HAND, M_DECISION, M_OPPONENT = range(len(META))


@allocating
def record_beliefs(rules: np.ndarray, ids: np.ndarray, params: np.ndarray,
                   who: np.ndarray, deck_base: np.uint64, strategy_base: np.uint64,
                   first_game: int, games: int, every: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Play games ``first_game ..`` (``games`` of them) with the built-ins ``ids`` /
    ``params`` in the seats; keep every ``every``-th decision: the mover's view, the
    opponent's true hand (a mask) and the meta row (``who[seat]``: the seat's population
    index). Return the views, hands, meta and the games kept."""
    gs, hs, pile, deck, after, moves, view, game_info, mem, scratch, rng = new_tables(1, 0)
    gs, hs, pile, deck, after = gs[0], hs[0], pile[0], deck[0], after[0]
    moves, view, game_info, mem, rng = moves[0], view[0], game_info[0], mem[0], rng[0]
    rows = games * ROWS_PER_GAME
    views = np.zeros((rows, V_LEN), np.int64)
    hands = np.zeros(rows, np.int64)
    meta = np.zeros((rows, len(META)), np.int64)
    n = 0
    kept = 0
    for i in range(games):
        g = first_game + i
        rng[0] = stream_seed(deck_base, g)
        rng[1] = stream_seed(strategy_base, g)
        game_init(gs, rules, rng[0:1], g)
        game_start = n
        hand = 0
        count = g  # the first decision kept differs between games
        overflow = False
        while not gs[GS_OVER]:
            start_hand(gs, hs, pile, deck, rules, rng[0:1], game_info)
            clear_memory(mem)
            while True:
                decision = advance(hs, pile, deck, after, moves)
                if decision == DEC_OVER:
                    break
                p = hs[HS_TO_MOVE]
                _, move = seat_move(decision, rules, ids, params, 0, gs, hs, pile, game_info,
                                    view, after, mem, rng[1:2], scratch)
                count += 1
                if count % every == 0:
                    if n < rows:
                        views[n] = view
                        hands[n] = hs[HS_HAND + 1 - p]
                        m = meta[n]
                        m[M_GAME], m[M_HAND], m[M_DECISION] = g, hand, decision
                        m[M_OPPONENT] = who[gs[GS_ROLE_SEAT + 1 - p]]
                        n += 1
                    else:
                        overflow = True
                if apply_move(hs, pile, deck, after, moves, move) != OK:
                    raise RuntimeError("a built-in played an illegal move")
            end_hand(gs, hs, rules)
            hand += 1
        if overflow:
            n = game_start
            continue
        kept += 1
    return views[:n], hands[:n], meta[:n], kept


def chunk_lineup(seed: int, table_index: int, chunk: int, population: tuple[str, ...],
                 players: int) -> list[int]:
    """The population indices seated in a chunk: each seat an independent draw, from the
    seed, the table and the chunk alone."""
    draw = np.random.default_rng(int(seed_words(seed, table_index, chunk, 7)))
    return [int(i) for i in draw.integers(0, len(population), players)]


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
        buffer = io.BytesIO()
        np.savez_compressed(buffer, table=np.array(self.table), lineup=np.array(self.lineup),
                            views=self.views, hands=self.hands, meta=self.meta,
                            games=np.array(self.games))
        return buffer.getvalue()

    @classmethod
    def read(cls, path: str) -> BeliefShard:
        """A shard written by :meth:`to_bytes`."""
        with np.load(path, allow_pickle=False) as f:
            return cls(str(f["table"]), tuple(int(i) for i in f["lineup"]), f["views"],
                       f["hands"], f["meta"], int(f["games"]))


def play_chunk(seed: int, table: str, table_index: int, chunk: int, chunk_size: int,
               population: tuple[str, ...], every: int) -> BeliefShard:
    """Chunk ``chunk`` of a table: its lineup drawn, its games played and recorded."""
    rules = Rules.preset(table)
    lineup = chunk_lineup(seed, table_index, chunk, population, rules.players)
    specs = resolve([population[i] for i in lineup], rules)
    ids, params = seat_arrays(specs)
    who = np.array(lineup + [-1] * (3 - len(lineup)), np.int64)
    views, hands, meta, kept = record_beliefs(
        rules.to_array(), ids, params, who, np.uint64(seed_words(seed, table_index, 0)),
        np.uint64(seed_words(seed, table_index, 1)), chunk * chunk_size, chunk_size, every)
    return BeliefShard(table, tuple(lineup), views, hands, meta, kept)
