"""Playing a league: rounds of tables through the experiment runner, resumable and incremental.

A league's folder holds ``league.json`` (the settings every round must share: rules, seed,
games) and one ginbox run per **round**, ``round-000/``, ``round-001/``...: an experiment
with one arm per table. A round is made of the tables of the design that no earlier round
played, so adding a strategy to a finished league plays only the tables it sits at, and
removing one only leaves its tables out of the ratings. An interrupted round is finished with
the runner's resume (its own stored spec, so later additions go to a new round). All rounds
play with the league seed, so game g of every table, in any round, is dealt the same decks.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.io.files import atomic_write_text
from sim.league.output import write
from sim.league.ratings import finishing_places, ratings
from sim.league.spec import LeagueSpec, load_league, table_key
from sim.runs.cluster import dask_client
from sim.runs.experiment import ArmSpec, ExperimentSpec, canonical_strategy
from sim.runs.runner import check_run_options, check_stored_games, run_experiment
from sim.runs.storage import load_results, read_manifest
from sim.runs.workers import usable_cpus

LEAGUE_FILE = "league.json"
FORMAT = 1
_ROUND = re.compile(r"round-(\d{3,})")
#: Settings a league folder is bound to: a change would mix games of different leagues.
BOUND = ("rules", "overrides", "seed", "games")


@dataclass
class LeagueResult:
    """A played league: its folder, spec, the games played by this call and the ratings."""

    out: Path
    spec: LeagueSpec
    games_played: int
    games_total: int
    tables: int
    leaderboard: pd.DataFrame = field(repr=False)
    rounds: list[Path] = field(default_factory=list)
    forfeits: dict[str, int] = field(default_factory=dict)  # games lost by a player's fault


def league_dir(spec: LeagueSpec, out: str | Path | None) -> Path:
    """Where the league lives: ``out`` or ``results/<name>``."""
    return Path(out) if out is not None else Path("results") / spec.name


def _rounds(out: Path) -> list[tuple[Path, dict[str, Any] | None]]:
    """The round folders of a league in order, with their manifests (None: not started)."""
    if not out.is_dir():
        return []
    found = sorted((int(m.group(1)), p) for p in out.iterdir()
                   if p.is_dir() and (m := _ROUND.fullmatch(p.name)))
    return [(p, read_manifest(p)) for _, p in found]


def _check_folder(out: Path, spec: LeagueSpec) -> None:
    """Refuse a folder that holds anything but this league (same bound settings)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ValueError(f"{out} is not a directory: expected a league folder")
    path = out / LEAGUE_FILE
    if not path.exists():
        if any(out.iterdir()):
            raise ValueError(f"{out} is not empty and holds no league ({LEAGUE_FILE}): choose "
                             "a new or empty folder (--out DIR)")
        return
    try:
        stored = json.loads(path.read_text())
        stored["settings"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{path} is unreadable: not a league folder written by ginbox") from None
    mine = _settings(spec)
    diff = [f"{k}: {stored['settings'].get(k)!r} there, {mine[k]!r} now" for k in BOUND
            if stored["settings"].get(k) != mine[k]]
    if diff:
        raise ValueError(f"{out} holds league {stored.get('name')!r} played with other "
                         f"settings ({'; '.join(diff)}): its games cannot be mixed; choose "
                         "another folder (--out DIR)")


def _settings(spec: LeagueSpec) -> dict[str, Any]:
    return {"rules": spec.rules, "overrides": dict(sorted(spec.overrides.items())),
            "seed": spec.seed, "games": spec.games}


def _round_spec(spec: LeagueSpec, number: int, tables: list[tuple[str, ...]]) -> ExperimentSpec:
    arms = []
    for i, seats in enumerate(tables):
        label = " vs ".join(seats)
        arms.append(ArmSpec(name=label if len(label) <= 90 else f"table {i}",
                            strategies=seats, rules=spec.rules,
                            overrides=dict(spec.overrides), seating="rotate"))
    names = [a.name for a in arms]
    if len(set(names)) != len(names):  # two long labels cut alike: number them all
        arms = [ArmSpec(name=f"table {i}", strategies=a.strategies, rules=a.rules,
                        overrides=dict(a.overrides), seating="rotate")
                for i, a in enumerate(arms)]
    return ExperimentSpec(name=f"{spec.name}-round-{number:03d}", seed=spec.seed,
                          games=spec.games, arms=tuple(arms),
                          chunk_size=min(spec.chunk_size, spec.games),
                          description=f"league {spec.name}, round {number}")


def plan(spec: LeagueSpec, out: str | Path | None = None) -> dict[str, Any]:
    """What :func:`run_league` would do: rounds to finish, new tables, games to play."""
    out = league_dir(spec, out)
    _check_folder(out, spec)
    played: set[tuple[str, ...]] = set()
    unfinished, todo_games = [], 0
    for path, manifest in _rounds(out):
        if manifest is None:
            continue
        for arm in manifest["arms"]:
            played.add(table_key(arm["strategies"]))
        done = sum(c.get("status") == "done" and (path / c["file"]).exists()
                   for c in manifest["chunks"])
        if done < len(manifest["chunks"]):
            unfinished.append(path)
            todo_games += sum(c["games"] for c in manifest["chunks"]
                              if not (c.get("status") == "done" and (path / c["file"]).exists()))
    new = [t for t in spec.tables() if table_key(t) not in played]
    return {"out": out, "unfinished": unfinished, "new_tables": new,
            "games_to_play": todo_games + len(new) * spec.games}


def run_league(source: LeagueSpec | str | Path | dict[str, Any], *, games: int | None = None,
               seed: int | None = None, jobs: int | None = None, backend: str = "loky",
               scheduler: Any = None, out: str | Path | None = None, quiet: bool = False,
               bootstrap: int | None = None, if_cluster_lost: str = "stop") -> LeagueResult:
    """Play what a league still needs and rate it; returns a :class:`LeagueResult`.

    Writes the leaderboard (``leaderboard.csv``, ``leaderboard.md``, ``ratings.png``) into
    the league's folder. Continues whatever is in the folder (``out``, default
    ``results/<name>``): unfinished rounds are resumed, tables not played yet form a new
    round, finished tables are not played again. ``games``, ``seed`` and ``bootstrap``
    override the file's; a folder played with other rules, seed or games is refused.
    ``jobs``, ``backend``, ``scheduler`` and ``if_cluster_lost`` are those of
    :func:`sim.runs.runner.run_experiment` (one Dask client serves every round). Bad input
    raises ``ValueError`` (one line) before anything is written.
    """
    spec = load_league(source)
    changes = {k: v for k, v in (("games", games), ("seed", seed), ("bootstrap", bootstrap))
               if v is not None}
    if changes:
        spec = spec.replace(**changes)
    todo = plan(spec, out)
    out = Path(todo["out"])
    rounds = _rounds(out)
    for path, manifest in rounds:  # a finished table is reused only if it still replays
        if manifest is not None and path not in todo["unfinished"]:
            try:
                check_stored_games(path)
            except ValueError:
                raise ValueError(f"cannot reuse {path}: its stored games do not replay (a "
                                 "strategy's play or the engine changed since it was played); "
                                 "start the league over in a new folder (--out DIR)") from None
    new_spec = None
    if todo["new_tables"]:
        # _rounds lists only the folders whose names _ROUND matches
        number = max((int(_ROUND.fullmatch(p.name).group(1)) + 1  # type: ignore[union-attr]
                      for p, m in rounds if m is not None), default=0)
        new_spec = _round_spec(spec, number, todo["new_tables"])
    check_run_options(jobs, backend, scheduler, if_cluster_lost)  # before the folder exists
    with contextlib.ExitStack() as stack:
        if backend == "dask":  # reached (or refused) before the league folder is written
            scheduler = stack.enter_context(dask_client(scheduler, jobs or usable_cpus()))
        options = {"jobs": jobs, "backend": backend, "scheduler": scheduler, "quiet": quiet,
                   "if_cluster_lost": if_cluster_lost}
        played = _play_rounds(spec, out, todo, new_spec, options)
    results = league_games(spec, out)
    board = rate(spec, out, results)
    write(spec, board, out)
    total = len(spec.tables()) * spec.games
    faults = results.loc[results["forfeit"] != "", "forfeit"].value_counts()
    return LeagueResult(out=out, spec=spec, games_played=played, games_total=total,
                        tables=len(spec.tables()), leaderboard=board,
                        rounds=[p for p, m in _rounds(out) if m is not None],
                        forfeits={str(k): int(v) for k, v in faults.items()})


def _play_rounds(spec: LeagueSpec, out: Path, todo: dict[str, Any],
                 new_spec: ExperimentSpec | None, options: dict[str, Any]) -> int:
    """Finish the unfinished rounds, then play the new one; the games this call played."""
    out.mkdir(parents=True, exist_ok=True)
    if not (out / LEAGUE_FILE).exists():
        _write_league_file(out, spec)
    played = 0
    for path in todo["unfinished"]:
        manifest = read_manifest(path)
        assert manifest is not None, "plan() lists only rounds with a readable manifest"
        result = run_experiment(manifest["spec"], out=path, resume=True, **options)
        played += _session_games(result.manifest)
    if new_spec is not None:
        path = out / f"round-{int(new_spec.name.rsplit('-', 1)[1]):03d}"
        result = run_experiment(new_spec, out=path, **options)
        played += _session_games(result.manifest)
    _write_league_file(out, spec)
    return played


def _session_games(manifest: dict[str, Any]) -> int:
    session = (manifest.get("sessions") or [{}])[-1]
    return int(session.get("games") or 0)


def _write_league_file(out: Path, spec: LeagueSpec) -> None:
    data = {"format": FORMAT, "name": spec.name, "settings": _settings(spec),
            "strategies": list(spec.strategies), "anchor": spec.anchor,
            "tables": [list(t) for t in spec.tables()]}
    atomic_write_text(out / LEAGUE_FILE, json.dumps(data, indent=2) + "\n")


def league_games(spec: LeagueSpec, out: str | Path | None = None) -> pd.DataFrame:
    """Finishing places of every game at the league's current tables, from its rounds.

    Columns: ``table`` (seat strategies joined by `` vs ``), ``deal`` (the game number: the
    same decks at every table), ``strategy_<s>`` (the league's own texts), ``place_<s>`` and
    ``forfeit`` (the strategy whose outside player's fault ended the game, else ``""``).
    Tables of strategies no longer in the league are left out; a table in two rounds (it
    cannot be, but a hand-copied folder could) counts once.
    """
    out = league_dir(spec, out)
    current = {canonical_strategy(s): s for s in spec.strategies}
    wanted = {table_key(t) for t in spec.tables()}
    frames, seen = [], set()
    for path, manifest in _rounds(out):
        if manifest is None:
            continue
        result = load_results(path)
        columns = ["arm", "game", "winner", "score_0", "score_1", "score_2", "error"]
        games = result.read_games(columns)
        for arm in manifest["arms"]:
            key = table_key(arm["strategies"])
            if key not in wanted or key in seen:
                continue
            seen.add(key)
            rows = games[games["arm"] == arm["index"]]
            seats = [current[canonical_strategy(s)] for s in arm["strategies"]]
            scores = rows[["score_0", "score_1", "score_2"]].to_numpy(np.float64, copy=True)
            scores[:, len(seats):] = np.nan
            places = finishing_places(rows["winner"].to_numpy(np.int64), scores)
            offender = rows["error"].to_numpy(np.int64) - 1  # -1: no player's fault
            frame = pd.DataFrame({"table": " vs ".join(seats),
                                  "deal": rows["game"].to_numpy(np.int64),
                                  "forfeit": [seats[s] if s >= 0 else "" for s in offender]})
            for s in range(3):
                frame[f"strategy_{s}"] = seats[s] if s < len(seats) else None
                frame[f"place_{s}"] = places[:, s]
            frames.append(frame)
    if len(seen) < len(wanted):
        raise ValueError(f"the league in {out} has not played {len(wanted) - len(seen)} of its "
                         f"{len(wanted)} tables: run it (ginbox league FILE) first")
    return pd.concat(frames, ignore_index=True)


def rate(spec: LeagueSpec, out: str | Path | None = None,
         games: pd.DataFrame | None = None) -> pd.DataFrame:
    """The leaderboard of a played league (:func:`sim.league.ratings.ratings`); ``games``:
    its :func:`league_games`, when already read."""
    games = league_games(spec, out) if games is None else games
    return ratings(games, strategies=list(spec.strategies),
                   anchor=spec.strategies[[canonical_strategy(s) for s in spec.strategies]
                                          .index(spec.anchor_canonical)],
                   bootstrap=spec.bootstrap, seed=spec.seed)
