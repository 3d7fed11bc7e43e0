"""sim.openspiel: python_ginbox passes OpenSpiel's checks, plays ginbox's games move for move,
shows a seat only what its View shows; the gin_rummy adapter plays only legal actions."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pyspiel
import pytest

import sim.openspiel
from sim.engine.cards import parse_card
from sim.engine.game import ROTATIONS
from sim.engine.hand import DEC_DRAW, DEC_KNOCK, HS_HAND, HS_STOCK_TOP, HS_TO_MOVE, HS_TOOK
from sim.engine.rules import PRESETS
from sim.env.encoding import INDEX_OF_CARD
from sim.openspiel.python_game import (
    A_DRAW_DISCARD,
    A_DRAW_STOCK,
    A_KNOCK,
    A_NO_KNOCK,
    A_PASS,
    GAME_NAME,
)
from sim.play.driver import play_games

LOGGED = {"pass": A_PASS, "draw_discard": A_DRAW_DISCARD, "draw_stock": A_DRAW_STOCK,
          "knock": A_KNOCK}


def seating(record: dict[str, Any], players: int) -> int:
    """The seating chance outcome that gives a record's first hand its roles."""
    roles = [record["dealer"], record["nondealer"], record["sitter"]][:players]
    for k in range(2 if players == 2 else 6):
        seats = list(ROTATIONS[k]) if players == 3 else [(k + r) % 2 for r in range(2)]
        if seats == roles:
            return k
    raise AssertionError(roles)


def deck_actions(record: dict[str, Any]) -> list[int]:
    deal = record["deal"]
    cards = deal["dealer"] + deal["nondealer"] + [deal["upcard"]] + deal["stock"]
    return [int(INDEX_OF_CARD[parse_card(c)]) for c in cards]


def replay(state: pyspiel.State, moves: list[dict[str, Any]]) -> None:
    """Play logged moves: the knock question's "no" (never logged) where it is asked, a
    logged forced stock draw skipped (the engine plays it)."""
    for move in moves:
        action = LOGGED.get(move["move"])
        if action is None:
            action = int(INDEX_OF_CARD[parse_card(move["card"])])
        while state.game.decision_code == DEC_KNOCK and action != A_KNOCK:
            state.apply_action(A_NO_KNOCK)
        if action == A_DRAW_STOCK and state.game.decision_code != DEC_DRAW:
            continue
        assert state.roles[int(state.game.bufs.hs[HS_TO_MOVE])] == move["seat"]
        state.apply_action(action)


def play_records(game: pyspiel.Game, records: list[dict[str, Any]]) -> pyspiel.State:
    state = game.new_initial_state()
    state.apply_action(seating(records[0], game.num_players()))
    for record in records:
        for a in deck_actions(record):
            state.apply_action(a)
        replay(state, record["moves"])
    return state


@pytest.mark.parametrize("rules", PRESETS)
def test_random_sim_test_passes_for_every_preset(rules: str) -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": rules})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_random_sim_test_passes_for_whole_games() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "three-handed", "episode": "game",
                                         "target": 10, "max_hands": 3,
                                         "team_policy": "advisor"})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_type_and_bounds_are_honest() -> None:
    game = pyspiel.load_game(GAME_NAME)
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 3 and game.num_distinct_actions() == 57
    assert game.max_utility() == 123 and game.min_utility() == -123  # 98 deadwood + gin 25
    assert game.max_game_length() == 1 + 52 + 2 + 3 * 400
    eaai = pyspiel.load_game(GAME_NAME, {"rules": "oklahoma"})
    assert eaai.max_utility() == 2 * 123  # spade doubling
    whole = pyspiel.load_game(GAME_NAME, {"episode": "game"})
    assert (whole.min_utility(), whole.max_utility()) == (-0.5, 1.0)
    assert not whole.get_type().provides_information_state_tensor
    with pytest.raises(ValueError, match="unknown rules preset 'no-such-preset'"):
        pyspiel.load_game(GAME_NAME, {"rules": "no-such-preset"})


