"""A conformance harness for strategies: run yours through it before trusting its results.

:func:`check_strategy` plays a strategy (a built-in name with parameters, a Python strategy
class or object, or a compiled decision function or registry record) under every rules preset
and checks that

* every move it makes is legal, at every decision (offer, draw, knock, discard) and in every
  role: the box and the captain of three-handed play, the sitter advising the captain under
  ``team_policy="advisor"``, both players of two-handed play; and that it met each decision
  and each role at least once;
* it is deterministic: the same seed gives the identical hand log;
* a registered built-in plays the same games in the compiled batch loop as through the
  Python driver;
* where it has a Python twin (a built-in's registry entry names one, or pass ``twin=``), the
  twin gives the identical hand log.

A failure raises :class:`AssertionError` naming the strategy, the rules, the lineup, and the
decision and role at fault. A few games per preset keep it to seconds::

    from sim.testing import check_strategy
    check_strategy("greedy-knock:knock_at=3")
    check_strategy(MyBot)            # a class: one fresh object per seat and run

The test suite runs it over every registered built-in (``tests/test_conformance.py``).
"""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.engine.hand import DEC_DISCARD, DEC_DRAW, DEC_KNOCK, DEC_OFFER
from sim.engine.rules import PRESETS, Rules
from sim.play.driver import GameDriver, Seeds, StrategyError, iter_games
from strategies.registry import StrategyInfo, StrategySpec, parse_strategy

__all__ = ["CheckReport", "check_strategy"]

DECISION_NAMES = {DEC_OFFER: "offer", DEC_DRAW: "draw", DEC_KNOCK: "knock",
                  DEC_DISCARD: "discard"}
ROLES_3 = ("box", "captain", "advisor")
ROLES_2 = ("dealer", "non-dealer")


@dataclass
class CheckReport:
    """What :func:`check_strategy` played: decisions met, by role and decision."""

    strategy: str
    presets: tuple[str, ...]
    games: int = 0
    hands: int = 0
    decisions: dict[str, dict[str, int]] = field(default_factory=dict)
    checks: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        presets = f"{len(self.presets)} preset" + ("s" if len(self.presets) != 1 else "")
        return (f"{self.strategy}: {self.games} games, {self.hands} hands under {presets}; "
                f"passed: {', '.join(self.checks)}")


class _Subject:
    """The strategy under test: fresh seat entries on demand, and what else applies to it."""

    def __init__(self, strategy: Any, twin: Any) -> None:
        self.original = strategy
        self.spec: StrategySpec | None = None
        if isinstance(strategy, type):  # a Python class: one fresh object per seat
            self.name = str(getattr(strategy, "name", strategy.__name__))
            self.make: Callable[[], Any] = strategy
        elif isinstance(strategy, str | StrategyInfo) or hasattr(strategy, "py_func"):
            spec = parse_strategy(strategy)
            self.spec = spec
            self.name = spec.text
            if spec.factory is not None and not hasattr(spec.factory, "create_player"):
                self.make = spec.make  # a Python class by import path
            else:  # compiled or outside: the spec itself goes in every seat
                self.make = lambda: spec
        else:  # a Python object: a deep copy per seat, so runs start from the same state
            parse_strategy(strategy)  # refuses objects lacking the protocol
            self.name = str(getattr(strategy, "name", type(strategy).__name__))
            self.make = lambda: copy.deepcopy(strategy)
        self.registered = self.spec is not None and self.spec.compiled
        self.twin = _twin_factory(twin, self.spec)


def _twin_factory(twin: Any, spec: StrategySpec | None) -> Callable[[], Any] | None:
    params: dict[str, Any] = {}
    if twin is None and spec is not None and spec.info is not None and spec.info.twin:
        twin, params = spec.info.twin, dict(spec.params)
    if twin is None:
        return None
    if isinstance(twin, str):
        module, _, attr = twin.partition(":")
        twin = getattr(importlib.import_module(module), attr)
    if isinstance(twin, type) or callable(twin) and not hasattr(twin, "take_upcard"):
        factory = twin
        return lambda: factory(**params)
    return lambda: copy.deepcopy(twin)


@dataclass
class _Lineup:
    label: str
    rules: Rules
    seats: tuple[bool, ...]  # True where the subject sits; the others play "random"
    rotate: bool = False


def _lineups(preset: str) -> list[_Lineup]:
    rules = Rules.preset(preset)
    if rules.players == 2:
        return [_Lineup("self-play", rules, (True, True)),
                _Lineup("against random", rules, (True, False), rotate=True)]
    advisor = rules.replace(team_policy="advisor")
    return [_Lineup("self-play", rules, (True, True, True)),
            _Lineup("self-play, team_policy='advisor'", advisor, (True, True, True)),
            _Lineup("against random", rules, (True, False, False), rotate=True)]


def _log_lines(records: Sequence[Mapping[str, Any]], drop_seats: bool) -> list[str]:
    return [json.dumps({k: v for k, v in r.items() if not (drop_seats and k == "seats")},
                       sort_keys=True) for r in records]


