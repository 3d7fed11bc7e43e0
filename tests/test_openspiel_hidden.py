"""Hidden information in OpenSpiel: ginbox's bot on OpenSpiel's ``gin_rummy`` reads only what
its seat may see, in every phase, and ``python_ginbox``'s observations and resampler tell a
seat nothing of the cards it cannot see.

The test of each is the same: deal again the cards the seat has not seen (the opponent's
hidden cards, the stock) in the state it is given, keeping the moves; whatever the seat's bot,
observation or resampled world is, it must not change. OpenSpiel's own ``gin_rummy`` fails
this in its layoff phase (there its ``resample_from_infostate`` hands the knocker the true
state), which is why the bot's layoff decisions are checked like the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel
import pytest
from test_openspiel import deck_actions, replay, seating

import sim.openspiel
from sim.engine.hand import (
    HS_DISCARDED,
    HS_HAND,
    HS_PILE_MASK,
    HS_STOCK_TOP,
    HS_TO_MOVE,
    HS_TOOK,
)
from sim.engine.view import DECISION_NAMES
from sim.openspiel.bots import GinboxBot
from sim.openspiel.python_game import GAME_NAME
from sim.play.driver import play_games

GR = pyspiel.gin_rummy
UTILS = GR.GinRummyUtils(13, 4, 10)
PHASES = {"FIRST_UPCARD", "DRAW", "DISCARD", "KNOCK", "LAYOFF", "WALL"}


# ----------------------------------------------------------------- OpenSpiel's gin_rummy

def seen_by(game: pyspiel.Game, history: list[int], player: int) -> set[int]:
    """The cards (OpenSpiel indices) ``player`` has seen by the end of ``history``: every
    card it held, every card face up (the upcards, the discard pile), the melds laid and the
    cards laid off. The knocker's deadwood counts as unseen: stricter than the rules."""
    state = game.new_initial_state()
    seen: set[int] = set()
    for action in history:
        state.apply_action(action)
        seen |= set(state.hands()[player]) | set(state.discard_pile()) | set(state.layoffs())
        if state.upcard() is not None:
            seen.add(state.upcard())
        for melds in state.layed_melds():
            for meld in melds:
                seen |= set(UTILS.int_to_meld[meld])
    return seen


def redealt(game: pyspiel.Game, history: list[int], player: int,
            rng: np.random.Generator) -> pyspiel.State | None:
    """The same moves with the cards ``player`` has not seen dealt again (a permutation of
    them applied to every chance outcome); None when a move of the opponent is then illegal
    (a knock his new cards do not allow)."""
    hidden = sorted(set(range(52)) - seen_by(game, history, player))
    swap = dict(zip(hidden, rng.permutation(hidden).tolist(), strict=True))
    state = game.new_initial_state()
    try:
        for action in history:
            if state.is_chance_node():
                state.apply_action(swap.get(action, action))
            else:
                state.apply_action_with_legality_check(action)
    except pyspiel.SpielError:
        return None
    return state


class _Recorded(GinboxBot):
    """The bot, noting every view it hands its strategy."""

    def _view(self, *args: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        view, pile = super()._view(*args, **kwargs)
        self.views.append((view.copy(), pile.copy()))
        return view, pile


def answer(spec: str, game: pyspiel.Game, player: int, state: pyspiel.State
           ) -> tuple[int, list[tuple[np.ndarray, np.ndarray]]]:
    """A fresh bot's action at ``state`` and the views its strategy was given."""
    bot = _Recorded(spec, game, player, seed=7)
    bot.views = []
    return bot.step(state), bot.views


def phase_of(state: pyspiel.State) -> str:
    return str(state.current_phase()).rsplit(".", 1)[-1]


#: Hands that bring a ginbox bot to every phase: it knocks (KNOCK), defends against
#: OpenSpiel's eager simple bot (LAYOFF), and two random bots reach the wall (WALL).
MATCHES = [("tuned@eaai", "os"), ("simple", "os"), ("mc:samples=8", "os"),
           ("random", "random")] * 2


def decisions(game: pyspiel.Game) -> Iterator[tuple[str, int, pyspiel.State]]:
    """Every decision of a ginbox bot in the hands of :data:`MATCHES`: its spec, seat and
    the state it was given."""
    rng = np.random.default_rng(3)
    for hand, (ours, theirs) in enumerate(MATCHES):
        seat = hand % 2
        specs = {seat: ours, 1 - seat: theirs}
        bots = {p: (pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p)
                    if spec == "os" else sim.openspiel.bot(spec, game, p, seed=hand))
                for p, spec in specs.items()}
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            p = state.current_player()
            if specs[p] != "os":
                yield specs[p], p, state.clone()
            state.apply_action(bots[p].step(state))


