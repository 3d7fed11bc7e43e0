"""ginbox's bots in OpenSpiel: :func:`bot` plays OpenSpiel's C++ ``gin_rummy`` with a ginbox
strategy, and :func:`resampler` deals ISMCTS's worlds of ``python_ginbox`` with ``mc``'s sampler.

The adapter replays the OpenSpiel history to rebuild what ginbox's View holds (the pile, the
opponent's pile draws and discards, the declined upcard, the turn, this turn's drawn and taken
card) from the bot's own seat only, fills the engine's view array and asks the strategy
through the dispatcher (``strategies._dispatch.decide``), as ``ginbox play`` does. The view
says ``eaai``'s facts (knock limit = OpenSpiel's knock card, gin and undercut bonus 25, wall 2,
target 100, scores 0: a single hand). The rest of OpenSpiel's gin has no ginbox decision and is
played by rule: the knocker lays the melds of a least-deadwood arrangement; the defender lays
off, one card at a time, any card whose layoff lowers its least deadwood most, then lays its
melds the same way; at OpenSpiel's wall (two cards left) the bot is asked the knock question
on its hand with the upcard. A ginbox strategy never discards the card it just took from the
pile (ginbox's rule, legal but never played here).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from sim.engine.cards import SUITS, parse_cards
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_KNOCK,
    best_discards,
    new_after,
)
from sim.engine.melds import min_deadwood_mask, popcount
from sim.engine.rng import seed_words
from sim.engine.rules import Rules
from sim.engine.view import (
    V_LEN,
    View,
    view_fields,
)
from sim.openspiel.python_game import GinboxState, action_of_move
from sim.play.driver import strategy_answer
from strategies._dispatch import decide
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.registry import build_strategy, parse_strategies, resolve

OPENSPIEL_SUITS = "SCDH"  # OpenSpiel's card index is suit * 13 + rank in this suit order
#: OpenSpiel card index -> ginbox card code, and back.
CODE_OF_OS = np.array([SUITS.index(OPENSPIEL_SUITS[i // 13]) * 16 + i % 13 for i in range(52)],
                      np.int64)
OS_OF_CODE = {int(c): i for i, c in enumerate(CODE_OF_OS)}
GR = pyspiel.gin_rummy
DRAW_UPCARD, DRAW_STOCK, PASS, KNOCK = (GR.DRAW_UPCARD_ACTION, GR.DRAW_STOCK_ACTION,
                                        GR.PASS_ACTION, GR.KNOCK_ACTION)
MELD_BASE = GR.MELD_ACTION_BASE
#: The ginbox rules the adapter's views state (OpenSpiel's gin defaults are eaai's bonuses).
ADAPTER_RULES = "eaai"


def mask_of(os_cards: Any) -> int:
    """A ginbox hand mask from OpenSpiel card indices."""
    m = 0
    for c in os_cards:
        m |= 1 << int(CODE_OF_OS[c])
    return m


class _Track:
    """What the bot's seat has seen of the hand so far, replayed from the history."""

    def __init__(self) -> None:
        self.took = [0, 0]
        self.discarded = [0, 0]
        self.declined = [-1, -1]
        self.turns = 0
        self.first_upcard = -1
        self.drawn = -1  # this turn's card (a stock card only when the bot drew it)
        self.taken = -1  # this turn's card from the pile
        self.replayed = 0


