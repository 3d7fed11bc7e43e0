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
from sim.engine.game import SITTER
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_KNOCK,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)
from sim.engine.rules import Rules
from sim.engine.variants.oklahoma import hand_terms
from sim.engine.view import View
from sim.env.encoding import INDEX_OF_CARD, OBS_LEN, encode_observation
from sim.play.events import HandResult, IllegalMove, Played
from sim.play.seating import Seeds
from sim.play.state import GameListener, GameState
from strategies.moves import KINDS, Move, move_name, move_str

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
#: The non-card actions' strings: their moves' names in the move notation.
ACTION_NAMES = {a: move_name(m) for a, m in MOVE_OF_ACTION.items()}
EPISODES = ("hand", "game")
#: The most deadwood ten cards can hold (KK QQ JJ TT 99 in four suits, nothing melded).
MAX_DEADWOOD = 98
#: Rules fields a game parameter may override; -1 (or "") keeps the preset's value.
INT_OVERRIDES = ("gin_bonus", "undercut_bonus", "knock_limit", "target", "wall", "max_turns")
DEFAULT_MAX_HANDS = 500
#: The seeds of every game: its chance is laid out by OpenSpiel, so none is drawn from them.
_SEEDS = Seeds.from_seed(0)
# one move of the info-state history: mover (3 seats, relative), kind (6), card (52)
MOVE_KINDS = KINDS
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
    or an undercut of a knock at the limit; spade doubling doubles it): the largest knock
    limit and multiplier any upcard gives (the engine's ``hand_terms``)."""
    array = rules.to_array()
    terms = [hand_terms(array, int(card)) for card in DECK]
    limit = max(int(t[0]) for t in terms)
    bound = max(MAX_DEADWOOD + rules.gin_bonus, limit + rules.undercut_bonus)
    return bound * max(int(t[1]) for t in terms)


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


class _Episode(GameListener):
    """What ``python_ginbox`` keeps beside the game: each hand's information-state events as
    the game tells them, the returns, and whether the episode is over. It is the game's
    listener (:class:`sim.play.state.GameListener`), reached only through the game and holding
    no reference back to it, so a copy of a state (OpenSpiel copies a state's attributes one
    by one, and pickles them) copies it with its game."""

    def __init__(self, game: GinboxGame) -> None:
        self.rules = game.rules
        self.n = game.rules.players
        self.hand_only = game.episode == "hand"
        self.max_hands = game.max_hands
        self.over = False
        self.returns = np.zeros(self.n)
        # per hand: what each seat saw, for the info state (one list of events per hand)
        self.events: list[list[Event]] = []

    def viewers(self, roles: tuple[int, ...], hand_player: int) -> int:
        """Bit mask of the seats that see ``hand_player``'s cards: its seat, and the sitter
        when it advises the captain (as ``sim.env.core.observe_seat``)."""
        mask = 1 << roles[hand_player]
        if hand_player == 1 and self.n == 3 and self.rules.team_policy == "advisor":
            mask |= 1 << roles[SITTER]
        return mask

    def hand_started(self, state: GameState) -> None:
        """The hand's public opening (roles, upcard) and each hand player's private cards."""
        roles = ", ".join(f"{name} seat {state.roles[r]}" for r, name in
                          enumerate(("box", "captain", "sitter")[:self.n]))
        upcard = card_str(state.discard_pile[0])
        hand: list[Event] = [(-1, f"hand {state.hand}: {roles}; upcard {upcard}", -1, ALL)]
        for q in range(2):
            cards = sum(1 << c for c in state.hand_cards(q))
            hand.append((state.roles[q], "dealt", cards, self.viewers(state.roles, q)))
        self.events.append(hand)

    def moved(self, state: GameState, played: Played) -> None:
        """One move as the seats see it: (seat, kind, card, seats that see it). A stock
        draw's card, and the answer "no" to the knock question (which tells that knocking
        was legal), are seen only by the mover's viewers; the rest is public."""
        move = Move.of_code(played.move)
        private = self.viewers(state.roles, played.player)
        card, seen = {"no_knock": (-1, private), "discard": (played.move, ALL),
                      "draw_stock": (played.drawn, private),
                      "draw_discard": (played.top, ALL)}.get(move.kind, (-1, ALL))
        self.events[-1].append((played.seat, move.kind, card, seen))

    def hand_ended(self, state: GameState, result: HandResult) -> None:
        """The returns of an episode that ends here; chance deals the next hand otherwise."""
        if self.hand_only:
            if result.winner is not None:
                loser = result.roles[0] if result.winner == result.roles[1] else result.roles[1]
                self.returns[result.winner] += result.points
                self.returns[loser] -= result.points
            self.over = True
        elif state.result is not None:
            self.returns[:] = -1.0 / (self.n - 1)
            self.returns[state.result.winner] = 1.0
            self.over = True
        elif result.hand + 1 >= self.max_hands:
            self.over = True  # cut: no winner, every return 0
        scores = " ".join(str(v) for v in result.scores)
        self.events[-1].append((-1, f"hand {result.hand} over: scores {scores}", -1, ALL))


class GinboxState(pyspiel.State):
    """One game as OpenSpiel sees it: a :class:`sim.play.state.GameState` whose seats are all
    the players' and whose seating and deals come from OpenSpiel's chance nodes."""

    def __init__(self, game: GinboxGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._seatings = game.seatings
        self._n = game.rules.players
        self._unseated: _Episode | None = _Episode(game)  # the game's listener once seated
        self.game: GameState | None = None  # seated by the first chance node
        self._laid: list[int] = []  # the next hand's deck as chance has laid it out so far
        self._hand_start = 0  # where this hand's deal begins in history()
        if self._seatings == 1:
            self._seat_players(None)

    @property
    def roles(self) -> tuple[int, ...]:
        """Seats of the box (dealer), captain (non-dealer) and sitter in the current hand."""
        return self.game.roles if self.game is not None else ()

    @property
    def hand_index(self) -> int:
        """The hand being played (or the last one), -1 before the first deal."""
        return self.game.hand if self.game is not None else -1

    @property
    def _episode(self) -> _Episode:
        """The episode's events, returns and end: the game's listener."""
        episode = self._unseated if self.game is None else self.game.listener
        return episode  # type: ignore[return-value]  # an _Episode, set by _seat_players

    @property
    def events(self) -> list[list[Event]]:
        """Per hand, every event of the info state: (seat or -1, kind or text, card or mask,
        the seats that see it)."""
        return self._episode.events

    def viewers(self, hand_player: int) -> int:
        """Bit mask of the seats that see ``hand_player``'s cards this hand."""
        return self._episode.viewers(self.roles, hand_player)

    # ------------------------------------------------------------------ chance

    def current_player(self) -> int:
        """The deciding seat, CHANCE while seating or dealing, TERMINAL at the end (asked
        often by OpenSpiel: kept to a few lookups)."""
        game = self.game
        if game is None:
            return pyspiel.PlayerId.CHANCE
        if game.listener.over:  # type: ignore[union-attr]  # an _Episode
            return pyspiel.PlayerId.TERMINAL
        seat = game.seat
        return pyspiel.PlayerId.CHANCE if seat is None else seat

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The seatings (uniform), or the cards not yet laid out (uniform)."""
        if self.game is None:
            return [(k, 1.0 / self._seatings) for k in range(self._seatings)]
        left = sorted(set(range(N_CARDS)) - {int(INDEX_OF_CARD[c]) for c in self._laid})
        return [(i, 1.0 / len(left)) for i in left]

    def _seat_players(self, rotation: int | None) -> None:
        self.game = GameState(self._rules, None, seed=_SEEDS, deals="caller",
                              listener=self._unseated, rotation=rotation,
                              names=[f"player {s}" for s in range(self._n)])
        self._unseated = None

    # ------------------------------------------------------------------ moves

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal moves (``legal_moves``) as actions, ascending."""
        if self.game is None or player != self.game.seat or self._episode.over:
            return []
        moves = self.game.legal_moves()
        if self.game.decision_code == DEC_DISCARD:
            return sorted(int(INDEX_OF_CARD[m]) for m in moves)
        return sorted(ACTION_OF_MOVE[m] for m in moves)

    def _apply_action(self, action: int) -> None:
        """Seat, lay out a card, or play the deciding seat's move (the game refuses an
        illegal one with the engine's reason)."""
        if self.game is None:
            self._seat_players(int(action))
            return
        if self.game.needs_deal:
            if not self._laid:
                self._hand_start = len(self.history())  # this action's place: the deal's
            self._laid.append(int(DECK[int(action)]))
            if len(self._laid) == N_CARDS:
                deck, self._laid = self._laid, []
                self.game.deal(deck)
            return
        move = int(DECK[action]) if action < N_CARDS else MOVE_OF_ACTION[int(action)]
        try:
            self.game.play(move)
        except IllegalMove as exc:
            raise pyspiel.SpielError(f"illegal action {action}: {exc.reason}") from None

    # ------------------------------------------------------------------ results

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.game is None:
                return f"seating {action}"
            return f"deal {card_str(int(DECK[action]))}"
        move = int(DECK[action]) if action < N_CARDS else MOVE_OF_ACTION[int(action)]
        return move_str(Move.of_code(move), "spelled")

    def is_terminal(self) -> bool:
        """The hand (``episode=hand``) or the game is over."""
        return self._episode.over

    def returns(self) -> list[float]:
        """Zero until the end; then as the module docstring says."""
        return [float(r) for r in self._episode.returns]

    def hand_log(self, seats: list[str] | None = None, game: int = 0) -> list[dict[str, Any]]:
        """The finished hands as ``ginbox play --log`` writes them (``sim.records.log``)."""
        records = self.game.records if self.game is not None else []
        names = list(seats or [f"player {s}" for s in range(self._n)])
        return [{**r, "game": game, "seats": names} for r in records]

    def __str__(self) -> str:
        if self.dealing():
            return f"hand {self.hand_index + 1}: dealing ({len(self._laid)} of 52)"
        assert self.game is not None
        hands = " | ".join(" ".join(card_str(c) for c in self.game.hand_cards(p))
                           for p in range(2))
        decision = self.game.decision or "-"
        return (f"hand {self.hand_index} roles {list(self.roles)} to move seat "
                f"{self.game.seat if self.game.seat is not None else -1} ({decision})"
                f" hands {hands}")

    # ------------------------------------------------------------------ what a seat sees

    def view_of(self, seat: int, obs: np.ndarray | None, public: bool = False) -> str | None:
        """What ``seat`` sees now: ``obs`` (``sim.env.encoding``'s observation) filled when
        given, else the view as one line of text; False (no observation) or None (no text)
        before the first deal is complete. A seat outside the hand (and a public observer)
        sees the captain's view, the hand hidden, as ``sim.env.core.observe_seat``."""
        if self.hand_index < 0 or self.dealing():
            if obs is not None:
                obs[:] = 0.0
            return None
        assert self.game is not None
        view, hidden = self.game.seat_view(seat, public)
        if obs is not None:
            encode_observation(view, obs, hidden)
            return ""
        return _view_text(view, hidden, self.game.discard_pile)

    def resampled(self, player: int, seed: int) -> GinboxState:
        """A state of ``player``'s information set: the other hand player's unseen cards and
        the stock order dealt afresh by ``mc``'s world sampler
        (:meth:`sim.play.state.GameState.resampled_deal`, no inference) from ``player``'s view
        (``player`` must be the deciding seat).

        The state is rebuilt, not patched: the game's actions are replayed on a new state
        with the sampled cards in the deck positions the real hidden ones held, so its
        hands, deck, deadwood, events and ``history()`` all tell the sampled world and none
        of them the real hidden cards (a copy would keep them, in its history for one). The
        other player's answers to the knock question, which ``player`` never sees, are
        replayed as his sampled hand allows: "no" where it is asked, dropped where not."""
        if self.dealing() or self._episode.over:
            return self.clone()
        assert self.game is not None
        if player != self.game.seat:
            raise pyspiel.SpielError(f"resampling is from the deciding seat's view "
                                     f"({self.game.seat}), not seat {player}'s")
        deck = self.game.resampled_deal(seed)
        history = self.history()
        world = self.get_game().new_initial_state()
        for action in history[:self._hand_start]:  # the seating and the hands before
            world.apply_action(action)
        for card in deck:
            world.apply_action(int(INDEX_OF_CARD[card]))
        for action in history[self._hand_start + N_CARDS:]:
            if action == A_NO_KNOCK and world.game.decision_code != DEC_KNOCK:
                continue  # his sampled hand cannot knock here: the question is not asked
            while world.game.decision_code == DEC_KNOCK and action not in (A_KNOCK, A_NO_KNOCK):
                world.apply_action(A_NO_KNOCK)  # it can: he declines, as he played on
            world.apply_action(action)
        if world.game.seat != self.game.seat or \
                world.game.decision_code != self.game.decision_code:
            raise pyspiel.SpielError("the resampled world does not reach the decision")
        return world

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> GinboxState:
        """OpenSpiel's resampling (C++ ``ISMCTSBot``): :meth:`resampled` seeded from the
        sampler's uniform draw."""
        return self.resampled(player_id, int(probability_sampler() * 2**62) + 1)

    def dealing(self) -> bool:
        """True while a deck is being laid out (no hand to see yet)."""
        return not self._episode.over and (self.game is None or self.game.needs_deal)


def _view_text(view: np.ndarray, hidden: bool, pile: tuple[int, ...]) -> str:
    """The facts of a view array as one line (the hand left out for a hidden seat)."""
    seen = View.from_arrays(view, pile)

    def cards(codes: tuple[int, ...]) -> str:
        return " ".join(card_str(c) for c in codes) or "-"

    def card(c: int | None) -> str:
        return card_str(c) if c is not None else "-"

    parts = [
        f"role {seen.role}",
        f"hand {'hidden' if hidden else cards(seen.hand)}",
        f"pile {cards(seen.discard_pile)}",
        f"opp took {cards(seen.opponent_took)}",
        f"opp discarded {cards(seen.opponent_discarded)}",
        f"self discarded {cards(seen.self_discarded)}",
        f"declined {card(seen.self_declined)}/{card(seen.opponent_declined)}",
        f"stock {seen.stock_count}", f"turn {seen.turn}", f"knock limit {seen.knock_limit}",
        f"scores {seen.score}/{seen.opponent_score}/{seen.other_score}",
    ]
    if seen.decision != "none":
        parts.append(f"decide {seen.decision}")
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

    def _sees(self, player: int, seen: int) -> bool:
        """Whether ``player`` sees what ``seen`` (a seat mask) may see."""
        return seen == ALL or (not self.public_only and bool((seen >> player) & 1))

    def set_from(self, state: GinboxState, player: int) -> None:
        """The tensor of ``state`` as ``player`` sees it."""
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        if state.view_of(player, self._obs, self.public_only) is not None:
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
        text = state.view_of(player, None, self.public_only)
        return f"seat {player}: " + (text if text is not None else "dealing")


pyspiel.register_game(GAME_TYPE, GinboxGame)
