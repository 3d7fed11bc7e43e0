"""Leagues: every strategy meets every other (paired deals, parallel, resumable), then ratings.

``run_league(FILE)`` plays what a league still needs through the experiment runner and returns
a :class:`LeagueResult` with the leaderboard; :func:`ratings` fits ratings to any
finishing-order results (Bradley-Terry for two players, pairwise Plackett-Luce for three, on
an Elo scale with the anchor at 1500, bootstrap intervals). See docs/league.md.
"""

from sim.league.output import leaderboard_text
from sim.league.output import write as write_outputs
from sim.league.play import LeagueResult, league_games, plan, rate, run_league
from sim.league.ratings import ELO_PER_UNIT, finishing_places, ratings
from sim.league.spec import LeagueSpec, load_league

__all__ = ["ELO_PER_UNIT", "LeagueResult", "LeagueSpec", "finishing_places", "leaderboard_text",
           "league_games", "load_league", "plan", "rate", "ratings", "run_league",
           "write_outputs"]
