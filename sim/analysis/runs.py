"""A stored run as the analysis reads it: its arms, and its game rows chunk by chunk.

Every table is built from the rows the runner stored (one per game,
:data:`sim.runs.storage.COLUMNS`), never by replaying games, and chunk by chunk
(:meth:`sim.runs.storage.RunResult.iter_chunks`), so memory stays flat however many games a
run holds. This module is the one place that opens a run and walks its chunks, per arm or
paired across arms.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.runs.aggregates import Totals, read_aggregates
from sim.runs.storage import RunResult, load_results, read_chunk


@dataclass(frozen=True)
class Arm:
    """One arm of a run as the report needs it: name, seats, rules and seating."""

    index: int
    name: str
    strategies: tuple[str, ...]
    seating: Any  # "rotate", "random" or a list of initial roles
    rules: dict[str, Any]
    overrides: dict[str, Any]

    @property
    def players(self) -> int:
        """Seats at the table (3, or 2 in two-player mode)."""
        return len(self.strategies)

    def distinct(self) -> list[str]:
        """The strategies at the table, each once, in seat order."""
        return list(dict.fromkeys(self.strategies))

    def seats(self, strategy: str) -> list[int]:
        """The seats holding ``strategy``."""
        return [s for s, t in enumerate(self.strategies) if t == strategy]

    @property
    def rules_key(self) -> str:
        """The rules that change play, for comparing arms (no name, no fixed roles)."""
        kept = {k: v for k, v in self.rules.items() if k not in ("name", "initial_roles")}
        return json.dumps(kept, sort_keys=True)

    @property
    def rules_label(self) -> str:
        """The preset and any overrides, e.g. ``three-handed (knock_limit=7)``."""
        extra = ", ".join(f"{k}={v}" for k, v in self.overrides.items())
        return f"{self.rules['name']} ({extra})" if extra else str(self.rules["name"])

    @property
    def seating_label(self) -> str:
        """The seating as text: rotate, random or the fixed initial roles."""
        return self.seating if isinstance(self.seating, str) else str(list(self.seating))


def arms_of(result: RunResult) -> list[Arm]:
    """The arms of a run, from its manifest (resolved rules, seats, seating)."""
    spec_arms = result.manifest["spec"]["arms"]
    return [Arm(index=i, name=a["name"], strategies=tuple(a["strategies"]), seating=a["seating"],
                rules=dict(a["rules"]), overrides=dict(spec_arms[i].get("overrides") or {}))
            for i, a in enumerate(result.manifest["arms"])]


def find_arm(arms: list[Arm], which: int | str) -> Arm:
    if isinstance(which, str):
        for arm in arms:
            if arm.name == which:
                return arm
    elif isinstance(which, int | np.integer) and 0 <= which < len(arms):
        return arms[int(which)]
    accepted = ", ".join(f"{a.index} ({a.name!r})" for a in arms)
    raise ValueError(f"arm {which!r} is not in this run: expected one of {accepted}")


def open_run(result_or_dir: RunResult | str | Path) -> RunResult:
    if isinstance(result_or_dir, RunResult):
        return result_or_dir
    if not isinstance(result_or_dir, str | Path):
        raise ValueError(f"{result_or_dir!r} is not a run: expected a RunResult or a results "
                         "directory")
    path = Path(result_or_dir)
    if not path.exists():
        raise ValueError(f"{path} does not exist: expected a results directory written by "
                         "'ginbox run' (holding manifest.json)")
    if not path.is_dir():
        raise ValueError(f"{path} is not a results directory: expected a directory written by "
                         "'ginbox run' (holding manifest.json)")
    return load_results(path)


def arm_frames(result: RunResult, columns: list[str]) -> Iterator[tuple[int, pd.DataFrame]]:
    """(arm, rows) for each stored chunk, reading only ``columns``: flat memory."""
    for frame in result.iter_chunks(columns=["arm", *dict.fromkeys(columns)]):
        if not len(frame):
            continue
        arms = frame["arm"].to_numpy()
        if arms[0] == arms[-1] and (arms == arms[0]).all():
            yield int(arms[0]), frame
        else:
            for arm, part in frame.groupby("arm", sort=False):
                yield int(arm), part


def arm_totals(result: RunResult) -> list[Totals] | None:
    """Each arm's stored per-chunk sums added up (:mod:`sim.runs.aggregates`), reading file
    footers only; None when a stored chunk has none (a run of an older ginbox), and then the
    tables read the rows. The sums are exact, so both ways give the same tables."""
    totals = [Totals.zero() for _ in result.manifest["arms"]]
    for entry in result.manifest["chunks"]:
        path = result.out / entry["file"]
        if not path.exists():
            continue
        agg = read_aggregates(path)
        if agg is None or agg["games"] != entry["games"]:
            return None
        totals[entry["arm"]].add(agg)
    return totals


def paired_frames(result: RunResult, base: int, others: Sequence[int],
                  columns: list[str]) -> Iterator[tuple[pd.DataFrame, list[pd.DataFrame]]]:
    """Chunk ``c`` of arm ``base`` with chunk ``c`` of each other arm: the same games, paired."""
    files: dict[tuple[int, int], Path] = {}
    for entry in result.manifest["chunks"]:
        path = result.out / entry["file"]
        if path.exists():
            files[(entry["arm"], entry["chunk"])] = path
    indices = sorted(c for (a, c) in files if a == base)
    cols = ["game", *dict.fromkeys(columns)]
    for c in indices:
        if not all((o, c) in files for o in others):
            continue
        frame = read_chunk(files[(base, c)], cols).to_pandas()
        partners = []
        for o in others:
            other = read_chunk(files[(o, c)], cols).to_pandas()
            if not np.array_equal(frame["game"].to_numpy(), other["game"].to_numpy()):
                raise ValueError(f"arms {base} and {o} of {result.out} do not hold the same "
                                 f"games in chunk {c}, so they cannot be compared paired")
            partners.append(other)
        yield frame, partners


def seat_sum(frame: pd.DataFrame, prefix: str, seats: Sequence[int]) -> np.ndarray:
    total = np.zeros(len(frame), np.int64)
    for s in seats:
        total += frame[f"{prefix}{s}"].to_numpy(np.int64)
    return total


def games_per_arm(result: RunResult) -> int:
    return int(result.manifest["spec"]["games"])


__all__ = ["Arm", "arm_frames", "arm_totals", "arms_of", "find_arm", "games_per_arm", "open_run",
           "paired_frames", "seat_sum"]
