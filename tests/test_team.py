"""The team policy ``consensus``: both strategies score the captain's options when both can
(``mc``); otherwise the captain decides, exactly as under ``captain``."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine.cards import parse_card
from sim.engine.hand import DEC_DISCARD, new_after
from sim.engine.rules import Rules
from sim.play.driver import Seeds, iter_games
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.mc_options import option_values
from strategies.registry import parse_strategy
from strategies.team import MC_ID, has_option_values, team_decide
from tests.test_mc import MINE, OPP, PILE, _knocked_view

CONSENSUS = Rules(team_policy="consensus", target=60)
CAPTAIN = CONSENSUS.replace(team_policy="captain")


def _rows(rules: Rules, lineup: list[str], games: int = 4, log: bool = False) -> np.ndarray:
    return np.concatenate([r for r, _ in iter_games(rules, lineup, games, Seeds.from_seed(9),
                                                    rotate=True, log=log)])


@pytest.mark.parametrize("lineup", [["discard-tracking", "simple", "greedy-knock"],
                                    ["mc:samples=3", "simple", "discard-tracking"]])
def test_without_two_option_values_the_captain_decides(lineup: list[str]) -> None:
    """Rotated seats put every strategy in the captain's and the sitter's chair; whenever
    one of the two lacks option values the games are those of team_policy='captain'."""
    if lineup[0].startswith("mc"):  # mc meets a non-mc partner in every seating
        assert not any(has_option_values(parse_strategy(s).strategy_id) for s in lineup[1:])
    assert np.array_equal(_rows(CONSENSUS, lineup), _rows(CAPTAIN, lineup))


def test_two_mc_play_consensus_the_same_in_the_batch_loop_and_the_driver() -> None:
    lineup = ["mc:samples=3", "mc:samples=3,develop=0", "simple"]
    batch = _rows(CONSENSUS, lineup, games=3)
    driver = _rows(CONSENSUS, lineup, games=3, log=True)
    assert np.array_equal(batch, driver)
    assert not batch[:, -1].any()  # no illegal move


def test_consensus_adds_both_option_values() -> None:
    """On a position whose worlds are all the same (the opponent's hand is known), the team
    plays the discard of best value, as each mc scores it."""
    view = _knocked_view(OPP, MINE, PILE, DEC_DISCARD)
    a = parse_strategy("mc:samples=3,stop=0").params_array()
    b = parse_strategy("mc:samples=5,stop=0,develop=0").params_array()
    move = team_decide((MC_ID, MC_ID), DEC_DISCARD, (a, b), view, new_after(),
                       np.zeros(MEM_LEN, np.int64), np.array([1], np.uint64),
                       np.zeros(SCRATCH_LEN, np.int64))
    values = {o.code: o.value for o in option_values(view, "mc:samples=3,stop=0")}
    assert move == max(values, key=values.get)
    assert move in (parse_card("4D"), parse_card("5D"))


def test_consensus_needs_three_players() -> None:
    with pytest.raises(ValueError, match="needs players=3"):
        Rules(players=2, team_policy="consensus")



def test_consensus_plays_the_base_move_where_the_captain_searches_nothing() -> None:
    """Two ``mc`` that search no kind of decision (``searched = 0``) play their base move
    under ``consensus`` too: the games are those of their base heuristic, ``tuned``, under
    ``captain``."""
    unsearched = "mc:samples=3,searched=0"
    assert np.array_equal(_rows(CONSENSUS, [unsearched, unsearched, "simple"], games=6),
                          _rows(CAPTAIN, ["tuned", "tuned", "simple"], games=6))
