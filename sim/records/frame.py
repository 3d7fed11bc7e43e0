"""A hand log as a pandas table: one row per hand with tidy columns (:func:`log_to_frame`).

Apart from :mod:`sim.records.log` so that writing and checking a log need no pandas.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from sim.engine.hand import DISCARD_NAME

#: Columns of :func:`log_to_frame` before the per-seat scores.
FRAME_COLUMNS: tuple[str, ...] = (
    "game", "hand", "rules", "dealer", "nondealer", "sitter", "upcard", "end", "knocker",
    "winner", "points", "knocker_deadwood", "defender_deadwood", "n_moves", "turns",
)

def _turns(record: dict[str, Any]) -> int:
    """Turns played, as the engine counts them: every discard ends a turn, the knocker's
    included, so this matches the ``turns`` column of the per-game table."""
    return sum(1 for m in record["moves"] if m["move"] == DISCARD_NAME)


def log_to_frame(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per hand with tidy columns, for pandas analysis of a log.

    Columns: game, hand, rules, dealer, nondealer, sitter, upcard, end, knocker, winner,
    points, knocker_deadwood, defender_deadwood, n_moves, turns, score_0 .. score_<n-1>
    (cumulative scores after the hand), game_over, game_winner. Seats are integers; columns
    that may be missing (sitter in two-player mode, knocker and deadwood of drawn hands, the
    winner) use pandas' nullable ``Int64``.
    """
    rows = []
    n_seats = 0
    for r in records:
        result = r["result"]
        row = {
            "game": r["game"], "hand": r["hand"], "rules": r["rules"],
            "dealer": r["dealer"], "nondealer": r["nondealer"], "sitter": r["sitter"],
            "upcard": r["deal"]["upcard"], "end": result["end"], "knocker": result["knocker"],
            "winner": result["winner"], "points": result["points"],
            "knocker_deadwood": result["knocker_deadwood"],
            "defender_deadwood": result["defender_deadwood"],
            "n_moves": len(r["moves"]), "turns": _turns(r),
        }
        for seat, score in enumerate(r["scores"]):
            row[f"score_{seat}"] = score
        n_seats = max(n_seats, len(r["scores"]))
        row["game_over"] = r["game_over"]
        row["game_winner"] = r["game_winner"]
        rows.append(row)
    columns = [*FRAME_COLUMNS, *(f"score_{s}" for s in range(n_seats)), "game_over",
               "game_winner"]
    frame = pd.DataFrame(rows, columns=columns)
    dtypes: dict[str, Any] = {c: "int64" for c in ("game", "hand", "dealer", "nondealer",
                                                  "points", "n_moves", "turns")}
    nullable = ["sitter", "knocker", "winner", "knocker_deadwood", "defender_deadwood",
                "game_winner", *(f"score_{s}" for s in range(n_seats))]
    dtypes.update({c: "Int64" for c in nullable})
    dtypes.update({"rules": "string", "upcard": "string", "end": "string", "game_over": "bool"})
    frame = frame.astype(dtypes)
    # Scores are never missing unless seat counts are mixed; keep plain ints when possible.
    for s in range(n_seats):
        col = f"score_{s}"
        if not frame[col].isna().any():
            frame[col] = frame[col].astype("int64")
    return frame