@pytest.mark.parametrize(("rules", "strategies"), [
    ("three-handed", "simple,mc:samples=4,greedy-knock"),
    ("eaai", "tuned@eaai,simple"),
])
def test_same_moves_give_the_same_hand_log_as_ginbox_play(rules: str, strategies: str) -> None:
    result = play_games(strategies, rules, games=1, seed=5, log=True)
    records = result.log
    game = pyspiel.load_game(GAME_NAME, {"rules": rules, "episode": "game"})
    state = play_records(game, records)
    assert state.is_terminal()
    assert state.hand_log(seats=records[0]["seats"]) == records
    winner = records[-1]["game_winner"]
    assert state.returns()[winner] == 1.0 and sum(state.returns()) == pytest.approx(0.0)


def test_a_hand_returns_its_points_zero_sum() -> None:
    records = play_games("simple,simple", "eaai", games=1, seed=2, log=True).log
    game = pyspiel.load_game(GAME_NAME, {"rules": "eaai"})
    state = game.new_initial_state()
    state.apply_action(seating(records[0], 2))
    for a in deck_actions(records[0]):
        state.apply_action(a)
    replay(state, records[0]["moves"])
    result = records[0]["result"]
    returns = state.returns()
    if result["winner"] is None:
        assert returns == [0.0, 0.0]
    else:
        assert returns[result["winner"]] == result["points"]
        assert returns[1 - result["winner"]] == -result["points"]


def _cut(records: list[dict[str, Any]], cut: int) -> tuple[list[int], list[dict[str, Any]]]:
    return deck_actions(records[0]), records[0]["moves"][:cut]


@pytest.mark.parametrize(("rules", "policy"), [("eaai", ""), ("three-handed", "advisor")])
def test_redealing_hidden_cards_changes_no_observation(rules: str, policy: str) -> None:
    """The deciding seat's observation and information state (strings and tensors) stay
    the same when the opponent's hidden cards and the stock are dealt again; the
    opponent's own do change (the test can fail)."""
    n = 2 if rules == "eaai" else 3
    records = play_games(",".join(["simple"] * n), rules, games=1, seed=11, log=True).log
    game = pyspiel.load_game(GAME_NAME, {"rules": rules, "team_policy": policy})
    deck, moves = _cut(records, 9)
    state = game.new_initial_state()
    state.apply_action(seating(records[0], n))
    for a in deck:
        state.apply_action(a)
    replay(state, moves)
    hs = state.game.bufs.hs
    p = int(hs[HS_TO_MOVE])
    hidden = int(hs[HS_HAND + 1 - p]) & ~int(hs[HS_TOOK + 1 - p])
    positions = [i for i, c in enumerate(state.game.bufs.deck)
                 if (hidden >> int(c)) & 1 or i >= int(hs[HS_STOCK_TOP])]
    rng = np.random.default_rng(0)
    other = list(deck)
    shuffled = rng.permutation([deck[i] for i in positions])
    for i, a in zip(positions, shuffled, strict=True):
        other[i] = int(a)
    twin = game.new_initial_state()
    twin.apply_action(seating(records[0], n))
    for a in other:
        twin.apply_action(a)
    replay(twin, moves)
    seat = state.current_player()
    assert twin.current_player() == seat
    for f in ("observation_string", "observation_tensor", "information_state_string",
              "information_state_tensor"):
        assert getattr(state, f)(seat) == getattr(twin, f)(seat), f
    opponent = state.roles[1 - p]
    assert state.observation_string(opponent) != twin.observation_string(opponent)
    assert state.legal_actions() == twin.legal_actions()


