"""ginbox's games as an OpenSpiel game: ``python_ginbox``, stepped by the engine's own kernels.

Why a Python game rather than a copy in C++: every move goes through the same kernels as
``ginbox play`` (:func:`sim.engine.game.game_init`, :func:`sim.engine.hand.deal`,
:func:`sim.engine.hand.advance`, :func:`sim.play.step.seat_move`,
:func:`sim.engine.hand.apply_move`, :func:`sim.engine.game.end_hand`), so the rules exist once.

The tree, per game:

* one chance node for the seating (``n!`` outcomes: who holds the box, the captain's and the
  sitter's chairs first), skipped when the rules fix ``initial_roles``;
* per hand, 52 chance nodes that lay out the deck in the engine's order (dealer's 10,
  non-dealer's 10, the upcard, then the stock from the top); outcome ``i`` is card index ``i``
  (``suit * 13 + rank``, suits S H D C, ace 0). The whole stock is dealt at the deal, as in the
  engine (``ginbox play`` shuffles the whole deck), so the hand log is the same;
* the decisions the engine asks, one action each (below); the deciding player is the seat the
  step names (under ``advisor`` the sitter decides for the captain).

Player actions (57): ``0..51`` discard that card; 52 take the upcard or the pile's top card
(``draw_discard``); 53 draw from the stock; 54 pass (decline the first upcard); 55 knock;
56 do not knock (the engine asks "knock?" after a draw only when knocking is legal).
52..55 are OpenSpiel's own gin numbers for the same moves.

Utilities: ``episode=hand`` is the first hand of a game: its winner gets the points it
scored, the loser minus them, the sitter 0 (zero-sum, like OpenSpiel's ``gin_rummy``);
``episode=game`` is a whole game to the target: winner +1, each other seat ``-1/(n-1)``
(zero-sum), or 0 for all when it is cut at ``max_hands`` hands.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyspiel

from sim.engine.cards import DECK, card_str, mask_cards
from sim.engine.game import (
    GS_OVER,
    GS_ROLE_SEAT,
    GS_SCORE,
    GS_WINNER,
    SITTER,
    end_hand,
    game_init,
    start_hand,
)
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_OVER,
    ERROR_TEXT,
    HS_HAND,
    HS_N_MOVES,
    HS_PILE_LEN,
    HS_POINTS,
    HS_STOCK_TOP,
    HS_TO_MOVE,
    HS_WINNER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    OK,
    advance,
    apply_move,
    deal,
)
from sim.engine.rules import Rules
from sim.engine.view import (
    DECISION_NAMES,
    V_DECISION,
    V_HAND,
    V_KNOCK_LIMIT,
    V_OPP_DECLINED,
    V_OPP_DISCARDED,
    V_OPP_TOOK,
    V_PILE_LEN,
    V_ROLE,
    V_SCORE_OPP,
    V_SCORE_OTHER,
    V_SCORE_SELF,
    V_SELF_DECLINED,
    V_SELF_DISCARDED,
    V_STOCK,
    V_TURN,
    legal_moves,
)
from sim.env.core import ES_DECISION, ES_LEN, ES_ROLES, ES_SEAT, ES_STATUS, ST_DECIDE, observe_seat
from sim.env.encoding import INDEX_OF_CARD, OBS_LEN
from sim.play.step import CALLER, seat_move, table_buffers
from sim.records.log import hand_record
from strategies.builtin import SCRATCH_LEN
from strategies.mc_worlds import S_UNSEEN, opponent_known, sample_world

GAME_NAME = "python_ginbox"
N_CARDS = 52
A_DRAW_DISCARD = 52
A_DRAW_STOCK = 53
A_PASS = 54
A_KNOCK = 55
A_NO_KNOCK = 56
N_ACTIONS = 57
#: Engine move of each non-card action, and back.
MOVE_OF_ACTION = {A_DRAW_DISCARD: MOVE_DRAW_DISCARD, A_DRAW_STOCK: MOVE_DRAW_STOCK,
                  A_PASS: MOVE_PASS, A_KNOCK: MOVE_KNOCK, A_NO_KNOCK: MOVE_NO_KNOCK}
ACTION_OF_MOVE = {m: a for a, m in MOVE_OF_ACTION.items()}
ACTION_NAMES = {A_DRAW_DISCARD: "draw_discard", A_DRAW_STOCK: "draw_stock", A_PASS: "pass",
                A_KNOCK: "knock", A_NO_KNOCK: "no_knock"}
EPISODES = ("hand", "game")
#: The most deadwood ten cards can hold (KK QQ JJ TT 99 in four suits, nothing melded).
MAX_DEADWOOD = 98
#: Rules fields a game parameter may override; -1 (or "") keeps the preset's value.
INT_OVERRIDES = ("gin_bonus", "undercut_bonus", "knock_limit", "target", "wall", "max_turns")
DEFAULT_MAX_HANDS = 500
# one move of the info-state history: mover (3 seats, relative), kind (5), card (52)
MOVE_KINDS = ("pass", "draw_discard", "draw_stock", "knock", "no_knock", "discard")
ALL = -1  # the seat mask of a public event
#: An info-state event: (seat or -1 for a public line, kind or text, card or mask, seen by)
Event = tuple[int, str, int, int]
SLOT_LEN = 3 + len(MOVE_KINDS) + N_CARDS

_PARAMS: dict[str, Any] = {"rules": "three-handed", "episode": "hand", "team_policy": "",
                           "max_hands": DEFAULT_MAX_HANDS, **dict.fromkeys(INT_OVERRIDES, -1)}


def _game_type(tensor_info_state: bool = True) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="ginbox gin rummy (two- and three-handed)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=3,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=tensor_info_state,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMS,
    )


GAME_TYPE = _game_type()


def action_of_move(move: int) -> int:
    """The action of an engine move (a card code, or ``MOVE_*``)."""
    return int(INDEX_OF_CARD[move]) if move < 64 else ACTION_OF_MOVE[move]


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The rules a parameter set names: the preset, then the overrides that are set."""
    overrides: dict[str, Any] = {k: int(params[k]) for k in INT_OVERRIDES
                                 if int(params.get(k, -1)) >= 0}
    if params.get("team_policy", ""):
        overrides["team_policy"] = params["team_policy"]
    return Rules.resolve(params.get("rules", _PARAMS["rules"]), overrides)


