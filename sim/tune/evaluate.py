"""Evaluating candidates: game win rates of seat 0 on given deals, in parallel.

An :class:`Evaluator` answers two questions: how many of games ``first .. first + n - 1`` does
each candidate win (every candidate on the very same deals: common random numbers), and, for
the held-out check, how several strategies fare on the same games, as counts any two of them
pair (:class:`MatchCounts`). Both are asked
per field (``field``: the index of one of the spec's fields, each with its own deals). The
search needs nothing else, so a synthetic objective can stand in for games (the tests do).

:class:`GameEvaluator` plays the games through the runner's :func:`~sim.runs.runner.play_chunk`
(the compiled batch loop, seats rotated) in chunks spread over a joblib pool that lives as
long as the evaluator: loky worker processes (they die with this process, ``kill -9``
included) are started once and reused by every generation, or a Dask cluster. Workers return
counts only, so memory does not grow with the number of games.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from joblib import Parallel, delayed, parallel_config

from sim.engine.game import game_column
from sim.engine.rules import Rules
from sim.play.driver import Seeds
from sim.runs.cluster import check_workers, dask_client
from sim.runs.runner import check_run_options, play_chunk
from sim.runs.storage import Chunk
from sim.runs.workers import die_with_parent, usable_cpus


@dataclass(frozen=True)
class PairCounts:
    """Two strategies in seat 0 on the same ``games``: wins of each, and the discordant games
    (``a_only``: a won and b did not; ``b_only`` the reverse), which give the paired interval."""

    games: int
    a_wins: int
    b_wins: int
    a_only: int
    b_only: int

    def __add__(self, other: PairCounts) -> PairCounts:
        return PairCounts(*(x + y for x, y in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, int, int, int, int]:
        return self.games, self.a_wins, self.b_wins, self.a_only, self.b_only


@dataclass(frozen=True)
class MatchCounts:
    """Several strategies in seat 0 on the same ``games``: the wins of each, and for every
    ordered pair ``(i, j)`` the games ``i`` won and ``j`` did not (``only[i][j]``), from which
    any two of them give their :class:`PairCounts`."""

    games: int
    wins: tuple[int, ...]
    only: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, outcomes: Sequence[np.ndarray]) -> MatchCounts:
        """The counts of per-game outcomes (True where seat 0 won), one array per strategy."""
        won = [np.asarray(o, bool) for o in outcomes]
        return cls(len(won[0]) if won else 0, tuple(int(w.sum()) for w in won),
                   tuple(tuple(int((a & ~b).sum()) for b in won) for a in won))

    def pair(self, i: int, j: int) -> PairCounts:
        """Strategy ``i`` against strategy ``j``, paired game by game."""
        return PairCounts(self.games, self.wins[i], self.wins[j], self.only[i][j],
                          self.only[j][i])

    def __add__(self, other: MatchCounts) -> MatchCounts:
        return MatchCounts(self.games + other.games,
                           tuple(a + b for a, b in zip(self.wins, other.wins, strict=True)),
                           tuple(tuple(a + b for a, b in zip(x, y, strict=True))
                                 for x, y in zip(self.only, other.only, strict=True)))


class Evaluator:
    """The base: per-game outcomes of one candidate; subclasses may count more cleverly.

    ``outcomes(values, first_game, games)`` returns a boolean array, True where seat 0 (playing
    the candidate's parameter ``values``) won game ``first_game + i``. Game ``g`` must be the
    same deal for every candidate (common random numbers). A tune against several fields
    passes ``field=i`` (the field's index) to ``outcomes``, ``wins`` and ``paired``; a
    one-field tune never passes it, so an evaluator written for one field needs no change.
    """

    #: Called with the number of games each finished piece of work played (the tuner's
    #: progress bar); an evaluator that never calls it is counted a generation at a time.
    on_games: Callable[[int], None] | None = None

    def outcomes(self, values: tuple[int, ...] | None, first_game: int,
                 games: int, **field: int) -> np.ndarray:
        raise NotImplementedError

    def wins(self, candidates: Sequence[tuple[int, ...]], first_game: int,
             games: int, **field: int) -> list[int]:
        """Games won by each candidate among ``first_game .. first_game + games - 1``."""
        return [int(self.outcomes(c, first_game, games, **field).sum()) for c in candidates]

    def wins_per_field(self, candidates: Sequence[tuple[int, ...]], first_game: int,
                       games: int, fields: int) -> list[list[int]]:
        """``wins`` against each of ``fields`` fields: one list per field (a subclass may
        play them all at once)."""
        if fields == 1:
            return [self.wins(candidates, first_game, games)]
        return [self.wins(candidates, first_game, games, field=i) for i in range(fields)]

    def paired(self, a: tuple[int, ...] | None, b: tuple[int, ...] | None, first_game: int,
               games: int, **field: int) -> PairCounts:
        """``a`` and ``b`` on the same games, as paired counts; None is the strategy as
        written (the baseline)."""
        return self.compare([a, b], first_game, games, **field).pair(0, 1)

    def compare(self, strategies: Sequence[tuple[int, ...] | None], first_game: int,
                games: int, **field: int) -> MatchCounts:
        """Every one of ``strategies`` on the same games (the held-out check: the result, the
        best strategy measured, the strategy as written), each pair countable."""
        return MatchCounts.of([self.outcomes(s, first_game, games, **field)
                               for s in strategies])

    def close(self) -> None:
        """Release workers (nothing by default)."""

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def count_wins(rules: Rules, seats: tuple[str, ...], seed: int, first_game: int,
               games: int) -> int:
    """Games seat 0 won among ``first_game ..`` (played in a worker; seats rotated)."""
    seeds = Seeds.from_seed(seed)
    _, rows, _, _ = play_chunk(rules, seats, int(seeds.deck), int(seeds.strategy), True,
                               Chunk(0, 0, first_game, games))
    return int((game_column(rows, "winner") == 0).sum())


def count_match(rules: Rules, seatings: Sequence[tuple[str, ...]], seed: int,
                first_game: int, games: int) -> MatchCounts:
    """:class:`MatchCounts` of several seatings on the same games (played in a worker)."""
    seeds = Seeds.from_seed(seed)
    chunk = Chunk(0, 0, first_game, games)
    outcomes = []
    for seats in seatings:
        _, rows, _, _ = play_chunk(rules, seats, int(seeds.deck), int(seeds.strategy), True,
                                   chunk)
        outcomes.append(game_column(rows, "winner") == 0)
    return MatchCounts.of(outcomes)


@contextlib.contextmanager
def task_pool(jobs: int, backend: str, scheduler: Any,
              strategies: Sequence[str]) -> Iterator[Parallel]:
    """A joblib ``Parallel`` (results in order, as a generator) kept open inside the
    ``with``: ``jobs`` loky workers that die with this process, or a Dask cluster
    (``backend="dask"``, ``scheduler`` as for :func:`~sim.runs.runner.run_experiment`) whose
    workers are first checked to run this ginbox and play ``strategies``."""
    with contextlib.ExitStack() as stack:
        if backend == "dask":
            client = stack.enter_context(dask_client(scheduler, jobs))
            check_workers(client, list(strategies))
            stack.enter_context(parallel_config(backend="dask", client=client))
            parallel = Parallel(n_jobs=-1, return_as="generator")
        else:
            stack.enter_context(parallel_config(backend="loky", initializer=die_with_parent,
                                                initargs=(os.getpid(),)))
            parallel = Parallel(n_jobs=jobs, return_as="generator")
        yield stack.enter_context(parallel)


class GameEvaluator(Evaluator):
    """Real games: seat 0 plays ``spec.seats(values, i)`` under the spec's rules, on the deals
    of ``spec.field_seed(i)`` (field ``i``; the first field's seed is the tune's).

    ``jobs`` worker processes (default: all usable cores; 1 plays here), or ``backend="dask"``
    with ``scheduler`` as for :func:`~sim.runs.runner.run_experiment`. The pool is opened on
    first use and kept until :meth:`close`, so generations pay no worker start-up.
    """

    def __init__(self, spec: Any, jobs: int | None = None, backend: str = "loky",
                 scheduler: Any = None) -> None:
        check_run_options(jobs, backend, scheduler)
        self.spec = spec
        self.rules = spec.resolved_rules
        self.chunk_size = spec.chunk_size
        self.jobs = jobs or usable_cpus()
        self.backend, self.scheduler = backend, scheduler
        self._stack: contextlib.ExitStack | None = None
        self._parallel: Parallel | None = None

    def open(self) -> None:
        """Start the pool (or connect to Dask) now: errors surface before anything is
        written."""
        if self._parallel is not None:
            return
        stack = contextlib.ExitStack()
        try:
            self._parallel = stack.enter_context(
                task_pool(self.jobs, self.backend, self.scheduler, self._strategies()))
        except BaseException:
            stack.close()
            raise
        self._stack = stack

    def _strategies(self) -> list[str]:
        """Every strategy the games seat (the tuned one as written, every field's)."""
        return [s for i in range(len(self.spec.fields)) for s in self.seats(None, i)]

    def close(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack, self._parallel = None, None

    def _chunks(self, first_game: int, games: int) -> list[tuple[int, int]]:
        size = self.chunk_size
        return [(first_game + s, min(size, games - s)) for s in range(0, games, size)]

    def imap(self, tasks: list[Any]) -> Iterator[Any]:
        """Any joblib ``delayed`` tasks on the pool, their results in order as they come (a
        caller that saves each one, as the exploit's held-out check does)."""
        self.open()
        assert self._parallel is not None
        yield from self._parallel(tasks)

    def _run(self, tasks: list[Any], games: list[int]) -> list[Any]:
        """The tasks' results in order; ``games[i]`` games counted when task ``i`` ends."""
        self.open()
        assert self._parallel is not None
        out = []
        for result, n in zip(self._parallel(tasks), games, strict=True):
            out.append(result)
            if self.on_games is not None:
                self.on_games(n)
        return out

    def wins(self, candidates: Sequence[tuple[int, ...]], first_game: int,  # type: ignore[override]  # field by name: the base's **field
             games: int, field: int = 0) -> list[int]:
        return self.wins_at(candidates, first_game, games, (field,))[0]

    def wins_per_field(self, candidates: Sequence[tuple[int, ...]], first_game: int,
                       games: int, fields: int) -> list[list[int]]:
        return self.wins_at(candidates, first_game, games, tuple(range(fields)))

    def wins_at(self, candidates: Sequence[tuple[int, ...]], first_game: int, games: int,
                fields: tuple[int, ...]) -> list[list[int]]:
        """Wins of each candidate against each of ``fields``, all in one parallel batch (so
        the pool stays busy across fields)."""
        chunks = self._chunks(first_game, games)
        tasks = [delayed(count_wins)(self.rules, self.seats(c, i), self.spec.field_seed(i),
                                     f, n)
                 for i in fields for c in candidates for f, n in chunks]
        counts = self._run(tasks, [n for _ in fields for _ in candidates for _, n in chunks])
        k, m = len(chunks), len(candidates)
        return [[int(sum(counts[(j * m + c) * k:(j * m + c + 1) * k])) for c in range(m)]
                for j in range(len(fields))]

    def seats(self, values: tuple[int, ...] | None, field: int = 0) -> tuple[str, ...]:
        """A game's strategies: the candidate (None: the strategy as written), field
        ``field``."""
        return (self.spec.seats(values, field) if values is not None
                else (self.spec.strategy, *self.spec.fields[field]))

    def compare(self, strategies: Sequence[tuple[int, ...] | None], first_game: int,  # type: ignore[override]  # field by name: the base's **field
                games: int, field: int = 0) -> MatchCounts:
        chunks = self._chunks(first_game, games)
        seatings = [self.seats(s, field) for s in strategies]
        tasks = [delayed(count_match)(self.rules, seatings, self.spec.field_seed(field), f, n)
                 for f, n in chunks]
        parts = self._run(tasks, [len(strategies) * n for _, n in chunks])
        return functools.reduce(operator.add, parts)

    def outcomes(self, values: tuple[int, ...] | None, first_game: int,  # type: ignore[override]  # field by name: the base's **field
                 games: int, field: int = 0) -> np.ndarray:
        seeds = Seeds.from_seed(self.spec.field_seed(field))
        _, rows, _, _ = play_chunk(self.rules, self.seats(values, field), int(seeds.deck),
                                   int(seeds.strategy), True, Chunk(0, 0, first_game, games))
        return np.asarray(game_column(rows, "winner") == 0)


__all__ = ["Evaluator", "GameEvaluator", "MatchCounts", "PairCounts", "count_match",
           "count_wins", "task_pool"]
