"""Game value: the chance of winning the game from the scores (and roles) after a hand.

Why: a search bot that maximises points per hand plays the end of a game badly (a 10-point
knock that wins the game beats a gin that does not). ``mc`` scores every rolled-out hand by
the chance of winning the game from where that hand leaves the scores.

How the tables are built, once per player count:

1. **Per-hand outcome distribution, by self-play.** :func:`hand_outcomes` deals
   ``OUTCOME_HANDS`` hands (fixed seed) under the reference rules of that player count
   (``eaai`` two-player, ``three-handed`` three-handed) and plays them with
   ``discard-tracking`` in both seats through the engine's own hand kernels. It counts, per
   hand, who won (the dealer / box or the non-dealer / captain) and how many points, or a draw.
   Hands are treated as independent of the scores (the strategy does not look at them).
2. **Dynamic programming over the points each player still needs** (``to-go``, 1 to
   ``SCALE``). Two-player: after a scored hand the deal passes, after a draw it stays.
   Three-handed: the winner of a hand takes (or keeps) the box, the sitter becomes captain and
   the loser sits out (so a winning box stays and a losing box sits out). A draw replays the
   same roles, so each state's value is its scored outcomes' average divided by the chance
   that the hand is not a draw. States are visited in increasing total to-go: every scored
   hand lowers the winner's to-go by at least one point (a 0-point win, possible only with a
   0 undercut bonus, is counted as 1 point).
3. Rules with another target read the table at ``to-go * SCALE / target`` (the points scale
   too): exact for the presets, an approximation for custom targets and bonuses.

The tables are cached on disk (``$GINBOX_CACHE_DIR``, default ``ginbox`` in the user's cache
directory), written atomically; a missing or unreadable cache is rebuilt (about a second).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from sim.engine.game import shuffle_deck
from sim.engine.hand import (
    AFTER_LEN,
    DEC_OVER,
    END_DRAW,
    END_TURN_LIMIT,
    HS_END,
    HS_LEN,
    HS_POINTS,
    HS_TO_MOVE,
    HS_WINNER,
    OK,
    advance,
    apply_move,
    deal,
    forget_after,
)
from sim.engine.jit import allocating, kernel
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import (
    GI_LEN,
    V_LEN,
    V_PLAYERS,
    V_ROLE,
    V_SCORE_OPP,
    V_SCORE_OTHER,
    V_SCORE_SELF,
    V_TARGET,
    fill_view,
)
from sim.io.files import atomic_write
from strategies.builtin import MEM_LEN, N_PARAMS, discard_tracking_decide

SCALE = 100
"""Points to go are measured on a target of this many points."""
STEP3 = 4
"""The three-handed table keeps every ``STEP3``-th to-go (the DP runs at every point)."""
OUTCOME_HANDS = 200_000
"""Hands of self-play per outcome distribution."""
OUTCOME_SEED = 20_261_201
VERSION = 1  # bump when the construction changes, so old disk caches are not read
REFERENCE_RULES = {2: "eaai", 3: "three-handed"}


@allocating
def _play_hands(rules: np.ndarray, n: int, seed: np.uint64) -> np.ndarray:
    """Self-play ``n`` hands with discard-tracking in both seats: rows (winner, points),
    winner -1 for a drawn hand."""
    hs, pile, moves = np.zeros(HS_LEN, np.int64), np.zeros(52, np.int64), np.zeros((0, 2), np.int64)
    after = np.zeros(AFTER_LEN, np.int64)
    forget_after(after)
    out = np.zeros((n, 2), np.int64)
    deck = np.zeros(52, np.int64)
    view = np.zeros(V_LEN, np.int64)
    game_info = np.zeros(GI_LEN, np.int64)
    params = np.full(N_PARAMS, -1, np.int64)
    params[1] = 1
    params[2] = 1
    mem = np.zeros((2, MEM_LEN), np.int64)
    scratch = np.zeros(256, np.int64)
    deck_rng = np.zeros(1, np.uint64)
    strategy_rng = np.zeros(1, np.uint64)
    for g in range(n):
        deck_rng[0] = stream_seed(seed, 2 * g)
        strategy_rng[0] = stream_seed(seed, 2 * g + 1)
        shuffle_deck(deck, deck_rng)
        deal(hs, pile, deck, rules)
        mem[:] = 0
        while True:
            decision = advance(hs, pile, deck, after, moves)
            if decision == DEC_OVER:
                break
            p = hs[HS_TO_MOVE]
            fill_view(view, hs, pile, game_info, decision)
            move = discard_tracking_decide(decision, params, view, after, mem[p],
                                           strategy_rng, scratch)
            if apply_move(hs, pile, deck, after, moves, move) != OK:
                raise RuntimeError("illegal move in the outcome self-play")
        end = hs[HS_END]
        out[g, 0] = -1 if end == END_DRAW or end == END_TURN_LIMIT else hs[HS_WINNER]
        out[g, 1] = hs[HS_POINTS]
    return out


def hand_outcomes(players: int, hands: int = OUTCOME_HANDS) -> np.ndarray:
    """Per-hand outcome distribution of the reference rules of ``players``: row 0 the dealer
    (box) winning ``k`` points (scaled to a target of ``SCALE``, column ``k``, capped at
    ``SCALE``), row 1 the non-dealer (captain); column 0 of row 0 holds the chance of a draw."""
    rules = Rules.preset(REFERENCE_RULES[players])
    rows = _play_hands(rules.to_array(), hands, np.uint64(OUTCOME_SEED + players))
    dist = np.zeros((2, SCALE + 1))
    scale = SCALE / rules.target
    for winner, points in rows:
        if winner < 0:
            dist[0, 0] += 1
        else:
            dist[winner, min(SCALE, max(1, round(points * scale)))] += 1
    return dist / hands


@allocating
def two_player_table(dist: np.ndarray) -> np.ndarray:
    """``W[x_dealer, x_nondealer, i]``: the chance that the dealer (i = 0) or the non-dealer
    (i = 1) wins the game when they need ``x_dealer`` and ``x_nondealer`` more points."""
    n = SCALE + 1
    w = np.zeros((n, n, 2))
    scored = 1.0 - dist[0, 0]
    for total in range(2, 2 * SCALE + 1):
        for xd in range(max(1, total - SCALE), min(SCALE, total - 1) + 1):
            xn = total - xd
            vd = 0.0
            vn = 0.0
            for k in range(1, n):
                pd = dist[0, k]  # the dealer wins k: the deal passes to the non-dealer
                if pd > 0:
                    if k >= xd:
                        vd += pd
                    else:
                        vd += pd * w[xn, xd - k, 1]
                        vn += pd * w[xn, xd - k, 0]
                pn = dist[1, k]  # the non-dealer wins k and deals next
                if pn > 0:
                    if k >= xn:
                        vn += pn
                    else:
                        vd += pn * w[xn - k, xd, 1]
                        vn += pn * w[xn - k, xd, 0]
            w[xd, xn, 0] = vd / scored
            w[xd, xn, 1] = vn / scored
    return w


@allocating
def three_player_table(dist: np.ndarray) -> np.ndarray:
    """``W[x_box, x_captain, x_sitter, i]``: the chance that the box (i = 0), the captain
    (1) or the sitter (2) wins the game. The winner of a hand becomes (or stays) the box, the
    sitter becomes captain, the loser sits out."""
    n = SCALE + 1
    w = np.zeros((n, n, n, 3))
    scored = 1.0 - dist[0, 0]
    for total in range(3, 3 * SCALE + 1):
        for xb in range(1, n):
            for xc in range(1, n):
                xs = total - xb - xc
                if xs < 1 or xs > SCALE:
                    continue
                vb = 0.0
                vc = 0.0
                vs = 0.0
                for k in range(1, n):
                    pb = dist[0, k]
                    if pb > 0:
                        if k >= xb:
                            vb += pb
                        else:  # box stays (x_b - k), sitter -> captain, captain sits out
                            vb += pb * w[xb - k, xs, xc, 0]
                            vs += pb * w[xb - k, xs, xc, 1]
                            vc += pb * w[xb - k, xs, xc, 2]
                    pc = dist[1, k]
                    if pc > 0:
                        if k >= xc:
                            vc += pc
                        else:  # captain takes the box, sitter -> captain, box sits out
                            vc += pc * w[xc - k, xs, xb, 0]
                            vs += pc * w[xc - k, xs, xb, 1]
                            vb += pc * w[xc - k, xs, xb, 2]
                w[xb, xc, xs, 0] = vb / scored
                w[xb, xc, xs, 1] = vc / scored
                w[xb, xc, xs, 2] = vs / scored
    return w


def cache_dir() -> Path:
    """Where the tables are cached: ``$GINBOX_CACHE_DIR``, else ``ginbox`` in
    ``$XDG_CACHE_HOME`` or ``~/.cache`` (beside the compile cache)."""
    if os.environ.get("GINBOX_CACHE_DIR"):
        return Path(os.environ["GINBOX_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ginbox"


def _write_npz(tmp: Path, arrays: dict[str, np.ndarray]) -> None:
    """The tables as an ``.npz`` at ``tmp`` (through a file object: given a name not ending
    in ``.npz``, numpy would add the suffix and write elsewhere)."""
    with tmp.open("wb") as f:
        np.savez(f, **arrays)  # type: ignore[arg-type]  # numpy types **kwds as allow_pickle


def build_tables() -> dict[str, np.ndarray]:
    """Both tables from fresh self-play (float32, the three-handed one thinned by STEP3)."""
    d2 = hand_outcomes(2)
    d3 = hand_outcomes(3)
    w3 = three_player_table(d3)[::STEP3, ::STEP3, ::STEP3]
    return {"dist2": d2, "dist3": d3, "w2": two_player_table(d2).astype(np.float32),
            "w3": np.ascontiguousarray(w3, dtype=np.float32)}


def load_tables() -> dict[str, np.ndarray]:
    """The cached tables, built and cached if missing, unreadable or of another version."""
    path = cache_dir() / f"game_value_v{VERSION}_{OUTCOME_HANDS}.npz"
    try:
        with np.load(path) as f:
            tables = {k: f[k] for k in ("dist2", "dist3", "w2", "w3")}
        if tables["w2"].shape == (SCALE + 1, SCALE + 1, 2):
            return tables
    except (OSError, KeyError, ValueError):
        pass
    tables = build_tables()
    try:
        atomic_write(path, lambda tmp: _write_npz(tmp, tables), mkdir=True)
    except OSError:
        pass  # an unwritable cache only costs rebuilding next time
    return tables


_TABLES = load_tables()
W2 = _TABLES["w2"]
W3 = _TABLES["w3"]


def hand_outcomes_cached(players: int) -> np.ndarray:
    """The outcome distribution the loaded tables were built from (see :func:`hand_outcomes`)."""
    return _TABLES[f"dist{players}"]


@kernel(inline="always")
def _to_go(target: int, score: int) -> int:
    """Points still needed, on the table's scale (0: the game is won)."""
    left = target - score
    if left <= 0:
        return 0
    return max(1, min(SCALE, (left * SCALE + target - 1) // target))


@kernel
def game_value(view: np.ndarray, winner_is_me: int, points: int) -> float:
    """The mover's chance of winning the game after this hand ends: ``winner_is_me`` 1 (he
    scores ``points``), 0 (his opponent in the hand does), -1 (a draw: nothing changes)."""
    target = view[V_TARGET]
    me = view[V_SCORE_SELF] + (points if winner_is_me == 1 else 0)
    opp = view[V_SCORE_OPP] + (points if winner_is_me == 0 else 0)
    xm = _to_go(target, me)
    xo = _to_go(target, opp)
    if xm == 0:
        return 1.0
    if xo == 0:
        return 0.0
    role = view[V_ROLE]
    if view[V_PLAYERS] == 3:
        xs = _to_go(target, view[V_SCORE_OTHER])
        if xs == 0:  # cannot happen in a game; the sitter would have won already
            return 0.0
        if winner_is_me == 1:  # the winner holds the box, the sitter is captain
            return _w3(xm, xs, xo, 0)
        if winner_is_me == 0:  # the loser sits out
            return _w3(xo, xs, xm, 2)
        if role == 0:
            return _w3(xm, xo, xs, 0)
        return _w3(xo, xm, xs, 1)
    if winner_is_me == -1:  # the same deal again
        return float(W2[xm, xo, 0]) if role == 0 else float(W2[xo, xm, 1])
    # the deal passes: the mover is the dealer next if he was the non-dealer now
    if role == 1:
        return float(W2[xm, xo, 0])
    return float(W2[xo, xm, 1])


@kernel(inline="always")
def _w3(xb: int, xc: int, xs: int, i: int) -> float:
    """The thinned three-handed table at the nearest kept to-go (at least one step)."""
    return float(W3[max(1, (xb + STEP3 // 2) // STEP3), max(1, (xc + STEP3 // 2) // STEP3),
                    max(1, (xs + STEP3 // 2) // STEP3), i])