def hand_points_bound(rules: Rules) -> int:
    """The most points one hand can score under ``rules`` (gin on a full hand of deadwood,
    or an undercut of a knock at the limit; spade doubling doubles it)."""
    limit = 10 if rules.oklahoma else rules.knock_limit
    bound = max(MAX_DEADWOOD + rules.gin_bonus, limit + rules.undercut_bonus)
    return bound * (2 if rules.spade_doubling else 1)


class GinboxGame(pyspiel.Game):
    """A ginbox game for OpenSpiel: rules from a preset and overrides, a hand or a game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMS, **(params or {})}
        self.rules = rules_from_params(params)
        self.episode = params["episode"]
        if self.episode not in EPISODES:
            raise ValueError(f"episode={self.episode!r}: expected 'hand' or 'game'")
        self.max_hands = int(params["max_hands"])
        if self.max_hands < 1:
            raise ValueError(f"max_hands={self.max_hands}: expected an integer >= 1")
        self.rules_array = self.rules.to_array()
        n = self.rules.players
        self.seatings = 1 if self.rules.initial_roles is not None else math.factorial(n)
        hand_moves = 2 + 3 * self.rules.max_turns
        self.history_slots = hand_moves
        per_hand = N_CARDS + hand_moves
        if self.episode == "hand":
            bound = float(hand_points_bound(self.rules))
            low, high, length = -bound, bound, 1 + per_hand
        else:
            low, high, length = -1.0 / (n - 1), 1.0, 1 + self.max_hands * per_hand
        info = pyspiel.GameInfo(num_distinct_actions=N_ACTIONS,
                                max_chance_outcomes=max(N_CARDS, self.seatings),
                                num_players=n, min_utility=low, max_utility=high,
                                utility_sum=0.0, max_game_length=length)
        super().__init__(_game_type(self.episode == "hand"), info, params)

    def new_initial_state(self) -> GinboxState:
        """A game before its seating and deal."""
        return GinboxState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> GinboxObserver:
        """The observer: the seat's View now, and with perfect recall its history too."""
        return GinboxObserver(self, iig_obs_type or pyspiel.IIGObservationType(
            perfect_recall=False), params)