def leaks(game: pyspiel.Game, spec: str, player: int, state: pyspiel.State,
          rng: np.random.Generator, tries: int = 2) -> tuple[list[str], int]:
    """How ``spec``'s bot differs between ``state`` and re-deals of what it cannot see: the
    differences found, and the number of re-deals compared."""
    action, views = answer(spec, game, player, state)
    found, compared = [], 0
    for _ in range(tries):
        twin = redealt(game, state.history(), player, rng)
        if twin is None:
            continue
        assert twin.hands()[player] == state.hands()[player]
        compared += 1
        other, other_views = answer(spec, game, player, twin)
        if other != action or len(views) != len(other_views) or not all(
                np.array_equal(a, b) for v, w in zip(views, other_views, strict=True)
                for a, b in zip(v, w, strict=True)):
            found.append(f"{spec} seat {player} in {phase_of(state)}: {action} / {other}")
    return found, compared


def test_the_gin_rummy_bot_never_reads_what_its_seat_may_not_see() -> None:
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(11)
    found: list[str] = []
    checked: dict[str, int] = {}
    for spec, player, state in decisions(game):
        differences, compared = leaks(game, spec, player, state, rng)
        found += differences
        if compared:
            checked[phase_of(state)] = checked.get(phase_of(state), 0) + 1
    assert found == []
    assert set(checked) == PHASES, checked  # every phase, with re-deals that replayed


class _Peeking(GinboxBot):
    """A bot that looks at the opponent's hand: the check must catch it."""

    def step(self, state: pyspiel.State) -> int:
        legal = state.legal_actions()
        return legal[0] if 0 in state.hands()[1 - self.player] else legal[-1]


def test_the_check_catches_a_bot_that_peeks(monkeypatch: pytest.MonkeyPatch) -> None:
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(5)
    monkeypatch.setattr(_Recorded, "step", _Peeking.step)
    found = []
    for spec, player, state in decisions(game):
        if phase_of(state) == "DISCARD":
            found += leaks(game, spec, player, state, rng)[0]
        if found:
            break
    assert found


# ------------------------------------------------------------------------ python_ginbox

def _hand_states(rules: str, policy: str, seed: int) -> tuple[pyspiel.Game, list, Any]:
    n = 2 if rules == "eaai" else 3
    records = play_games(",".join(["simple"] * n), rules, games=1, seed=seed, log=True).log
    game = pyspiel.load_game(GAME_NAME, {"rules": rules, "team_policy": policy})
    return game, records, n


def _build(game: pyspiel.Game, record: dict[str, Any], players: int, deck: list[int],
           moves: list[dict[str, Any]]) -> pyspiel.State:
    state = game.new_initial_state()
    state.apply_action(seating(record, players))
    for a in deck:
        state.apply_action(a)
    replay(state, moves)
    return state


