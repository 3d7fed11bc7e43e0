"""The review's tidy table: one row per decision of the reviewed seats.

:func:`review_game` walks one game's hand-log records (:mod:`sim.analysis.positions`), asks
the judge (:mod:`sim.review.judge`) about every decision of the chosen seats and returns the
rows; :func:`iter_log_games` groups a log's records by game and checks each game against the
rules first (``sim.records.replay.replay_game``), so a review never judges a game the engine
would not have played. :func:`review_rows` runs the hands on several workers (joblib, in order:
the same rows for any number of workers; a hand, not a game, is a task, so no worker waits on
the last long game while the others idle).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, cast

import pandas as pd
from joblib import Parallel, delayed

from sim.analysis.positions import DecisionPoint, iter_decision_points
from sim.engine.cards import card_str, fan
from sim.records.log import iter_log, rules_of
from sim.records.replay import check_hand_record, replay_game
from sim.review.judge import Judgment, judge_point
from sim.runs.pool import loky_config

#: The table's columns, in order (``docs/review.md`` says what each holds).
COLUMNS = ("game", "hand", "move", "seat", "strategy", "for_seat", "role", "team", "kind",
           "stage", "stock_left", "turn", "options", "chosen", "best", "value_chosen",
           "value_best", "loss", "label", "counted", "worlds", "values", "cards", "top", "score")
#: The most games one review holds (about 125 rows a game): beyond it, review part of the log.
MAX_GAMES = 10_000


def iter_log_games(log: str | os.PathLike[str] | Sequence[Path] | Iterable[Mapping[str, Any]],
                   replay: bool = True) -> Iterator[list[dict[str, Any]]]:
    """Each game's records, in log order, checked against the rules (ValueError naming the
    first difference; ``replay=False`` for a log already checked so); ``log`` is a path, a
    list of paths read one after the other, or the records. A game's hands must be
    consecutive lines, as every ginbox front end writes them."""
    if isinstance(log, (str, os.PathLike)):
        records: Iterator[dict[str, Any]] = iter_log(log, check=check_hand_record)
    elif isinstance(log, (list, tuple)) and log and isinstance(log[0], Path):
        records = chain.from_iterable(iter_log(p, check=check_hand_record) for p in log)
    else:
        records = iter(cast(Iterable[dict[str, Any]], log))
    game: list[dict[str, Any]] = []
    seen: set[Any] = set()
    checked = _checked if replay else list
    for record in records:
        if game and record.get("game") != game[0].get("game"):
            yield checked(game)
            game = []
        if not game:
            if record.get("game") in seen:
                raise ValueError(f"game {record.get('game')} appears twice in the log, apart: "
                                 "a review reads each game's hands as consecutive lines")
            seen.add(record.get("game"))
        game.append(record)
    if game:
        yield checked(game)


def _checked(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for check in replay_game(records):
        if not check.ok:
            raise ValueError(f"game {check.game} hand {check.hand} differs from the rules, so "
                             f"it cannot be reviewed: {check.differences[0]}")
    return records


def _role(record: dict[str, Any], point: DecisionPoint) -> str:
    """The decider's role: dealer / non-dealer two-handed; box / captain three-handed, and
    ``advisor`` for a sitter deciding for the captain."""
    if record.get("sitter") is None:
        return ("dealer", "non-dealer")[point.player]
    if point.decider != point.seat:
        return "advisor"
    return ("box", "captain")[point.player]


def _team(record: dict[str, Any], point: DecisionPoint) -> str:
    """``advisor`` or ``consensus`` for a captain's decision his team made, else empty."""
    if record.get("sitter") is None or point.player != 1:
        return ""
    policy = rules_of(record).team_policy
    return policy if policy in ("advisor", "consensus") else ""


