"""An independent Hollywood score sheet for the referee, written from docs/rules.md alone.

It keeps the sheet the way players keep it on paper: three columns, each a dictionary of
entries per seat, a column closed with its winner and totals. It shares nothing with the
engine's scoring (``sim.engine.game``), so when the referee agrees with a hand log under
``scoring = "hollywood"`` the engine's Hollywood arithmetic is checked, not copied.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from sim.engine.rules import Rules


@dataclass
class Column:
    """One of the three games: points and wins entered per seat, and how it ended."""

    points: dict[int, int] = field(default_factory=dict)
    wins: dict[int, int] = field(default_factory=dict)
    winner: int | None = None
    totals: dict[int, int] | None = None


class HollywoodSheet:
    """Three games scored at once (docs/rules.md, "Hollywood scoring")."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.seats = list(range(rules.players))
        self.columns = [Column() for _ in range(3)]
        self.opened = dict.fromkeys(self.seats, 0)  # columns each seat has started

    def copy(self) -> HollywoodSheet:
        return copy.deepcopy(self)

    @property
    def open_columns(self) -> list[int]:
        return [k for k, c in enumerate(self.columns) if c.winner is None]

    @property
    def over(self) -> bool:
        return not self.open_columns

    def win(self, seat: int, points: int) -> None:
        """A hand won by ``seat`` for ``points``: the seat starts one more column; a seat
        whose started columns have all closed starts the first open one instead (a player
        shut out of a game makes his next entry the first of the next game in progress)."""
        assert not self.over, "a hand was scored after the match was over"
        self.opened[seat] = min(self.opened[seat] + 1, 3)
        live = [k for k in self.open_columns if k < self.opened[seat]]
        if not live:
            self.opened[seat] = self.open_columns[0] + 1
            live = [self.open_columns[0]]
        for k in live:
            col = self.columns[k]
            col.points[seat] = col.points.get(seat, 0) + points
            col.wins[seat] = col.wins.get(seat, 0) + 1
            if col.points[seat] >= self.rules.target:
                self._close(col, seat)

    def _close(self, col: Column, winner: int) -> None:
        r = self.rules
        totals = {s: col.points.get(s, 0) + r.hand_bonus * col.wins.get(s, 0)
                  for s in self.seats}
        totals[winner] += r.game_bonus
        if all(col.points.get(s, 0) == 0 for s in self.seats if s != winner):
            totals[winner] += r.shutout_bonus
            if r.shutout_doubling:
                totals[winner] *= 2
        col.winner, col.totals = winner, totals

    def points(self, seat: int) -> int:
        """Hand points entered for the seat over all columns (the log's ``scores``)."""
        return sum(c.points.get(seat, 0) for c in self.columns)

    def match_totals(self) -> list[int]:
        assert self.over
        return [sum(c.totals[s] for c in self.columns) for s in self.seats]  # type: ignore

    def match_winner(self) -> int:
        """Highest total, then most games won, then the lowest seat."""
        totals = self.match_totals()
        won = [sum(c.winner == s for c in self.columns) for s in self.seats]
        return min(self.seats, key=lambda s: (-totals[s], -won[s], s))

    def first_open_scores(self) -> list[int]:
        """Each seat's points in the first open game (what the plain view scores show)."""
        k = self.open_columns[0]
        return [self.columns[k].points.get(s, 0) for s in self.seats]

    def record(self) -> dict[str, Any]:
        """The log's ``hollywood`` object as this sheet gives it."""
        def per_seat(d: dict[int, int]) -> list[int]:
            return [d.get(s, 0) for s in self.seats]

        return {"opened": per_seat(self.opened), "games": [
            {"scores": per_seat(c.points), "hands_won": per_seat(c.wins), "winner": c.winner,
             "final": None if c.totals is None else per_seat(c.totals)}
            for c in self.columns]}

    def view_fields(self, seat: int | None, opponent: int, other: int | None) -> dict[str, Any]:
        """The Hollywood fields of the View of ``seat``'s hand (before the hand is played)."""
        def scores(s: int | None) -> tuple[int, ...]:
            return tuple(0 if s is None else c.points.get(s, 0) for c in self.columns)

        return {
            "hollywood": True, "game_scores": scores(seat),
            "opponent_game_scores": scores(opponent), "other_game_scores": scores(other),
            "games_open": tuple(c.winner is None for c in self.columns),
            "games_opened": self.opened[seat] if seat is not None else 0,
            "opponent_games_opened": self.opened[opponent],
            "other_games_opened": 0 if other is None else self.opened[other],
        }