def _unseen_positions(state: Any, seat: int) -> list[int]:
    """Deck positions of the cards ``seat`` cannot see now: the cards of the hand players
    it does not see that never showed (taken from or thrown on the pile), and the stock."""
    hs = state.game.bufs.hs
    shown = int(hs[HS_PILE_MASK]) | int(hs[HS_TOOK]) | int(hs[HS_TOOK + 1]) | \
        int(hs[HS_DISCARDED]) | int(hs[HS_DISCARDED + 1])
    hidden = 0
    for q in range(2):
        if not (state.viewers(q) >> seat) & 1:
            hidden |= int(hs[HS_HAND + q]) & ~shown
    top = int(hs[HS_STOCK_TOP])
    return [i for i, c in enumerate(state.game.bufs.deck) if (hidden >> int(c)) & 1 or i >= top]


VIEWS = ("observation_string", "observation_tensor", "information_state_string",
         "information_state_tensor")


@pytest.mark.parametrize(("rules", "policy"), [("eaai", ""), ("three-handed", "advisor")])
def test_python_ginbox_shows_no_seat_what_it_cannot_see_at_any_decision(
        rules: str, policy: str) -> None:
    """At every decision of a hand, for every seat: re-dealing what that seat cannot see
    changes none of its observations; for the deciding seat, the resampled world is the same
    whatever the real hidden cards were (the same seed gives the same world, history
    included), and it keeps the seat's view."""
    game, records, n = _hand_states(rules, policy, seed=12)
    record = records[0]
    deck = deck_actions(record)
    rng = np.random.default_rng(2)
    decisions = redeals = 0
    asked: set[str] = set()
    for cut in range(len(record["moves"])):
        state = _build(game, record, n, deck, record["moves"][:cut])
        if state.is_terminal():
            break
        decisions += 1
        asked.add(DECISION_NAMES[state.game.decision_code])
        for seat in range(n):
            positions = _unseen_positions(state, seat)
            other = list(deck)
            for i, a in zip(positions, rng.permutation([deck[i] for i in positions]),
                            strict=True):
                other[i] = int(a)
            try:
                twin = _build(game, record, n, other, record["moves"][:cut])
            except pyspiel.SpielError:  # a knock of the other player his new cards forbid
                continue
            assert twin.current_player() == state.current_player()
            for view in VIEWS:
                assert getattr(state, view)(seat) == getattr(twin, view)(seat), (cut, seat)
            redeals += other != deck
            if seat != state.current_player():
                continue
            worlds = [s.resample_from_infostate(seat, lambda: 0.375) for s in (state, twin)]
            assert worlds[0].history() == worlds[1].history(), cut
            for name in ("hs", "deck", "pile", "moves", "player_view"):
                assert np.array_equal(getattr(worlds[0].game.bufs, name),
                                      getattr(worlds[1].game.bufs, name)), (cut, name)
            assert worlds[0].events == worlds[1].events
            for view in VIEWS:
                assert getattr(worlds[0], view)(seat) == getattr(state, view)(seat)
            p = int(state.game.bufs.hs[HS_TO_MOVE])
            assert worlds[0].game.bufs.hs[HS_HAND + 1 - p] != state.game.bufs.hs[HS_HAND + 1 - p]
    assert decisions == len(record["moves"]) and redeals > 0
    assert asked == {"offer", "draw", "knock", "discard"}  # every decision of the engine


def test_a_resampled_world_is_a_state_of_its_own_history() -> None:
    """The world is rebuilt from a history of its own, so serializing it gives it back (a
    patched copy would replay to the real state); the seat's view is kept and the opponent
    holds other cards."""
    game, records, n = _hand_states("eaai", "", seed=4)
    record = records[0]
    state = _build(game, record, n, deck_actions(record), record["moves"][:15])
    seat = state.current_player()
    world = sim.openspiel.resampler(3)(state, seat)
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, world))[1]
    assert again.history() == world.history() != state.history()
    assert str(again) == str(world) and np.array_equal(again.game.bufs.hs, world.game.bufs.hs)
    assert world.information_state_string(seat) == state.information_state_string(seat)
    p = int(state.game.bufs.hs[HS_TO_MOVE])
    assert world.game.bufs.hs[HS_HAND + 1 - p] != state.game.bufs.hs[HS_HAND + 1 - p]