def _row(record: dict[str, Any], point: DecisionPoint, verdict: Judgment) -> dict[str, Any]:
    seats = record["seats"]
    return {
        "game": int(record["game"]), "hand": int(record["hand"]), "move": point.index,
        "seat": point.decider, "strategy": str(seats[point.decider]), "for_seat": point.seat,
        "role": _role(record, point), "team": _team(record, point), "kind": point.kind,
        "stage": point.stage, "stock_left": point.stock_left, "turn": point.turn,
        "options": point.legal, "chosen": verdict.chosen, "best": verdict.best,
        "value_chosen": verdict.value_chosen, "value_best": verdict.value_best,
        "loss": verdict.loss, "label": verdict.label, "counted": verdict.counted,
        "worlds": verdict.worlds,
        "values": json.dumps({k: round(v, 5) for k, v in verdict.values.items()}),
        **_position(point),
    }


def _position(point: DecisionPoint) -> dict[str, str]:
    """What the mover saw, as text: his cards, the top of the pile and the scores (his,
    the opponent's and, three-handed, the sitter's)."""
    seen = point.seen
    scores = [seen.score, seen.opponent_score]
    if seen.players == 3:
        scores.append(seen.other_score)
    return {"cards": fan(seen.hand), "top": card_str(seen.top) if seen.top is not None else "",
            "score": "-".join(map(str, scores))}


def review_hand(record: dict[str, Any], previous: dict[str, Any] | None,
                seats: Sequence[int] | None, judge: str, seed: int) -> list[dict[str, Any]]:
    """The rows of one hand (``previous``: the game's hand before it, or None): every
    decision whose deciding seat is in ``seats`` (None: every seat), judged by ``judge``."""
    rows = []
    for point in iter_decision_points(record, previous):
        if seats is None or point.decider in seats:
            verdict = judge_point(point, judge, seed, int(record["game"]), int(record["hand"]))
            rows.append(_row(record, point, verdict))
    return rows


def review_game(records: Sequence[dict[str, Any]], seats: Sequence[int] | None, judge: str,
                seed: int) -> list[dict[str, Any]]:
    """The rows of one game (its records in hand order), hand by hand."""
    return [row for i, record in enumerate(records)
            for row in review_hand(record, records[i - 1] if i else None, seats, judge, seed)]


def review_rows(games: Iterable[list[dict[str, Any]]], seats: Sequence[int] | None, judge: str,
                seed: int, jobs: int = 1,
                on_game: Callable[[int, list[dict[str, Any]]], None] | None = None
                ) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """``(game, rows)`` for each game, in order, judged on ``jobs`` workers; ``on_game`` is
    called with each as it is done (the review's checkpoint)."""
    tasks = ((int(g[0]["game"]), g) for g in games)
    if jobs <= 1:
        results: Iterable[tuple[int, list[dict[str, Any]]]] = (
            (game, review_game(recs, seats, judge, seed)) for game, recs in tasks)
        for game, rows in results:
            if on_game is not None:
                on_game(game, rows)
            yield game, rows
        return
    hands = ((game, i == len(recs) - 1, record, recs[i - 1] if i else None)
             for game, recs in tasks for i, record in enumerate(recs))
    with loky_config():
        parallel = Parallel(n_jobs=jobs, return_as="generator", pre_dispatch="4*n_jobs")
        game_rows: list[dict[str, Any]] = []
        for game, last, hand_rows in parallel(
                delayed(_hand_task)(game, last, record, previous, seats, judge, seed)
                for game, last, record, previous in hands):
            game_rows += hand_rows
            if last:  # in order: a game's hands arrive one after the other
                if on_game is not None:
                    on_game(game, game_rows)
                yield game, game_rows
                game_rows = []


def _hand_task(game: int, last: bool, record: dict[str, Any], previous: dict[str, Any] | None,
               seats: Sequence[int] | None, judge: str, seed: int
               ) -> tuple[int, bool, list[dict[str, Any]]]:
    return game, last, review_hand(record, previous, seats, judge, seed)


def frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """The rows as the tidy table, columns in :data:`COLUMNS` order."""
    table = pd.DataFrame(list(rows), columns=list(COLUMNS))
    return table.astype({"game": "int64", "hand": "int64", "move": "int64", "seat": "int64",
                         "for_seat": "int64", "stock_left": "int64", "turn": "int64",
                         "options": "int64", "value_chosen": "float64",
                         "value_best": "float64", "loss": "float64", "counted": "bool",
                         "worlds": "int64"})