class GinboxBot(pyspiel.Bot):
    """A ginbox strategy playing seat ``player`` of OpenSpiel's ``gin_rummy``."""

    def __init__(self, spec: str, game: pyspiel.Game, player: int, seed: int = 0,
                 lay_off: bool = True) -> None:
        pyspiel.Bot.__init__(self)
        self.lay_off = lay_off  # False: never lay off, as OpenSpiel's simple bot
        if game.get_type().short_name != "gin_rummy":
            raise ValueError(f"the adapter plays OpenSpiel's gin_rummy, not "
                             f"{game.get_type().short_name!r}")
        params = game.get_parameters()
        if params.get("num_ranks", 13) != 13 or params.get("num_suits", 4) != 4 or \
                params.get("hand_size", 10) != 10:
            raise ValueError("the adapter needs the standard deck and 10-card hands")
        self.game = game
        self.player = player
        self.rules = Rules.preset(ADAPTER_RULES).replace(
            gin_bonus=int(params.get("gin_bonus", 25)),
            undercut_bonus=int(params.get("undercut_bonus", 25)))
        (self.spec,) = resolve(parse_strategies([spec]), self.rules)
        self.params = self.spec.params_array()
        self.python = None if self.spec.compiled else build_strategy(self.spec, player)
        self.rng = np.array([seed_words(seed, 1)], np.uint64)
        self.py_rng = np.random.default_rng(seed)
        self.utils = GR.GinRummyUtils(13, 4, 10)
        self.scratch = np.zeros(SCRATCH_LEN, np.int64)
        self.restart()

    # ------------------------------------------------------------------ the Bot API

    def restart(self) -> None:
        """A new hand: forget the strategy's memory and the replay."""
        self.mem = np.zeros(MEM_LEN, np.int64)
        self.track = _Track()
        self._replay: Any = None

    def restart_at(self, state: pyspiel.State) -> None:
        """Start over at ``state``."""
        self.restart()

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to do: :meth:`step` replays the history it is given."""

    def provides_policy(self) -> bool:
        return False

    def step(self, state: pyspiel.State) -> int:
        """The strategy's action, always one of ``state.legal_actions()``."""
        self._catch_up(state)
        legal = state.legal_actions()
        phase = state.current_phase()
        if phase == GR.Phase.FIRST_UPCARD:
            if legal == [DRAW_STOCK]:
                return DRAW_STOCK
            return DRAW_UPCARD if self._ask(state, DEC_OFFER) == MOVE_DRAW_DISCARD else PASS
        if phase == GR.Phase.DRAW:
            return DRAW_UPCARD if self._ask(state, DEC_DRAW) == MOVE_DRAW_DISCARD else DRAW_STOCK
        if phase == GR.Phase.DISCARD:
            return self._discard_or_knock(state, legal)
        if phase == GR.Phase.KNOCK:
            if len(state.hands()[self.player]) == 11:
                return self._discard(state, legal, knocked=True)
            return self._lay_melds(state, legal)
        if phase == GR.Phase.LAYOFF:
            if not state.finished_layoffs():
                return self._lay_off(state, legal)
            return self._lay_melds(state, legal)
        if phase == GR.Phase.WALL:
            if KNOCK in legal and self._ask(state, DEC_KNOCK, wall=True) == MOVE_KNOCK:
                return KNOCK
            return PASS
        raise pyspiel.SpielError(f"no decision in phase {phase}")

    # ------------------------------------------------------------------ decisions

    def _discard_or_knock(self, state: pyspiel.State, legal: list[int]) -> int:
        hand = mask_of(state.hands()[self.player])
        forbidden = self.track.taken
        if KNOCK in legal and best_discards(hand, forbidden, new_after()) <= \
                state.knock_card():
            if self._ask(state, DEC_KNOCK) == MOVE_KNOCK:
                return KNOCK
        return self._discard(state, legal, knocked=False)

    def _discard(self, state: pyspiel.State, legal: list[int], knocked: bool) -> int:
        card = self._ask(state, DEC_DISCARD, knocked=knocked)
        action = OS_OF_CODE.get(int(card), -1)
        if action in legal:
            return action
        # OpenSpiel's own legal discards after a knock differ (its 11-card deadwood is not
        # exact): the legal discard that leaves the least deadwood
        hand = mask_of(state.hands()[self.player])
        cards = [a for a in legal if a < 52]
        return min(cards, key=lambda a: min_deadwood_mask(hand & ~(1 << int(CODE_OF_OS[a]))))

    def _lay_melds(self, state: pyspiel.State, legal: list[int]) -> int:
        """A meld of a least-deadwood arrangement of the cards left; pass when none is left."""
        hand = mask_of(state.hands()[self.player])
        best = min_deadwood_mask(hand)
        melds = [a for a in legal if a >= MELD_BASE]
        for a in melds:
            meld = mask_of(self.utils.int_to_meld[a - MELD_BASE])
            if min_deadwood_mask(hand & ~meld) == best:
                return a
        if PASS in legal:
            return PASS
        return min(melds, key=lambda a: min_deadwood_mask(
            hand & ~mask_of(self.utils.int_to_meld[a - MELD_BASE])))

    def _lay_off(self, state: pyspiel.State, legal: list[int]) -> int:
        """The layoff that lowers the least deadwood most, or pass when none lowers it."""
        hand = mask_of(state.hands()[self.player])
        now = min_deadwood_mask(hand)
        cards = [a for a in legal if a < 52]
        if not cards or not self.lay_off:
            return PASS
        best = min(cards, key=lambda a: min_deadwood_mask(hand & ~(1 << int(CODE_OF_OS[a]))))
        left = min_deadwood_mask(hand & ~(1 << int(CODE_OF_OS[best])))
        return best if left < now else PASS

    def _ask(self, state: pyspiel.State, decision: int, knocked: bool = False,
             wall: bool = False) -> int:
        """The strategy's engine move for ``decision`` from the view of this state."""
        view, pile = self._view(state, decision, knocked, wall)
        after = new_after()
        if self.python is not None:
            answer = strategy_answer(self.python, decision, View.from_arrays(view, pile,
                                                                               self.py_rng))
            if decision == DEC_DISCARD and isinstance(answer, str):
                answer = parse_cards([answer])[0]
            return int(answer)
        return int(decide(self.spec.strategy_id, decision, self.params, view, after, self.mem,
                          self.rng, self.scratch))

    # ------------------------------------------------------------------ the view

    def _catch_up(self, state: pyspiel.State) -> None:
        """Replay the history not yet seen, noting only what this seat may know."""
        history = state.history()
        t = self.track
        if self._replay is None or t.replayed > len(history) or \
                list(self._replay.history()) != history[:t.replayed]:
            self.restart()
            t = self.track
            self._replay = self.game.new_initial_state()
        s = self._replay
        for action in history[t.replayed:]:
            if s.is_chance_node():
                drew = t.first_upcard >= 0  # the deal is over: a stock draw
                s.apply_action(action)
                if drew and s.current_player() == self.player:
                    t.drawn = int(CODE_OF_OS[action])
                if t.first_upcard < 0 and s.current_phase() == GR.Phase.FIRST_UPCARD:
                    t.first_upcard = int(CODE_OF_OS[s.upcard()])
                continue
            p = s.current_player()
            phase = s.current_phase()
            up = s.upcard()
            if action == DRAW_UPCARD and phase in (GR.Phase.FIRST_UPCARD, GR.Phase.DRAW):
                code = int(CODE_OF_OS[up])
                t.took[p] |= 1 << code
                if p == self.player:
                    t.drawn = t.taken = code
            elif action == PASS and phase == GR.Phase.FIRST_UPCARD:
                t.declined[p] = int(CODE_OF_OS[up])
            elif action == DRAW_STOCK:
                t.taken = -1
            elif action < 52 and phase in (GR.Phase.DISCARD, GR.Phase.KNOCK) and \
                    len(s.hands()[p]) == 11:
                t.discarded[p] |= 1 << int(CODE_OF_OS[action])
                t.turns += 1
                t.drawn = t.taken = -1
            elif action == KNOCK and phase == GR.Phase.WALL:
                code = int(CODE_OF_OS[up])
                t.took[p] |= 1 << code
                if p == self.player:
                    t.drawn = t.taken = code
            s.apply_action(action)
        t.replayed = len(history)

    def _view(self, state: pyspiel.State, decision: int, knocked: bool,
              wall: bool) -> tuple[np.ndarray, np.ndarray]:
        t = self.track
        me, opp = self.player, 1 - self.player
        hand = mask_of(state.hands()[me])
        pile_os = list(state.discard_pile())
        up = state.upcard()
        taken, drawn = t.taken, t.drawn
        if up is not None:
            if wall:  # the wall's knock takes the upcard: ask as after drawing it
                code = int(CODE_OF_OS[up])
                hand |= 1 << code
                taken = drawn = code
            else:
                pile_os.append(up)
        pile = np.zeros(52, np.int64)
        for i, c in enumerate(pile_os):
            pile[i] = CODE_OF_OS[c]
        seen = view_fields(np.zeros(V_LEN, np.int64))
        seen.hand = hand
        seen.role = 1 if me == 0 else 0  # OpenSpiel's player 0 acts first: the non-dealer
        seen.decision = decision
        seen.stock = state.stock_size()
        seen.turn = t.turns
        seen.pile_len = len(pile_os)
        seen.top = pile[len(pile_os) - 1] if pile_os else -1
        seen.opp_took = t.took[opp]
        seen.opp_discarded = t.discarded[opp]
        seen.opp_declined = t.declined[opp]
        seen.self_declined = t.declined[me]
        seen.self_took = t.took[me]
        seen.self_discarded = t.discarded[me]
        seen.drawn = drawn if popcount(hand) == 11 else -1
        seen.taken = taken if popcount(hand) == 11 else -1
        seen.knock_limit = state.knock_card()
        seen.upcard = t.first_upcard
        seen.target = self.rules.target
        seen.wall = self.rules.wall
        seen.gin_bonus = self.rules.gin_bonus
        seen.undercut_bonus = self.rules.undercut_bonus
        seen.knocked = int(knocked)
        ten = hand & ~(1 << seen.drawn) if seen.drawn >= 0 else hand
        seen.deadwood = min_deadwood_mask(ten) if popcount(ten) == 10 else 0
        seen.forbidden = seen.taken
        mask = 0
        for c in pile[:len(pile_os)]:
            mask |= 1 << int(c)
        seen.pile_mask = mask
        seen.players = 2
        return seen.buffer, pile


