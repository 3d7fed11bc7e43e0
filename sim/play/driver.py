"""Playing games from Python: any mix of built-in and user strategies, with hand logs.

:func:`play_games` is the entry point. When every seat is a compiled built-in and no log is
wanted it hands whole batches to the compiled kernel; otherwise :class:`GameDriver` plays each
game as a :class:`sim.play.state.GameState` (the same rule kernels and seat step), asking user
strategies for the decisions it stops at. Both give identical games for the same seed.
"""

from __future__ import annotations

import functools
import math
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import numpy as np
import pandas as pd

from sim.engine.cards import parse_cards
from sim.engine.game import GAME_COLUMNS, GO_ERROR, GO_LEN, GO_SCORE
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.variants import VARIANTS, played_by
from sim.engine.view import View
from sim.play.batch import play_batch_kernel
from sim.play.events import IllegalMove
from sim.play.events import StrategyError as StrategyError
from sim.play.outside import OutsideTable, SeatFault, forfeit
from sim.play.seating import Lineup
from sim.play.seating import Seeds as Seeds
from sim.play.seating import check_seed as check_seed
from sim.play.state import GameListener, GameState
from sim.records.log import hand_record as hand_record  # its home since 0.1: sim.records.log
from sim.records.schema import HandRecord
from strategies.outside import OutsidePlayer
from strategies.registry import (
    StrategySpec,
    build_strategy,
    canonical_strategy,
    check_no_person,
    parse_strategies,
    resolve,
)

#: The most games one call may play: game numbers are 64-bit signed integers in the compiled
#: code and index the seed streams, so no run can go past them.
MAX_GAMES = 2**63 - 1


class _DecisionTimeout(BaseException):
    """Raised by the SIGALRM handler inside a strategy call that overran its time."""


class DecisionTimer:
    """A per-decision time limit for Python strategies, by ``signal.setitimer`` (Unix only).

    An alarm is the only way to stop a strategy stuck in a loop or a blocking call without
    giving it its own process; so it works in the main thread only, where Python runs signal
    handlers. The previous SIGALRM handler is restored by :meth:`close`.
    """

    def __init__(self, seconds: float) -> None:
        if not hasattr(signal, "setitimer"):
            raise ValueError("decision_timeout needs signal.setitimer, which this platform "
                             "lacks (it is Unix only)")
        if threading.current_thread() is not threading.main_thread():
            raise ValueError("decision_timeout works only in the main thread (it uses "
                             "SIGALRM)")
        self.seconds = seconds
        self._armed = False
        self._previous = signal.signal(signal.SIGALRM, self._alarm)

    def _alarm(self, signum: int, frame: FrameType | None) -> None:
        if self._armed:  # a late alarm after the strategy answered is ignored
            self._armed = False
            raise _DecisionTimeout

    def call(self, fn: Callable[[], Any]) -> Any:
        """``fn()``, interrupted by :class:`_DecisionTimeout` after ``seconds``."""
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            return fn()
        finally:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)

    def close(self) -> None:
        """Disarm and give SIGALRM back to its previous handler."""
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous)


def check_games(games: object, low: int = 0) -> int:
    """``games`` if it is an integer ``low..MAX_GAMES``; a clear TypeError or ValueError."""
    accepted = f"an integer {low}..{MAX_GAMES}"
    if isinstance(games, bool) or not isinstance(games, int | np.integer):
        raise TypeError(f"games={games!r} is not an integer: expected {accepted}")
    if not low <= games <= MAX_GAMES:
        raise ValueError(f"games={games!r} is out of range: expected {accepted}")
    return int(games)


def check_timeout(seconds: object) -> float | None:
    """A per-decision limit: None (no limit) or a finite number of seconds > 0."""
    if seconds is None:
        return None
    accepted = "expected a number of seconds > 0, or None"
    if isinstance(seconds, bool) or not isinstance(seconds, int | float | np.integer |
                                                   np.floating):
        raise TypeError(f"decision_timeout={seconds!r} is not a number: {accepted}")
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"decision_timeout={seconds!r} is out of range: {accepted}")
    return float(seconds)


def _as_specs(strategies: Sequence[Any] | str) -> list[StrategySpec]:
    """The strategies as specs: parsed here unless the caller (``play_games``) already did."""
    if not isinstance(strategies, str) and all(isinstance(s, StrategySpec) for s in strategies):
        return list(strategies)
    return parse_strategies(strategies if isinstance(strategies, str) else list(strategies))


