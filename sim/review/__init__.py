"""Decision review: the judge's verdict on every decision of a hand log.

``ginbox review LOG`` and :func:`review` read a hand log (from ``ginbox play --log``, a run's
logged games, an environment's ``log_path``, or a person's games), check each game against the
rules, and ask the judge (``mc`` valuing every option, :mod:`sim.review.judge`) what each
decision of the chosen seats was worth: the value of every option and of the move made, the
loss in game-win probability and a label. The result is a tidy table, one row per decision
(``Review.decisions``; columns in :data:`sim.review.decisions.COLUMNS`), with the summaries of
:mod:`sim.review.report`::

    from sim.play.driver import play_games
    from sim.review import review

    log = play_games("simple,tuned", rules="eaai", games=2, seed=3, log=True).log
    result = review(log, judge="mc:samples=64", quiet=True)
    print(result.summary()[["seat", "strategy", "decisions", "error_rate"]])

With ``out`` the review writes its files there (:meth:`Review.write`) and keeps a checkpoint
after every game, so an interrupted review resumes (``resume=True``) where it stopped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, cast

import pandas as pd
from matplotlib.figure import Figure

from sim.analysis.plots import save
from sim.io.files import atomic_write, atomic_write_text, fsync_path
from sim.records.limits import shown
from sim.review import report
from sim.review.decisions import MAX_GAMES, frame, iter_log_games, review_rows
from sim.review.judge import DEFAULT_JUDGE, judge_text
from sim.runs.progress import Progress

CHECKPOINT = "decisions.partial.jsonl"
SETTINGS = "review.json"
#: How many games' win-probability plots a review writes.
PLOTTED_GAMES = 3


@dataclass
class Review:
    """A finished review: ``decisions`` (the tidy table), the ``judge`` spec that played
    every option, the ``seed`` of its worlds and the log it read (``source``)."""

    decisions: pd.DataFrame
    judge: str
    seed: int
    source: str = ""
    files: list[Path] = field(default_factory=list)

    def summary(self, by: Sequence[str] = ("seat", "strategy")) -> pd.DataFrame:
        """Error rate (with its interval), loss per game and label counts per group."""
        return report.summary(self.decisions, tuple(by))

    def compare(self, first: str, second: str, by: str = "kind") -> pd.DataFrame:
        """Which kinds of decision (or roles, stages) account for the gap between two
        strategies' losses per game (:func:`sim.review.report.compare`)."""
        return report.compare(self.decisions, first, second, by)

    def report(self, costliest: int = 5) -> str:
        """The Markdown report."""
        return report.markdown(self.decisions, self.judge, self.seed, self.source, costliest)

    def plot(self, game: int) -> Figure:
        """Each seat's chance of winning game ``game`` through its decisions."""
        return report.win_probability_plot(self.decisions, game)

    def write(self, out: str | os.PathLike[str]) -> list[Path]:
        """Write ``decisions.parquet``, ``decisions.csv``, ``report.md`` and a plot of the
        first games (``winprob-game-<g>.png``) into ``out``, each atomically."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = [atomic_write(out / "decisions.parquet",
                                lambda p: self.decisions.to_parquet(p, index=False)),
                   atomic_write(out / "decisions.csv",
                                lambda p: self.decisions.to_csv(p, index=False)),
                   atomic_write_text(out / "report.md", self.report() + "\n")]
        for game in list(dict.fromkeys(self.decisions["game"]))[:PLOTTED_GAMES]:
            written.append(save(self.plot(int(game)), out / f"winprob-game-{game}.png"))
        self.files = written
        return written


def log_paths(log: Any) -> list[Path]:
    """The hand-log files ``log`` names: a path, a list of paths, or a folder's ``*.jsonl``
    files in name order (a run's ``arm=<i>/`` folder, for one); [] when ``log`` holds the
    records themselves. ValueError for a path that is not there."""
    if isinstance(log, (str, os.PathLike)):
        given = [Path(log)]
    elif isinstance(log, (list, tuple)) and log and all(
            isinstance(p, (str, os.PathLike)) for p in log):
        given = [Path(p) for p in log]
    else:
        return []
    paths: list[Path] = []
    for path in given:
        if path.is_dir():
            found = sorted(path.glob("*.jsonl"))
            if not found:
                raise ValueError(f"no hand log (*.jsonl) in the folder {path}")
            paths += found
        elif path.is_file():
            paths.append(path)
        else:
            raise ValueError(f"no hand log at {path}")
    return paths


def _check_seats(seats: Sequence[int] | None) -> tuple[int, ...] | None:
    if seats is None:
        return None
    checked = tuple(seats)
    if not checked or any(isinstance(s, bool) or not isinstance(s, int) or s < 0
                          for s in checked):
        raise ValueError(f"seats {shown(list(checked))} are not valid: expected seat numbers "
                         "of the log, from 0 (0, 1 two-handed; 0, 1, 2 three-handed)")
    return checked


def _settings(source: str, judge: str, seed: int, seats: tuple[int, ...] | None,
              games: int | None) -> dict[str, Any]:
    return {"log": source, "judge": judge, "seed": seed,
            "seats": None if seats is None else list(seats), "games": games}


def _load_checkpoint(path: Path) -> dict[int, list[dict[str, Any]]]:
    """The games a checkpoint holds whole (a torn last line, from a crash, is dropped)."""
    done: dict[int, list[dict[str, Any]]] = {}
    if not path.exists():
        return done
    with path.open(encoding="utf-8") as f:
        for line in f:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                break
            done[int(entry["game"])] = entry["rows"]
    return done


def _prepare_out(out: Path, settings: dict[str, Any], resume: bool, force: bool
                 ) -> dict[int, list[dict[str, Any]]]:
    """Check (or start) the output folder; return the games already reviewed there."""
    known = out / SETTINGS
    if known.exists() and not (resume or force):
        raise ValueError(f"{out} already holds a review: resume it (--resume) or replace it "
                         "(--force)")
    if resume and known.exists():
        before = json.loads(known.read_text(encoding="utf-8"))
        if before != settings:
            changed = ", ".join(k for k in settings if before.get(k) != settings[k])
            raise ValueError(f"{out} holds a review with other settings ({changed}): start a "
                             "new folder or replace it with --force")
        if not (out / CHECKPOINT).exists() and (out / "decisions.parquet").exists():
            finished = pd.read_parquet(out / "decisions.parquet")  # a finished review
            return {int(game): rows.to_dict("records")
                    for game, rows in finished.groupby("game", sort=False)}
        return _load_checkpoint(out / CHECKPOINT)
    out.mkdir(parents=True, exist_ok=True)
    (out / CHECKPOINT).unlink(missing_ok=True)
    atomic_write_text(known, json.dumps(settings, indent=2) + "\n")
    return {}


def review(log: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
           | Iterable[Mapping[str, Any]], *,
           seats: Sequence[int] | None = None, judge: str = DEFAULT_JUDGE, seed: int = 0,
           games: int | None = None, jobs: int = 1, out: str | os.PathLike[str] | None = None,
           resume: bool = False, force: bool = False, quiet: bool = False) -> Review:
    """Review the decisions of ``seats`` (None: every seat) in ``log``: a hand-log path, a list
    of them, a folder of them (:func:`log_paths`; game numbers must not repeat across files) or
    the records themselves.

    ``judge``: ``mc`` with the parameters to change (``"mc:samples=1024"`` for a closer
    verdict; every discard is always valued and nothing stops early); ``seed``: the judge's
    worlds; ``games``: review only the log's first ``games`` games; ``jobs``: worker
    processes (the same table for any number); ``out``: write the table, report and plots
    there, with a checkpoint per game, ``resume`` to go on from it, ``force`` to replace it.
    Raises ValueError for bad settings, a game that differs from the rules, or a log of more
    than ``MAX_GAMES`` games (review part of it with ``games``).
    """
    judge = judge_text(judge)
    seats = _check_seats(seats)
    for name, value, low in (("seed", seed, 0), ("jobs", jobs, 1), ("games", games, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < low):
            raise ValueError(f"{name}={value!r} is not valid: expected an integer >= {low}")
    paths = log_paths(log)
    source = " ".join(str(p) for p in paths)
    # read more than once: to count, to judge
    records: Any = paths if paths else list(cast(Iterable[dict[str, Any]], log))
    order: list[int] = []
    for game_records in iter_log_games(records):  # every game is checked against the rules
        order.append(int(game_records[0]["game"]))
        players = len(game_records[0]["seats"])
        if seats is not None and max(seats) >= players:
            raise ValueError(f"seat {max(seats)} is not a seat of this log: its games seat "
                             f"{players} players, seats "
                             + ", ".join(map(str, range(players))))
        if len(order) == games or len(order) > MAX_GAMES:
            break
    total = len(order)
    if not total:
        raise ValueError(f"the log {source} holds no hands" if source else
                         "the log holds no hands: nothing to review")
    if total > MAX_GAMES:
        raise ValueError(f"the log holds more than {MAX_GAMES:,} games, more than one review "
                         "holds in memory: review part of it (games=N, --games N)")
    settings = _settings(source, judge, seed, seats, games)
    checkpoint = None
    done: dict[int, list[dict[str, Any]]] = {}
    if out is not None:
        out = Path(out)
        done = _prepare_out(out, settings, resume, force)
        checkpoint = (out / CHECKPOINT).open("a", encoding="utf-8")

    def keep(game: int, rows: list[dict[str, Any]]) -> None:
        if checkpoint is not None:
            checkpoint.write(json.dumps({"game": game, "rows": rows}) + "\n")
            checkpoint.flush()
            os.fsync(checkpoint.fileno())
        progress.update(1)

    progress = Progress("review", total, initial=len(done), quiet=quiet)
    rows_by_game: dict[int, list[dict[str, Any]]] = dict(done)
    try:
        todo = (g for g in islice(iter_log_games(records, replay=False), total)
                if int(g[0]["game"]) not in done)  # replayed against the rules above
        for game, rows in review_rows(todo, seats, judge, seed, jobs, on_game=keep):
            rows_by_game[game] = rows
    finally:
        progress.close()
        if checkpoint is not None:
            checkpoint.close()
    table = frame(row for game in order for row in rows_by_game[game])
    result = Review(table, judge, seed, source)
    if out is not None:
        result.write(out)
        (out / CHECKPOINT).unlink(missing_ok=True)
        fsync_path(out)
    return result


__all__ = ["DEFAULT_JUDGE", "Review", "review"]