def test_clone_pickle_and_serialize_keep_the_state() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "three-handed", "team_policy": "advisor"})
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(80):
        if state.is_chance_node():
            state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    for copy in (state.clone(), pickle.loads(pickle.dumps(state)),
                 pyspiel.deserialize_game_and_state(
                     pyspiel.serialize_game_and_state(game, state))[1]):
        assert copy.history() == state.history()
        assert str(copy) == str(state)
        assert copy.information_state_string() == state.information_state_string()
        assert copy.legal_actions() == state.legal_actions()


def _random_game(seed: int) -> tuple[list[int], list[float], str]:
    game = pyspiel.load_game(GAME_NAME, {"rules": "eaai"})
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state.history(), state.returns(), str(state.hand_log())


def test_a_seed_gives_the_same_game() -> None:
    assert _random_game(4) == _random_game(4)
    assert _random_game(4)[0] != _random_game(5)[0]


def test_the_resampler_keeps_the_deciders_view() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "eaai"})
    records = play_games("simple,simple", "eaai", games=1, seed=11, log=True).log
    state = game.new_initial_state()
    state.apply_action(seating(records[0], 2))
    for a in deck_actions(records[0]):
        state.apply_action(a)
    replay(state, records[0]["moves"][:7])
    seat = state.current_player()
    world = sim.openspiel.resampler(1)(state, seat)
    assert world.information_state_string(seat) == state.information_state_string(seat)
    assert world.observation_tensor(seat) == state.observation_tensor(seat)
    p = int(state.game.bufs.hs[HS_TO_MOVE])
    hands = [int(w.game.bufs.hs[HS_HAND + 1 - p]) for w in (state, world)]
    assert bin(hands[1]).count("1") == 10 and hands[0] != hands[1]


class _Checked(pyspiel.Bot):
    """A bot that checks every action of the bot it wraps is legal, and notes the phases."""

    def __init__(self, inner: pyspiel.Bot, phases: set[str]) -> None:
        pyspiel.Bot.__init__(self)
        self.inner = inner
        self.phases = phases

    def restart_at(self, state: pyspiel.State) -> None:
        self.inner.restart_at(state)

    def step(self, state: pyspiel.State) -> int:
        action = self.inner.step(state)
        assert action in state.legal_actions(), (str(state), action)
        self.phases.add(str(state.current_phase()).rsplit(".", 1)[-1])
        return action


def test_the_gin_rummy_adapter_plays_only_legal_actions_in_every_phase() -> None:
    game = pyspiel.load_game("gin_rummy")
    phases: set[str] = set()
    for hand in range(60):
        spec = ("random", "simple", "tuned@eaai")[hand % 3]
        ours = _Checked(sim.openspiel.bot(spec, game, hand % 2, seed=hand), phases)
        other = (sim.openspiel.bot("random", game, 1 - hand % 2, seed=hand + 100)
                 if hand % 4 == 0 else
                 pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - hand % 2))
        bots = [ours, other] if hand % 2 == 0 else [other, ours]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, hand)
        assert sum(returns) == 0
    assert phases == {"FIRST_UPCARD", "DRAW", "DISCARD", "KNOCK", "LAYOFF", "WALL"}


def test_openspiels_python_searches_play_python_ginbox_against_builtins() -> None:
    """ISMCTS (resampling through the state's own resample_from_infostate) and MCTS choose
    legal actions; a built-in bot answers as the engine's step would."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(GAME_NAME, {"rules": "eaai"})
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    searchers = [ismcts.ISMCTSBot(game, evaluator, 2.0, 5, random_state=rs,
                                  allow_inconsistent_action_sets=True),
                 mcts.MCTSBot(game, 2.0, 5, evaluator, random_state=rs, solve=False)]
    builtin = sim.openspiel.builtin_bot("simple", game, 1)
    state = game.new_initial_state()
    while state.is_chance_node():  # a shuffled deck (the first outcomes deal a gin)
        state.apply_action(int(rs.choice([o for o, _ in state.chance_outcomes()])))
    for _ in range(4):
        bot = builtin if state.current_player() == 1 else searchers[len(state.history()) % 2]
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