class GinboxState(pyspiel.State):
    """One game in the engine's buffers (:func:`sim.play.step.table_buffers`)."""

    def __init__(self, game: GinboxGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._rules_array = game.rules_array
        self._hand_only = game.episode == "hand"
        self._max_hands = game.max_hands
        self._seatings = game.seatings
        self._n = game.rules.players
        self.bufs = table_buffers(self._rules_array, log=True)
        self._ids = np.full(3, -1, np.int64)
        self._params = np.full_like(np.zeros((3, 1), np.int64), -1)
        self._seated = False
        self._dealt = 0  # deck positions laid out by chance in this hand
        self._decision = DEC_OVER
        self._seat = -1
        self._over = False
        self._returns = np.zeros(self._n)
        self.roles: list[int] = [-1, -1, -1]
        self.hand_index = -1
        self.records: list[dict[str, Any]] = []
        # per hand: what each seat saw, for the info state (one list of events per hand)
        self.events: list[list[Event]] = []
        if self._seatings == 1:
            self._seat_players(-1)

    # ------------------------------------------------------------------ chance

    def current_player(self) -> int:
        """The deciding seat, CHANCE while seating or dealing, TERMINAL at the end."""
        if self._over:
            return pyspiel.PlayerId.TERMINAL
        if not self._seated or self._dealt < N_CARDS:
            return pyspiel.PlayerId.CHANCE
        return self._seat

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The seatings (uniform), or the cards not yet laid out (uniform)."""
        if not self._seated:
            return [(k, 1.0 / self._seatings) for k in range(self._seatings)]
        left = sorted(set(range(N_CARDS)) - {int(INDEX_OF_CARD[c])
                                             for c in self.bufs.deck[:self._dealt]})
        return [(i, 1.0 / len(left)) for i in left]

    def _seat_players(self, rotation: int) -> None:
        bufs = self.bufs
        game_init(bufs.gs, self._rules_array, np.zeros(1, np.uint64), rotation)
        self._seated = True

    # ------------------------------------------------------------------ moves

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal moves (``legal_moves``) as actions, ascending."""
        if player != self._seat or self._over:
            return []
        out = np.zeros(64, np.int64)
        n = legal_moves(self.bufs.view, self.bufs.after, out)
        moves = [int(m) for m in out[:n]]
        if self._decision == DEC_DISCARD:
            return sorted(int(INDEX_OF_CARD[m]) for m in moves)
        return sorted(ACTION_OF_MOVE[m] for m in moves)

    def _apply_action(self, action: int) -> None:
        """Seat, lay out a card, or play the deciding seat's move through ``apply_move``."""
        bufs = self.bufs
        if not self._seated:
            self._seat_players(int(action))
            return
        if self._dealt < N_CARDS:
            if self._dealt == 0:
                self._begin_hand()
            bufs.deck[self._dealt] = DECK[int(action)]
            self._dealt += 1
            if self._dealt == N_CARDS:
                deal(bufs.hs, bufs.pile, bufs.deck, self._rules_array)
                self._record_deal()
                self._step()
            return
        move = int(DECK[action]) if action < N_CARDS else MOVE_OF_ACTION[int(action)]
        hs = bufs.hs
        mover = int(hs[HS_TO_MOVE])
        top = int(bufs.pile[hs[HS_PILE_LEN] - 1]) if hs[HS_PILE_LEN] > 0 else -1
        stock_top = int(hs[HS_STOCK_TOP])
        err = apply_move(hs, bufs.pile, bufs.deck, bufs.after, bufs.moves, move)
        if err != OK:
            raise pyspiel.SpielError(f"illegal action {action}: {ERROR_TEXT[err]}")
        self._log_event(mover, move, top, stock_top)
        self._step()

    def _begin_hand(self) -> None:
        """The engine's start of a hand (game facts for the views), before the deck is laid
        out; :func:`start_hand` deals from a throw-away shuffle that ``deal`` then replaces."""
        bufs = self.bufs
        start_hand(bufs.gs, bufs.hs, bufs.pile, np.zeros(N_CARDS, np.int64), self._rules_array,
                   np.ones(1, np.uint64), bufs.game_info)
        bufs.mem[:, :] = 0
        self.hand_index += 1
        self.roles = [int(bufs.gs[GS_ROLE_SEAT + r]) for r in range(3)]

    def _step(self) -> None:
        """Play forced moves; stop at the next decision, or score the hand that ended."""
        bufs = self.bufs
        while True:
            stock_top = int(bufs.hs[HS_STOCK_TOP])
            n_moves = int(bufs.hs[HS_N_MOVES])
            decision = advance(bufs.hs, bufs.pile, bufs.deck, bufs.after, bufs.moves)
            if int(bufs.hs[HS_N_MOVES]) > n_moves:  # the forced stock draw
                self._log_event(int(bufs.moves[n_moves, 0]), MOVE_DRAW_STOCK, -1, stock_top)
            if decision != DEC_OVER:
                seat, move = seat_move(decision, self._rules_array, self._ids, self._params, 0,
                                       bufs.gs, bufs.hs, bufs.pile, bufs.game_info, bufs.view,
                                       bufs.after, bufs.mem, bufs.rng[1:2], bufs.scratch)
                assert move == CALLER
                self._decision, self._seat = int(decision), int(seat)
                return
            self._end_hand()
            return

    def _end_hand(self) -> None:
        bufs = self.bufs
        hs, gs = bufs.hs, bufs.gs
        scorer = int(end_hand(gs, hs, self._rules_array))
        self.records.append({"roles": list(self.roles), "deck": bufs.deck.copy(),
                             "hs": hs.copy(), "moves": bufs.moves.copy(), "gs": gs.copy()})
        self._decision, self._seat = DEC_OVER, -1
        points = int(hs[HS_POINTS])
        if self._hand_only:
            if scorer >= 0:
                loser = self.roles[1 - int(hs[HS_WINNER])]
                self._returns[scorer] += points
                self._returns[loser] -= points
            self._over = True
        elif gs[GS_OVER]:
            winner = int(gs[GS_WINNER])
            self._returns[:] = -1.0 / (self._n - 1)
            self._returns[winner] = 1.0
            self._over = True
        elif self.hand_index + 1 >= self._max_hands:
            self._over = True  # cut: no winner, every return 0
        scores = " ".join(str(int(gs[GS_SCORE + s])) for s in range(self._n))
        self.events[-1].append((-1, f"hand {self.hand_index} over: scores {scores}", -1, ALL))
        if not self._over:
            self._dealt = 0

    # ------------------------------------------------------------------ info-state events

    def viewers(self, hand_player: int) -> int:
        """Bit mask of the seats that see ``hand_player``'s cards: its seat, and the sitter
        when it advises the captain (as ``sim.env.core.observe_seat``)."""
        mask = 1 << self.roles[hand_player]
        if (hand_player == 1 and self._n == 3 and self._rules.team_policy == "advisor"):
            mask |= 1 << self.roles[SITTER]
        return mask

    def _record_deal(self) -> None:
        """The hand's public opening (roles, upcard) and each hand player's private cards."""
        roles = ", ".join(f"{name} seat {self.roles[r]}" for r, name in
                          enumerate(("box", "captain", "sitter")[:self._n]))
        upcard = card_str(int(self.bufs.deck[20]))
        hand: list[Event] = [(-1, f"hand {self.hand_index}: {roles}; upcard {upcard}", -1, ALL)]
        for q in range(2):
            hand.append((self.roles[q], "dealt", int(self.bufs.hs[HS_HAND + q]),
                         self.viewers(q)))
        self.events.append(hand)

    def _log_event(self, mover: int, move: int, top: int, stock_top: int) -> None:
        """One move as the seats see it: (seat, kind, card, seats that see it). A stock
        draw's card, and the answer "no" to the knock question (which tells that knocking
        was legal), are seen only by the mover's viewers; the rest is public."""
        private = self.viewers(mover)
        if move == MOVE_NO_KNOCK:
            kind, card, seen = "no_knock", -1, private
        elif move < 64:
            kind, card, seen = "discard", move, ALL
        elif move == MOVE_DRAW_STOCK:
            kind, card, seen = "draw_stock", int(self.bufs.deck[stock_top]), private
        elif move == MOVE_DRAW_DISCARD:
            kind, card, seen = "draw_discard", top, ALL
        else:
            kind, card, seen = ("pass" if move == MOVE_PASS else "knock"), -1, ALL
        self.events[-1].append((self.roles[mover], kind, card, seen))

    # ------------------------------------------------------------------ results

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not self._seated:
                return f"seating {action}"
            return f"deal {card_str(int(DECK[action]))}"
        if action < N_CARDS:
            return f"discard {card_str(int(DECK[action]))}"
        return ACTION_NAMES[int(action)]

    def is_terminal(self) -> bool:
        """The hand (``episode=hand``) or the game is over."""
        return self._over

    def returns(self) -> list[float]:
        """Zero until the end; then as the module docstring says."""
        return [float(r) for r in self._returns]

    def hand_log(self, seats: list[str] | None = None, game: int = 0) -> list[dict[str, Any]]:
        """The finished hands as ``ginbox play --log`` writes them (``sim.records.log``)."""
        names = seats or [f"player {s}" for s in range(self._n)]
        return [hand_record(self._rules, names, game, h, r["roles"], r["deck"], r["hs"],
                            r["moves"], r["gs"]) for h, r in enumerate(self.records)]

    def __str__(self) -> str:
        if not self._seated or self._dealt < N_CARDS:
            return f"hand {self.hand_index + 1}: dealing ({self._dealt} of 52)"
        hs = self.bufs.hs
        hands = " | ".join(" ".join(card_str(c) for c in mask_cards(int(hs[HS_HAND + p])))
                           for p in range(2))
        return (f"hand {self.hand_index} roles {self.roles[:self._n]} to move seat "
                f"{self._seat} ({DECISION_NAMES[self._decision] if self._seat >= 0 else '-'})"
                f" hands {hands}")

    # ------------------------------------------------------------------ what a seat sees

    def hand_player_of(self, seat: int) -> tuple[int, bool]:
        """The hand player whose cards ``seat`` sees now (the advisor sees the captain's),
        and whether it sees none (a sitter's public view), as ``sim.env.core.observe_seat``."""
        if seat in self.roles[:2]:
            return self.roles.index(seat), False
        rules = self._rules
        if rules.team_policy == "advisor" and self._n == 3 and self.roles[SITTER] == seat:
            return 1, False
        return 1, True

    def view_of(self, seat: int, obs: np.ndarray, view: np.ndarray,
                public: bool = False) -> bool:
        """Fill ``view`` (the engine's view array) and ``obs`` (``sim.env.encoding``'s
        observation) for ``seat``: False before the first deal is complete (nothing to see)."""
        if self.hand_index < 0 or self.dealing():
            obs[:] = 0.0
            view[:] = 0
            return False
        bufs = self.bufs
        es = np.zeros(ES_LEN, np.int64)
        # a public observer sees as a seat outside the hand does (the hand hidden)
        es[ES_ROLES:ES_ROLES + 3] = [-1, -1, -1] if public else self.roles
        es[ES_STATUS] = ST_DECIDE if self._seat >= 0 else 0
        es[ES_SEAT] = self._seat
        es[ES_DECISION] = self._decision if self._seat >= 0 else DEC_OVER
        observe_seat(seat, self._rules_array, bufs.hs, bufs.pile, bufs.game_info, view, es, obs)
        return True

    def resampled(self, player: int, seed: int) -> GinboxState:
        """A copy with the hidden cards dealt afresh from ``player``'s view by ``mc``'s world
        sampler (``strategies.mc_worlds.sample_world``, no inference): the other hand
        player's unseen cards and the stock order. ``player`` must be the deciding seat (its
        view is the one the step filled). The other hand player's private history (its dealt
        cards, stock draws) is blanked in the copy, so nothing is keyed by the real cards."""
        world = self.clone()
        if self.dealing() or self._over:
            return world
        if player != self._seat:
            raise pyspiel.SpielError(f"resampling is from the deciding seat's view "
                                     f"({self._seat}), not seat {player}'s")
        bufs = world.bufs
        scratch = np.zeros(SCRATCH_LEN, np.int64)
        sample_world(bufs.view, scratch, np.uint64(seed), 0, 0)
        known = int(opponent_known(bufs.view))
        unseen = scratch[S_UNSEEN:S_UNSEEN + N_CARDS]
        need = 10 - bin(known).count("1")
        p = int(bufs.hs[HS_TO_MOVE])
        other = known
        for c in unseen[:need]:
            other |= 1 << int(c)
        top = int(bufs.hs[HS_STOCK_TOP])
        bufs.hs[HS_HAND + 1 - p] = other
        bufs.deck[top:] = unseen[need:need + N_CARDS - top]
        seat = world.roles[1 - p]
        world.events = [[(s, k, (0 if k == "dealt" else -1) if s == seat and seen != ALL
                          else c, seen) for s, k, c, seen in hand] for hand in world.events]
        return world

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> GinboxState:
        """OpenSpiel's resampling (C++ ``ISMCTSBot``): :meth:`resampled` seeded from the
        sampler's uniform draw."""
        return self.resampled(player_id, int(probability_sampler() * 2**62) + 1)

    def dealing(self) -> bool:
        """True while a deck is being laid out (no hand to see yet)."""
        return not self._over and (not self._seated or self._dealt < N_CARDS)


def _view_text(view: np.ndarray, hidden: bool, pile: np.ndarray) -> str:
    """The facts of a view array as one line (the hand left out for a hidden seat)."""
    def cards(mask: int) -> str:
        return " ".join(card_str(c) for c in mask_cards(int(mask))) or "-"

    def card(c: int) -> str:
        return card_str(int(c)) if c >= 0 else "-"

    pile_cards = " ".join(card_str(int(c)) for c in pile[:int(view[V_PILE_LEN])]) or "-"
    decision = int(view[V_DECISION])
    parts = [
        f"role {'nondealer' if view[V_ROLE] else 'dealer'}",
        f"hand {'hidden' if hidden else cards(view[V_HAND])}",
        f"pile {pile_cards}",
        f"opp took {cards(view[V_OPP_TOOK])}", f"opp discarded {cards(view[V_OPP_DISCARDED])}",
        f"self discarded {cards(view[V_SELF_DISCARDED])}",
        f"declined {card(view[V_SELF_DECLINED])}/{card(view[V_OPP_DECLINED])}",
        f"stock {int(view[V_STOCK])}", f"turn {int(view[V_TURN])}",
        f"knock limit {int(view[V_KNOCK_LIMIT])}",
        f"scores {int(view[V_SCORE_SELF])}/{int(view[V_SCORE_OPP])}/{int(view[V_SCORE_OTHER])}",
    ]
    if decision < DEC_OVER:
        parts.append(f"decide {DECISION_NAMES[decision]}")
    return "; ".join(parts)


class GinboxObserver:
    """OpenSpiel's observer of ``python_ginbox``: the seat's ginbox View, nothing more.

    Without perfect recall: the observation of ``sim.env.encoding`` (tensor) and the View's
    facts (string). With perfect recall: that, plus every move of every hand as the seat saw
    it (the card of a stock draw only to the hand player who drew it, or his advisor), and the
    scores after each hand; the tensor form holds the current hand's moves and exists for
    ``episode=hand`` only (a game's history has no fixed bound worth a tensor).
    """

    def __init__(self, game: GinboxGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.public_only = iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.n = game.rules.players
        pieces: list[tuple[str, int, tuple[int, ...]]] = [("player", self.n, (self.n,)),
                                                          ("view", OBS_LEN, (OBS_LEN,))]
        if self.perfect_recall and game.episode == "hand":
            slots = game.history_slots
            pieces.append(("moves", slots * SLOT_LEN, (slots, SLOT_LEN)))
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size
        self._obs = np.zeros(OBS_LEN, np.float64)
        self._view = np.zeros(len(game.new_initial_state().bufs.view), np.int64)

    def _sees(self, player: int, seen: int) -> bool:
        """Whether ``player`` sees what ``seen`` (a seat mask) may see."""
        return seen == ALL or (not self.public_only and bool((seen >> player) & 1))

    def set_from(self, state: GinboxState, player: int) -> None:
        """The tensor of ``state`` as ``player`` sees it."""
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        if state.view_of(player, self._obs, self._view, self.public_only):
            self.dict["view"][:] = self._obs
        if "moves" not in self.dict or not state.events:
            return
        moves = self.dict["moves"]
        slot = 0
        for seat, kind, card, seen in state.events[-1]:
            if kind not in MOVE_KINDS or slot >= len(moves):
                continue
            if kind == "no_knock" and not self._sees(player, seen):
                continue
            moves[slot, (seat - player) % 3] = 1
            moves[slot, 3 + MOVE_KINDS.index(kind)] = 1
            if card >= 0 and self._sees(player, seen):
                moves[slot, 3 + len(MOVE_KINDS) + int(INDEX_OF_CARD[card])] = 1
            slot += 1

    def string_from(self, state: GinboxState, player: int) -> str:
        """The string of ``state`` as ``player`` sees it."""
        now = self._now(state, player)
        if not self.perfect_recall:
            return now
        lines = [f"seat {player} of {self.n}"]
        for hand in state.events:
            for seat, kind, card, seen in hand:
                if seat < 0:
                    lines.append(kind)
                elif kind == "dealt":
                    if self._sees(player, seen):
                        lines.append(f"seat {seat} dealt " + " ".join(
                            card_str(c) for c in mask_cards(card)))
                elif kind != "no_knock" or self._sees(player, seen):
                    shown = card >= 0 and self._sees(player, seen)
                    lines.append(f"seat {seat} {kind}" + (f" {card_str(card)}" if shown else ""))
        lines.append(now)
        return "\n".join(lines)

    def _now(self, state: GinboxState, player: int) -> str:
        if not state.view_of(player, self._obs, self._view, self.public_only):
            return f"seat {player}: dealing"
        _, hidden = state.hand_player_of(player)
        return f"seat {player}: " + _view_text(self._view, hidden or self.public_only,
                                               state.bufs.pile)


pyspiel.register_game(GAME_TYPE, GinboxGame)