def _check_seats(rules: Rules, specs: Sequence[StrategySpec]) -> None:
    if len(specs) != rules.players:
        raise ValueError(
            f"{rules.players_text()}: got {len(specs)} strategies"
        )
    check_no_person(specs, batch=False)  # a person's seat needs someone to answer it


def strategy_answer(player: Any, decision: int, view: View) -> Any:
    """Ask a plain-Python strategy the method of ``decision``: the engine move it answers
    (``MOVE_*``), or at a discard the card as the strategy gave it (code or text)."""
    if decision == DEC_OFFER:
        return MOVE_DRAW_DISCARD if player.take_upcard(view) else MOVE_PASS
    if decision == DEC_DRAW:
        return MOVE_DRAW_DISCARD if player.draw_from_discard(view) else MOVE_DRAW_STOCK
    if decision == DEC_KNOCK:
        return MOVE_KNOCK if player.knock(view) else MOVE_NO_KNOCK
    assert decision == DEC_DISCARD
    return player.discard(view)


class _DecisionWatch(GameListener):
    """Tells a driver's ``on_decision`` of every decision, the built-ins' too."""

    def __init__(self, on_decision: Callable[[int, int, int, bool], None]) -> None:
        self.on_decision = on_decision

    def deciding(self, state: GameState) -> None:
        seat, player = state.seat, state.hand_player
        assert seat is not None and player is not None
        self.on_decision(seat, player, state.decision_code, state.advised)


