"""Per-chunk sums stored inside each chunk file, so a report need not re-read every game.

The worker that plays a chunk also sums it: every column of
:data:`sim.engine.game.GAME_COLUMNS`, wins by seat, and the cross products (a Gram matrix) of
the few columns whose per-game means carry an interval (:class:`sim.analysis.statistics.Ratio`
needs ``sum x*x``, ``sum x*y``, ``sum y*y``). They are exact integers, written as JSON in the
parquet file's key-value metadata (covered by the chunk's sha256), and summing them over chunks
gives the report's tables exactly as a pass over the rows would: a report of a million games
reads 50 file footers instead of 50 million values. Runs written before this have no
aggregates and are read row by row.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.engine.game import GAME_COLUMNS

KEY = b"ginbox.aggregates"
VERSION = 1
ONE = "1"  # the constant column of the Gram matrix: its row holds the plain sums
WINS = ("win_0", "win_1", "win_2")  # winner == seat
#: Columns of the Gram matrix: the constant, wins by seat, and the numerators and
#: denominators of every mean the report gives an interval for.
GRAM: tuple[str, ...] = (ONE, *WINS, "hands", "turns", "box_points", "captain_points",
                         *(f"box_hands_{s}" for s in range(3)),
                         *(f"box_runs_{s}" for s in range(3)))
_INDEX = {c: i for i, c in enumerate(GAME_COLUMNS)}


def chunk_aggregates(rows: np.ndarray) -> dict[str, Any]:
    """The sums of one chunk's ``GAME_COLUMNS`` rows (as JSON-ready Python ints)."""
    rows = np.asarray(rows, dtype=np.int64)
    winner = rows[:, _INDEX["winner"]]
    parts = [np.ones(len(rows), np.int64)] + [(winner == s).astype(np.int64) for s in range(3)]
    parts += [rows[:, _INDEX[c]] for c in GRAM[4:]]
    m = np.column_stack(parts)
    return {"version": VERSION, "games": int(len(rows)),
            "sums": dict(zip(GAME_COLUMNS, rows.sum(axis=0).tolist(), strict=True)),
            "gram_columns": list(GRAM), "gram": (m.T @ m).tolist()}


def with_aggregates(table: pa.Table, rows: np.ndarray) -> pa.Table:
    """``table`` carrying the aggregates of ``rows`` in its schema metadata."""
    meta = dict(table.schema.metadata or {})
    meta[KEY] = json.dumps(chunk_aggregates(rows), separators=(",", ":")).encode()
    return table.replace_schema_metadata(meta)


def read_aggregates(path: Path) -> dict[str, Any] | None:
    """A chunk file's aggregates (its footer only), or None for a file written without."""
    try:
        meta = pq.read_schema(path).metadata or {}
        data = json.loads(meta[KEY]) if KEY in meta else None
    except (OSError, pa.ArrowException, ValueError):
        return None
    if (not isinstance(data, dict) or data.get("version") != VERSION
            or data.get("gram_columns") != list(GRAM)):
        return None
    return data


@dataclass
class Totals:
    """Aggregates summed over chunks (of one arm): exact integer sums."""

    games: int
    sums: dict[str, int]
    gram: np.ndarray  # int64, indexed like GRAM

    @classmethod
    def zero(cls) -> Totals:
        return cls(0, dict.fromkeys(GAME_COLUMNS, 0), np.zeros((len(GRAM), len(GRAM)), np.int64))

    def add(self, agg: dict[str, Any]) -> None:
        self.games += int(agg["games"])
        for c, v in agg["sums"].items():
            self.sums[c] = self.sums.get(c, 0) + int(v)
        self.gram += np.asarray(agg["gram"], np.int64)

    def wins(self, seats: Sequence[int]) -> int:
        """Games won by any of ``seats`` (a game has one winner)."""
        return sum(int(self.gram[0, 1 + s]) for s in seats)

    def total(self, columns: Sequence[str]) -> int:
        return sum(int(self.sums[c]) for c in columns)

    def ratio_sums(self, num: Sequence[str], den: Sequence[str] | None,
                   ) -> tuple[int, int, int, int, int, int]:
        """(n, sx, sy, sxx, sxy, syy) for x = sum of ``num``, y = sum of ``den`` (or 1)."""
        ix = [GRAM.index(c) for c in num]
        iy = [GRAM.index(c) for c in den] if den else [0]
        g = self.gram

        def cross(a: list[int], b: list[int]) -> int:
            return int(g[np.ix_(a, b)].sum())

        return (self.games, cross([0], ix), cross([0], iy), cross(ix, ix), cross(ix, iy),
                cross(iy, iy))


__all__ = ["GRAM", "KEY", "Totals", "chunk_aggregates", "read_aggregates", "with_aggregates"]