def check_strategy(strategy: Any, *, presets: Sequence[str] = PRESETS, games: int = 2,
                   seed: int = 0, twin: Any = None) -> CheckReport:
    """Check that ``strategy`` plays legally, in every role, deterministically (see the module
    docstring); return what it played. Raises AssertionError on the first failure.

    ``strategy``: a built-in name (``"gin-hunter:tiny=1"``), an import path
    (``"mybot:MyBot"``), a Python strategy class or object, a compiled decision function of
    the shared signature, or a ``strategies.registry.StrategyInfo`` record. ``twin``: a Python
    strategy (class, object or import path) that must play identically; a built-in's registry
    entry may name one. ``games`` per lineup: each preset plays self-play, (three-handed)
    self-play under ``team_policy="advisor"``, and one seat against ``random``.
    """
    subject = _Subject(strategy, twin)
    presets = tuple(presets)
    report = CheckReport(subject.name, presets)
    seeds = Seeds.from_seed(seed)
    roles_needed: set[str] = set()
    for preset in presets:
        for lineup in _lineups(preset):
            roles_needed.update(ROLES_2 if lineup.rules.players == 2 else
                                ROLES_3 if lineup.rules.team_policy == "advisor" else
                                ROLES_3[:2])
            where = f"{subject.name!r} under {preset} rules, {lineup.label}"
            rows, log = _play(subject, lineup, games, seeds, where, report, subject.make)
            report.games += len(rows)
            report.hands += len(log)
            again, log_again = _play(subject, lineup, games, seeds, where, None, subject.make)
            if log_again != log or not np.array_equal(again, rows):
                raise AssertionError(f"{where}: not deterministic: the same seed gave a "
                                     f"different hand log{_first_difference(log, log_again)}")
            if subject.registered:
                batch = _batch(subject, lineup, games, seeds, where)
                if not np.array_equal(batch, rows):
                    raise AssertionError(f"{where}: the compiled batch loop played different "
                                         "games than the Python driver")
            if subject.twin is not None:
                twin_rows, twin_log = _play(subject, lineup, games, seeds, where + " (twin)",
                                            None, subject.twin)
                mine = _log_lines_of(log, drop_seats=True)
                theirs = _log_lines_of(twin_log, drop_seats=True)
                if mine != theirs or not np.array_equal(twin_rows, rows):
                    raise AssertionError(f"{where}: its Python twin plays differently"
                                         f"{_first_difference(mine, theirs)}")
    _check_coverage(report, roles_needed)
    report.checks = ["legal moves in every decision and role", "deterministic"]
    if subject.registered:
        report.checks.append("batch loop = driver")
    if subject.twin is not None:
        report.checks.append("identical to its Python twin")
    return report


def _log_lines_of(log: list[str], drop_seats: bool) -> list[str]:
    if not drop_seats:
        return log
    return _log_lines([json.loads(line) for line in log], drop_seats=True)


def _first_difference(a: list[str], b: list[str]) -> str:
    for x, y in zip(a, b, strict=False):
        if x != y:
            record = json.loads(x)
            return f" (first in game {record['game']}, hand {record['hand']})"
    return f" ({len(a)} hands against {len(b)})" if len(a) != len(b) else ""


def _play(subject: _Subject, lineup: _Lineup, games: int, seeds: Seeds, where: str,
          report: CheckReport | None, make: Callable[[], Any]) -> tuple[np.ndarray, list[str]]:
    """Play the lineup through the Python driver with a hand log; count the subject's
    decisions into ``report``; turn an illegal move into an AssertionError."""
    lineup_seats = [make() if mine else "random" for mine in lineup.seats]
    mine = {s for s, is_mine in enumerate(lineup.seats) if is_mine}
    last: list[str] = ["", ""]
    two = lineup.rules.players == 2

    def on_decision(seat: int, hand_player: int, decision: int, advised: bool) -> None:
        if seat not in mine:
            last[:] = ["", ""]
            return
        role = (ROLES_2[hand_player] if two else
                "advisor" if advised else ROLES_3[hand_player])
        name = DECISION_NAMES[decision]
        last[:] = [name, role]
        if report is not None:
            counts = report.decisions.setdefault(role, {})
            counts[name] = counts.get(name, 0) + 1

    driver = GameDriver(lineup.rules, lineup_seats, seeds, log=True, rotate=lineup.rotate,
                        on_decision=on_decision)
    rows, log = [], []
    for g in range(games):
        try:
            row, records = driver.play(g)
        except StrategyError as exc:
            at = f" at the {last[0]} decision as {last[1]}" if last[0] else ""
            raise AssertionError(f"{where}{at}: {exc}") from exc
        ended = next((r["ended_by"] for r in records if "ended_by" in r), None)
        if ended is not None and ended["seat"] in mine:  # an outside player's fault
            raise AssertionError(f"{where}: seat {ended['seat']} forfeited game {g}: "
                                 f"{ended['reason']}")
        rows.append(row)
        log.extend(_log_lines(records, drop_seats=False))
    return np.array(rows), log


def _batch(subject: _Subject, lineup: _Lineup, games: int, seeds: Seeds,
           where: str) -> np.ndarray:
    specs = [subject.make() if mine else "random" for mine in lineup.seats]
    try:
        rows = [out for out, _ in iter_games(lineup.rules, specs, games, seeds,
                                              rotate=lineup.rotate)]
    except StrategyError as exc:
        raise AssertionError(f"{where}, compiled batch loop: {exc}") from exc
    return np.concatenate(rows)


def _check_coverage(report: CheckReport, roles_needed: set[str]) -> None:
    met_roles = {role for role, counts in report.decisions.items() if sum(counts.values())}
    missing = sorted(roles_needed - met_roles)
    if missing:
        raise AssertionError(f"{report.strategy!r} never decided as {', '.join(missing)}: "
                             "play more games")
    met = {d for counts in report.decisions.values() for d in counts}
    missing = [d for d in DECISION_NAMES.values() if d not in met]
    if missing:
        raise AssertionError(f"{report.strategy!r} was never asked to {', '.join(missing)} in "
                             f"{report.games} games: play more games")