class GameDriver:
    """Plays one game at a time from Python: a :class:`sim.play.state.GameState` that asks the
    user strategies for the decisions it stops at (the built-ins play inside it).

    ``strategies`` are parsed specs (as :func:`iter_games` passes them) or anything
    ``parse_strategies`` accepts; specs are used as given, not parsed again.
    """

    def __init__(self, rules: Rules, strategies: Sequence[Any], seeds: Seeds,
                 log: bool = False, rotate: bool = False,
                 on_decision: Callable[[int, int, int, bool], None] | None = None,
                 timer: DecisionTimer | None = None) -> None:
        """``on_decision(seat, hand_player, decision, advised)``, if given, is called at each
        decision before its move is played (and before a Python strategy is asked);
        ``advised``: the seat decides for another (the advisor).
        :mod:`sim.testing` uses it to see which decisions and roles a strategy met.
        ``timer`` limits each decision of a Python strategy (see :class:`DecisionTimer`)."""
        self.rules = rules
        self.specs = resolve(_as_specs(strategies), rules)
        _check_seats(rules, self.specs)
        self.seeds = seeds
        self.log = log
        self.rotate = rotate
        self.on_decision = on_decision
        self.timer = timer
        self._where = (0, 0)
        self._started: set[tuple[int, int | None]] = set()
        self.lineup = Lineup.of(rules, self.specs)
        self._listener = _DecisionWatch(on_decision) if on_decision is not None else None
        self.players = [None if s.compiled or s.kernel is not None else build_strategy(s, seat)
                        for seat, s in enumerate(self.specs)]
        outside = {seat: p for seat, p in enumerate(self.players)
                   if isinstance(p, OutsidePlayer)}
        self.table = (OutsideTable(rules, outside, self.lineup.names, self._listener)
                      if outside else None)
        objects = [id(p) for p in self.players if p is not None]
        if len(objects) != len(set(objects)):
            raise ValueError("the same strategy object sits in two seats, so it would see both "
                             "players' cards: pass one object per seat")

    def play(self, game: int) -> tuple[np.ndarray, list[HandRecord]]:
        """Play game number ``game``: its statistics row and (when logging) its hand records.

        The game is a :class:`~sim.play.state.GameState` (every decision through the seat
        step, as in the batch loop); the seats it stops at are asked here. A game with outside
        players ends as a forfeit when one of them fails (:mod:`sim.play.outside`)."""
        if self.table is not None:
            return self._play_with_outside(game, self.table)
        self._started.clear()
        state = GameState(self.rules, self.lineup, seed=self.seeds, game=game, log=self.log,
                          rotation=game if self.rotate else None, listener=self._listener)
        while state.waiting:
            self._ask_python(state, game)
        return state.stats_row, state.records

    def _play_with_outside(self, game: int, table: OutsideTable,
                           ) -> tuple[np.ndarray, list[HandRecord]]:
        """:meth:`play` with outside players at the table (told every event by ``table``)."""
        self._started.clear()
        try:
            table.begin_game(game, int(stream_seed(self.seeds.strategy, game)))
            state = GameState(self.rules, self.lineup, seed=self.seeds, game=game,
                              log=self.log, rotation=game if self.rotate else None,
                              listener=table)
            while state.waiting:
                if state.seat in table.players:
                    state.play(table.decide(state))
                else:
                    self._ask_python(state, game)
            result = state.result
            assert result is not None
            table.end_game(result.winner, result.scores)
            return state.stats_row, state.records
        except SeatFault as fault:
            row, records, winner = forfeit(table.state, self.rules, self.lineup.names, game,
                                           fault)
            try:
                table.end_game(winner, [int(s) for s in row[GO_SCORE:GO_SCORE + 3]],
                               {"seat": fault.seat, "reason": fault.reason})
            except SeatFault:
                pass  # that program is stopped, and its next game starts it again
            return row, records if self.log else []

    def _ask_python(self, state: GameState, game: int) -> None:
        """Ask the Python strategy whose decision waits, and play its move."""
        seat = state.seat
        assert seat is not None
        player = self.players[seat]
        assert player is not None, "the state stops only at Python seats"
        self._where = (game, state.hand)
        view = state.view()
        if (state.hand, state.hand_player) not in self._started and hasattr(player,
                                                                          "start_hand"):
            self._timed(seat, functools.partial(player.start_hand, view))
        self._started.add((state.hand, state.hand_player))
        move = self._ask(player, seat, state.decision_code, view)
        try:
            state.play(move)
        except IllegalMove as exc:
            raise StrategyError(
                f"strategy {self.specs[seat].text!r} (seat {seat}) made an illegal "
                f"move in game {game}, hand {state.hand}: {exc.reason}") from None

    def _timed(self, seat: int, fn: Callable[[], Any]) -> Any:
        """``fn()`` under the decision time limit, if any."""
        if self.timer is None:
            return fn()
        try:
            return self.timer.call(fn)
        except _DecisionTimeout:
            game, hand = self._where
            raise StrategyError(
                f"strategy {self.specs[seat].text!r} (seat {seat}) did not decide within "
                f"{self.timer.seconds:g} s (--decision-timeout) in game {game}, hand {hand}"
            ) from None

    def _decide(self, player: Any, decision: int, view: View) -> Any:
        return strategy_answer(player, decision, view)

    def _ask(self, player: Any, seat: int, decision: int, view: View) -> int:
        try:
            answer = self._timed(seat, lambda: self._decide(player, decision, view))
            if decision != DEC_DISCARD:
                return int(answer)
            card = answer
        except StrategyError:
            raise
        except Exception as exc:
            raise StrategyError(
                f"strategy {self.specs[seat].text!r} (seat {seat}) raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        try:
            return parse_cards([card])[0]
        except ValueError as exc:
            raise StrategyError(
                f"strategy {self.specs[seat].text!r} (seat {seat}) discarded {card!r}: {exc}"
            ) from None


class GameTally:
    """Running totals of the per-game rows: what :meth:`PlayResult.summary` and
    :meth:`PlayResult.outcomes` need, in memory that does not grow with the number of games
    (``ginbox play --games 10**12`` keeps no rows)."""

    _SUMS = ("hands", "knocks", "gins", "undercuts", "draws", "turn_limits")

    def __init__(self, players: int) -> None:
        self.players = players
        self.games = 0
        self.wins = [0] * players
        self.hands_won = [0] * players
        self.points = [0] * players
        self.final_points = [0] * players  # with the end-of-game bonuses
        self.games_won = [0] * players  # games of a match won (the games_won_<s> columns)
        self.forfeits = [0] * players  # games lost by the seat's fault (an outside player's)
        self.sums = dict.fromkeys(self._SUMS, 0)
        self._cols = {c: GAME_COLUMNS.index(c) for c in
                      (*self._SUMS, "winner",
                       *(f"{p}_{s}" for p in ("hands_won", "score", "final", "games_won")
                         for s in range(players)))}

    def seat_totals(self, statistic: str) -> list[int]:
        """Per seat, the sum over games of a per-seat column (``final`` for ``final_<s>``):
        what a rules variant adds to the summary (``Variant.summary_columns``)."""
        return {"hands_won": self.hands_won, "score": self.points, "final": self.final_points,
                "games_won": self.games_won}[statistic]

    def add(self, rows: np.ndarray) -> None:
        """Count a batch of per-game rows (``GAME_COLUMNS``)."""
        c = self._cols
        self.games += len(rows)
        winners = rows[:, c["winner"]]
        for s in range(self.players):
            self.wins[s] += int((winners == s).sum())
            self.hands_won[s] += int(rows[:, c[f"hands_won_{s}"]].sum())
            self.points[s] += int(rows[:, c[f"score_{s}"]].sum())
            self.final_points[s] += int(rows[:, c[f"final_{s}"]].sum())
            self.games_won[s] += int(rows[:, c[f"games_won_{s}"]].sum())
        for key in self._SUMS:
            self.sums[key] += int(rows[:, c[key]].sum())
        for s, n in enumerate(np.bincount(rows[:, GO_ERROR], minlength=self.players + 1)[1:]):
            if s < self.players:
                self.forfeits[s] += int(n)


def strategy_label(text: str) -> str:
    """How a report names a seat's strategy: its canonical text (``Simple`` and ``simple``
    read ``simple``, ``greedy`` reads ``greedy-knock``); a strategy object's own name."""
    try:
        return canonical_strategy(text)
    except ValueError:  # a strategy object passed by value: its name is all there is
        return text


@dataclass
class PlayResult:
    """Games played by :func:`play_games`: one row per game (None when the call asked for
    ``keep_games=False``), the hand log if asked, and running totals of every game."""

    rules: Rules
    strategies: list[str]
    games: pd.DataFrame | None
    log: list[HandRecord] | None
    tally: GameTally | None = field(default=None, repr=False)
    labels: list[str] | None = field(default=None, repr=False)  # canonical names, if parsed

    @property
    def n_games(self) -> int:
        """How many games were played."""
        if self.tally is not None:
            return self.tally.games
        assert self.games is not None, "a result holds its tally or its games"
        return len(self.games)

    def _totals(self) -> GameTally:
        if self.tally is None:  # built by hand from a frame: count it now
            assert self.games is not None
            tally = GameTally(len(self.strategies))
            tally.add(self.games.reindex(columns=GAME_COLUMNS, fill_value=0).to_numpy())
            self.tally = tally
        return self.tally

    def summary(self) -> pd.DataFrame:
        """Games won per seat and strategy (its :func:`strategy_label`), with hands and hand
        outcomes.

        ``forfeits`` (only when a game ended so) counts the games each seat lost by its
        outside player's fault (those games are in ``games_won`` of the seat awarded them).

        Under Hollywood scoring a game is a match of three: ``games_won`` and ``win_rate``
        count matches, and two columns are added, ``hollywood_games_won`` (games of the three
        won, over all matches) and ``final_points`` (match totals with every bonus).
        """
        t = self._totals()
        variants = played_by(self.rules)
        rows = []
        labels = self.labels or [strategy_label(name) for name in self.strategies]
        for seat, label in enumerate(labels):
            row = {
                "seat": seat,
                "strategy": label,
                "games_won": t.wins[seat],
                "win_rate": t.wins[seat] / t.games if t.games else float("nan"),
                "hands_won": t.hands_won[seat],
                "points": t.points[seat],
            }
            for variant in variants:  # the columns each variant played adds
                for column, statistic in variant.summary_columns:
                    row[column] = t.seat_totals(statistic)[seat]
            if any(t.forfeits):  # games a seat's fault ended, counted apart
                row["forfeits"] = t.forfeits[seat]
            rows.append(row)
        return pd.DataFrame(rows)

    def outcomes(self) -> dict[str, int]:
        """Hand outcome counts over all games."""
        s = self._totals().sums
        return {"hands": s["hands"], "knock": s["knocks"], "gin": s["gins"],
                "undercut": s["undercuts"], "draw": s["draws"], "turn_limit": s["turn_limits"]}


def iter_games(rules: Rules, strategies: Sequence[Any], games: int, seeds: Seeds, *,
               first_game: int = 0, log: bool = False, batch: int = 1000,
               rotate: bool = False, timer: DecisionTimer | None = None,
               ) -> Iterator[tuple[np.ndarray, list[HandRecord]]]:
    """Yield (statistics rows, hand records) batch by batch, compiled when possible.

    Game ``g`` is the same game whatever the batching: its streams derive from ``seeds``
    and ``g`` alone. ``rotate`` seats games by the rotation instead of the rules' draw.
    ``strategies`` are parsed specs (as :func:`play_games` passes them) or anything
    ``parse_strategies`` accepts; specs are used as given, not parsed again. ``timer`` limits
    each decision of a Python strategy.
    """
    specs = resolve(_as_specs(strategies), rules)
    _check_seats(rules, specs)
    if all(s.compiled for s in specs) and not log:
        lineup = Lineup.of(rules, specs)
        seating = lineup.seating(rules.to_array())
        streams = seeds.streams(rotate)
        for start in range(first_game, first_game + games, batch):
            out = np.zeros((min(batch, first_game + games - start), GO_LEN), np.int64)
            play_batch_kernel(seating, streams, start, out)
            if out[:, -1].any():
                raise StrategyError("a built-in strategy made an illegal move (engine bug)")
            yield out, []
        return
    driver = GameDriver(rules, specs, seeds, log=log, rotate=rotate, timer=timer)
    for start in range(first_game, first_game + games, batch):
        rows = []
        records: list[HandRecord] = []
        for g in range(start, min(start + batch, first_game + games)):
            row, recs = driver.play(g)
            rows.append(row)
            records.extend(recs)
        yield np.array(rows, np.int64).reshape(-1, GO_LEN), records


def play_games(strategies: Sequence[Any] | str, rules: Rules | str | None = None, *,
               games: int = 1, seed: int = 0, log: bool = False,
               progress: Callable[[int], None] | None = None,
               on_records: Callable[[list[HandRecord]], None] | None = None,
               keep_games: bool = True,
               decision_timeout: float | None = None) -> PlayResult:
    """Play ``games`` games and return their statistics (and hand log when ``log``).

    ``progress(n)`` is called as each batch of ``n`` games finishes. With ``on_records``, the
    hand-log records go to that callback batch by batch instead of staying in memory (so
    ``result.log`` is None), which lets a log of any length stream to disk. With
    ``keep_games=False`` no per-game rows are kept (``result.games`` is None) and only the
    running totals behind ``summary()`` and ``outcomes()`` are: memory then does not grow
    with ``games``. ``decision_timeout`` (seconds, Unix main thread only) stops a Python
    strategy that takes longer over one decision with a :class:`StrategyError`.

    >>> r = play_games("greedy-knock,greedy-knock,greedy-knock", games=3, seed=1)
    >>> len(r.games), int(r.games["winner"].between(0, 2).sum())
    (3, 3)
    """
    rules = Rules.resolve(rules)
    games = check_games(games)
    seed = check_seed(seed)
    timeout = check_timeout(decision_timeout)
    # the only parse (for these rules): the layers below take the specs
    parsed = parse_strategies(strategies)
    specs = resolve(parsed, rules)
    seeds = Seeds.from_seed(seed)
    tally = GameTally(rules.players)
    rows: list[np.ndarray] = []
    records: list[HandRecord] = []
    compiled = all(s.compiled for s in specs) and not log
    batch = 1000 if compiled else 20
    timer = DecisionTimer(timeout) if timeout is not None and not compiled else None
    try:
        for out, recs in iter_games(rules, specs, games, seeds, log=log, batch=batch,
                                    timer=timer):
            tally.add(out)
            if keep_games:
                rows.append(out)
            if on_records is not None:
                on_records(recs)
            else:
                records.extend(recs)
            if progress is not None:
                progress(len(out))
    finally:
        if timer is not None:
            timer.close()
    frame: pd.DataFrame | None = None
    if keep_games:
        table = np.concatenate(rows) if rows else np.zeros((0, GO_LEN), np.int64)
        hidden = ["end_none", "error"]  # and the columns of variants these rules do not play
        hidden += [c for v in VARIANTS if not v.played(rules) for c in v.game_columns]
        frame = pd.DataFrame(table, columns=GAME_COLUMNS).drop(columns=hidden)
        frame.insert(0, "game", np.arange(len(frame)))
    kept = records if log and on_records is None else None
    return PlayResult(rules, [s.text for s in specs], frame, kept, tally,
                      [s.canonical for s in parsed])