def bot(spec: str, game: pyspiel.Game, player: int, seed: int = 0,
        lay_off: bool = True) -> GinboxBot:
    """A ginbox strategy (``"mc"``, ``"tuned@eaai"``, ...) as a ``pyspiel.Bot`` for seat
    ``player`` of OpenSpiel's ``gin_rummy`` ``game``; ``lay_off=False`` never lays off (as
    OpenSpiel's simple bot), to measure what layoffs are worth."""
    return GinboxBot(spec, game, player, seed, lay_off)


def resampler(seed: int = 0) -> Callable[[GinboxState, int], GinboxState]:
    """ISMCTS's resampler for ``python_ginbox``: a state of the deciding seat's information
    set with the opponent's hidden cards and the stock dealt afresh by ``mc``'s world sampler
    (``strategies.mc_worlds.sample_world``, no inference) from that seat's view, rebuilt by
    replaying the game with them (:meth:`sim.openspiel.python_game.GinboxState.resampled`), so
    nothing in it (history included) holds the real hidden cards."""
    rng = np.random.default_rng(seed)

    def resample(state: GinboxState, player: int) -> GinboxState:
        return state.resampled(player, int(rng.integers(1, 2**63)))

    return resample


class BuiltinBot(pyspiel.Bot):
    """A ginbox built-in playing a seat of ``python_ginbox``: the state's step already holds
    the deciding seat's view, so the strategy is asked exactly as in ``ginbox play``."""

    def __init__(self, spec: str, game: pyspiel.Game, player: int, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        (self.spec,) = resolve(parse_strategies([spec]), game.rules)
        if not self.spec.compiled:
            raise ValueError(f"{spec!r} is not a compiled built-in")
        self.player = player
        self.params = self.spec.params_array()
        self.rng = np.array([seed_words(seed, 2)], np.uint64)
        self.scratch = np.zeros(SCRATCH_LEN, np.int64)

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing kept between decisions but the state's own per-hand memory."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to do: the state holds the view."""

    def step(self, state: GinboxState) -> int:
        """The built-in's move for the state's decision, as an action."""
        game = state.game
        assert game is not None
        move = int(decide(self.spec.strategy_id, game.decision_code, self.params,
                          game.view_array, game.after, game.memory, self.rng, self.scratch))
        return action_of_move(move)


def builtin_bot(spec: str, game: pyspiel.Game, player: int, seed: int = 0) -> BuiltinBot:
    """A ginbox built-in (``"mc"``, ``"simple"``, ...) as a ``pyspiel.Bot`` for seat
    ``player`` of a ``python_ginbox`` game."""
    return BuiltinBot(spec, game, player, seed)
