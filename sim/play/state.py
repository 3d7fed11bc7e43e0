"""One game of gin as a Python object: :class:`GameState`, what every Python front end steps.

Why "state": as OpenSpiel's ``State`` (and pgx's ``State``), the object *is* a game in
progress, with its history, and it is what one hands a search, a person or a learning seat.
The engine's own ``gs`` and ``hs`` arrays (the game and hand state) are its insides; this
module is their one Python owner, so no front end above it reads a buffer offset.

A ``GameState`` holds one game's buffers (:func:`sim.play.step.table_buffers`) and steps them
through the engine's kernels and the one game loop (:func:`sim.play.loop.play_hand`): the
built-in seats play themselves, and the object stops at each decision that is the caller's (a
``None`` seat, a seat in ``controlled``, a Python strategy, a person), says whose move it is,
what is asked, what is legal and what the seat sees, and plays or refuses a move. Finished
hands give :attr:`last_hand`, the hand-log :attr:`records` and the per-game :attr:`stats_row`;
:meth:`clone` copies every buffer and :meth:`replay` rebuilds a game from its seed and the
caller's moves (:attr:`history`), all a stateless front end keeps. Game ``g`` of seed ``s``
deals the cards of game ``g`` of ``ginbox play --seed s``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from sim.engine.cards import N_CODES, parse_card
from sim.engine.game import (
    GO_LEN,
    end_hand,
    game_fields,
    game_init,
    record_game,
    record_hand,
)
from sim.engine.hand import (
    DEC_OVER,
    ERR_BAD_MOVE,
    ERROR_TEXT,
    MOVE_DRAW_STOCK,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    hand_fields,
)
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import DECISION_NAMES, View, fill_player_view, legal_moves
from sim.play.events import (
    GameResult,
    HandResult,
    IllegalMove,
    Played,
    StrategyError,
    move_code,
    move_name,
)
from sim.play.loop import NO_HOOKS, begin_hand, play_hand
from sim.play.seating import Lineup, Seeds, check_seed
from sim.play.step import CALLER, GameBuffers, seat_move, table_buffers
from sim.records.log import hand_record, hand_result, rules_of, settle_declared_in
from sim.records.replay import deck_of, game_state_before, scores_before
from sim.records.schema import HandRecord
from strategies._dispatch import decide
from strategies.builtin import SCRATCH_LEN
from strategies.mc_belief import opponent_known
from strategies.mc_worlds import S_UNSEEN, inference, sample_world
from strategies.registry import StrategySpec, parse_strategy, resolve

#: Role names by role index, three-handed (the box deals, the captain is the non-dealer).
ROLE_NAMES = ("box", "captain", "sitter")
#: Role names by role index, two-player.
ROLE_NAMES_2 = ("dealer", "non-dealer")


class GameListener:
    """What a front end may watch as a :class:`GameState` plays (each method optional; the
    object calls them in play order). With a listener the object steps every decision in
    Python; without one the built-ins' moves run inside one compiled call."""

    def hand_started(self, state: GameState) -> None:
        """A hand was dealt (``state.roles`` and ``state.hand`` are the new hand's)."""

    def deciding(self, state: GameState) -> None:
        """A decision is about to be answered (a built-in's too): ``state.seat`` decides, and
        nothing of the decision is taken yet (its view is filled; the strategies' memory and
        random stream are as the decision finds them)."""

    def moved(self, state: GameState, played: Played) -> None:
        """A move was played (including the stock draw the rules force)."""

    def showdown(self, state: GameState) -> None:
        """A hand just ended with a knock, before it is scored: the listener may settle it
        again on the melds the players declared (:meth:`GameState.settle_declared`)."""

    def hand_ended(self, state: GameState, result: HandResult) -> None:
        """A hand ended and was scored (and logged, when the object logs)."""


#: How a hand's deck comes: shuffled from the game's deck stream, or laid out by the caller.
DEALS = ("shuffle", "caller")
#: The seat step's mask of the caller's seats with every seat in it: it then fills the view
#: and names the deciding seat without asking any strategy.
_EVERY_SEAT = 0b111


class GameState:
    """One game, stepped to each decision that is the caller's (see the module docstring).

    ``rules``: a ``Rules`` or a preset name. ``strategies``: one per seat (a text such as
    ``"mc,simple"``, or a list of names, specs, strategy objects, or None for a seat the caller
    plays); None: every seat is the caller's. ``seed`` (or the run's :class:`Seeds`) and
    ``game`` pick the deals and the built-ins' random stream as ``ginbox play --seed`` does for
    its game ``game``. ``controlled``: seats the caller plays although they name a built-in
    (a learning seat). ``names``: the seats' names in the hand log (default: the strategy
    texts). ``log``: keep the hand-log :attr:`records`. ``rotation``: seat the game by the
    rotation (permutation ``rotation`` of the seats, as an experiment's ``seating="rotate"``)
    instead of the rules' draw. ``deals="caller"``: each hand waits for :meth:`deal` (a
    game's chance laid out from outside, as OpenSpiel's chance nodes do). ``listener``: a
    :class:`GameListener` told of every hand, decision and move.
    """

    def __init__(self, rules: Rules | str | None = None, strategies: Any = None, *,
                 seed: int | Seeds = 0, game: int = 0, controlled: Iterable[int] = (),
                 names: Sequence[str] | None = None, log: bool = True,
                 rotation: int | None = None, deals: str = "shuffle",
                 listener: GameListener | None = None) -> None:
        if deals not in DEALS:
            raise ValueError(f"deals={deals!r} is not valid: expected 'shuffle' or 'caller'")
        self.rules = Rules.resolve(rules)
        self.lineup = Lineup.of(self.rules, strategies, controlled, names)
        self.seeds = seed if isinstance(seed, Seeds) else Seeds.from_seed(check_seed(seed))
        self.game = game
        self.log = log
        self._declared: dict[str, list[list[str]]] | None = None  # this hand's, if settled so
        self.listener = listener
        self._shuffle = deals == "shuffle"
        self._rules_array = self.rules.to_array()
        self._seating = self.lineup.seating(self._rules_array)
        self.bufs = table_buffers(self._rules_array, log)
        self.bufs.rng[0] = stream_seed(self.seeds.deck, game)
        self.bufs.rng[1] = stream_seed(self.seeds.strategy, game)
        self._strategy_seed = int(self.bufs.rng[1])
        self._rng: np.random.Generator | None = None
        self.hand = -1  # the hand being played (or last played), 0 for the first
        self.roles: tuple[int, ...] = ()  # seats of the box (dealer), captain, sitter
        self.history: list[int] = []  # the caller's moves, in order: what replay() takes
        self.records: list[HandRecord] = []  # the hand log, when logging
        self.stats_row = np.zeros(GO_LEN, np.int64)  # the game's statistics (GAME_COLUMNS)
        self._in_hand = False
        self._decision, self._seat = DEC_OVER, -1
        self._dealt = np.zeros(52, np.int64)
        self._last: tuple[int, tuple[int, ...], np.ndarray, tuple[int, ...]] | None = None
        self._last_result: HandResult | None = None
        game_init(self.bufs.gs, self._rules_array, self.bufs.rng[0:1],
                  -1 if rotation is None else rotation)
        self._advance()

    # --------------------------------------------------------------------- whose move

    @property
    def waiting(self) -> bool:
        """A decision is the caller's to play now (:attr:`seat` decides it)."""
        return self._seat >= 0

    @property
    def game_over(self) -> bool:
        """The game is over: every hand played, scored and logged."""
        return bool(game_fields(self.bufs.gs).over) and not self._in_hand

    @property
    def in_hand(self) -> bool:
        """A hand is being played (dealt, not yet scored)."""
        return self._in_hand

    @property
    def needs_deal(self) -> bool:
        """Under ``deals="caller"``: the next hand waits for :meth:`deal`."""
        return not self._shuffle and not self._in_hand and not game_fields(self.bufs.gs).over

    @property
    def seat(self) -> int | None:
        """The seat that decides now (the advisor when it decides for the captain)."""
        return self._seat if self._seat >= 0 else None

    @property
    def hand_player(self) -> int | None:
        """The hand player the decision is for: 0 the dealer (the box), 1 the non-dealer."""
        return int(hand_fields(self.bufs.hs).to_move) if self._seat >= 0 else None

    @property
    def role(self) -> str | None:
        """The role the decision is for: ``box``/``captain``, or ``dealer``/``non-dealer``."""
        p = self.hand_player
        return None if p is None else self.role_names[p]

    @property
    def role_names(self) -> tuple[str, ...]:
        """The names of the roles, by role index (:attr:`roles` order)."""
        return ROLE_NAMES if self.rules.players == 3 else ROLE_NAMES_2

    @property
    def advised(self) -> bool:
        """The deciding seat decides for another's hand (the advisor for the captain)."""
        p = self.hand_player
        return p is not None and self._seat != self.roles[p]

    @property
    def decision(self) -> str | None:
        """What is asked: ``offer`` (take the first upcard?), ``draw``, ``knock`` (asked only
        when knocking is legal) or ``discard``; None when no decision waits."""
        return DECISION_NAMES[self._decision] if self._seat >= 0 else None

    @property
    def decision_code(self) -> int:
        """:attr:`decision` as the engine's ``DEC_*`` code (``DEC_OVER`` when none waits)."""
        return self._decision if self._seat >= 0 else DEC_OVER

    @property
    def scores(self) -> tuple[int, ...]:
        """Each seat's hand points so far (what counts towards the target)."""
        return tuple(int(s) for s in game_fields(self.bufs.gs).score[:self.rules.players])

    # --------------------------------------------------------------------- what is legal

    def legal_moves(self) -> list[int]:
        """The legal answers as engine codes (the engine's ``legal_moves``), ascending:
        ``MOVE_*`` of ``sim.engine.hand``, or card codes at a discard; [] when none waits."""
        if self._seat < 0:
            return []
        out = np.zeros(N_CODES, np.int64)
        n = legal_moves(self.bufs.player_view, self.bufs.after.copy(), out)  # its memo left alone
        return [int(m) for m in out[:n]]

    def legal_move_names(self) -> list[str]:
        """:meth:`legal_moves` as the hand log names them (``draw_stock``, ``9H``, ...)."""
        return [move_name(m) for m in self.legal_moves()]

    # --------------------------------------------------------------------- what is seen

    @property
    def rng(self) -> np.random.Generator:
        """The Python strategies' random generator, seeded from the game's strategy stream
        (as ``ginbox play`` seeds it): the ``rng`` of every :meth:`view`."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._strategy_seed)
        return self._rng

    def view(self) -> View:
        """What the deciding seat sees (the captain's view for an advisor): the View a
        Python strategy is handed. ValueError when no decision waits."""
        if self._seat < 0:
            raise ValueError("no decision is waiting: " + self._why_not_waiting())
        return View.from_arrays(self.bufs.player_view, self.bufs.pile, self.rng)

    @property
    def view_array(self) -> np.ndarray:
        """The deciding seat's view as the engine's array (``V_*``), for compiled callers
        (``strategies._dispatch.decide``, ``mc``'s option values): the live buffer, so copy
        it to keep it."""
        return self.bufs.player_view

    @property
    def after(self) -> np.ndarray:
        """The rules' turn scratch (the engine's ``after`` memo) that goes with
        :attr:`view_array`: the live buffer, so copy it to keep it."""
        return self.bufs.after

    @property
    def memory(self) -> np.ndarray:
        """The deciding hand player's per-hand strategy memory that goes with
        :attr:`view_array`, for a compiled strategy that decides for it from outside (the
        live buffer: a decision updates it, as in the seat step)."""
        return self.bufs.mem[int(hand_fields(self.bufs.hs).to_move)]

    def seat_view(self, seat: int, public: bool = False) -> tuple[np.ndarray, bool]:
        """What ``seat`` sees now, as a view array, and whether its hand is hidden: its own
        hand's view if it plays this hand (an advisor sees the captain's), else the captain's
        view with the hand hidden; ``public`` hides it for every seat. The decision is set
        only in the deciding seat's view."""
        p = -1 if public else (self.roles.index(seat) if seat in self.roles[:2] else -1)
        if (p < 0 and not public and self.rules.team_policy == "advisor"
                and self.rules.players == 3 and self.roles[2] == seat):
            p = 1
        view = np.zeros_like(self.bufs.player_view)
        decision = self._decision if self._seat == seat else DEC_OVER
        fill_player_view(view, self.bufs.hs, self.bufs.pile, self.bufs.game_info,
                         1 if p < 0 else p, decision)
        return view, p < 0

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """The discard pile now, bottom first (the top card last)."""
        return tuple(int(c) for c in self.bufs.pile[:int(hand_fields(self.bufs.hs).pile_len)])

    def hand_cards(self, player: int) -> list[int]:
        """The cards hand player ``player`` holds now (all-knowing: for a finished hand's
        display, tests, an omniscient front end; a seat sees only its :meth:`view`)."""
        mask = int(hand_fields(self.bufs.hs).hand[player])
        return [c for c in range(N_CODES) if (mask >> c) & 1]

    @property
    def upcard(self) -> int:
        """The card turned up at this hand's deal (the pile's first card)."""
        return int(self._dealt[20])

    def hand_moves(self) -> list[tuple[int, int]]:
        """This hand's moves so far, ``(hand player, move)`` in order."""
        return [(int(p), int(m)) for p, m in self.bufs.moves[:self.moves_this_hand]]

    @property
    def stock_left(self) -> int:
        """Cards left in the stock."""
        return 52 - int(hand_fields(self.bufs.hs).stock_top)

    @property
    def turn(self) -> int:
        """Turns completed this hand (a draw and a discard each)."""
        return int(hand_fields(self.bufs.hs).turns)

    @property
    def moves_this_hand(self) -> int:
        """Moves of the current hand so far, as the hand log counts them (a declined knock
        is not one; the stock draw the rules force after two passes is)."""
        return int(hand_fields(self.bufs.hs).n_moves)

    def ask(self, strategy: int | str | StrategySpec) -> int | None:
        """The move a built-in would play at this decision, asked on copies (nothing
        changes): seat ``strategy``'s (None if that seat is not a built-in), or a registered
        built-in named by text or spec, deciding from the deciding seat's view."""
        if self._seat < 0:
            return None
        if isinstance(strategy, int | np.integer):
            sid, params = int(self.lineup.ids[strategy]), self.lineup.params[strategy]
            if sid < 0:
                return None
        else:
            spec = resolve([parse_strategy(strategy)], self.rules)[0]
            if not spec.compiled:
                raise ValueError(f"{spec.text!r} is not a registered built-in strategy")
            sid, params = int(spec.strategy_id or 0), spec.params_array()
        b = self.bufs
        p = int(hand_fields(b.hs).to_move)
        return int(decide(sid, self._decision, params, b.player_view.copy(), b.after.copy(),
                          b.mem[p].copy(), b.rng[1:2].copy(), np.zeros(SCRATCH_LEN, np.int64)))

    # --------------------------------------------------------------------- playing

    def play(self, move: int | str) -> None:
        """Play the deciding seat's ``move`` (an engine code, or its :func:`move_name` text)
        and go on to the next decision that is the caller's, the built-ins playing theirs.
        IllegalMove, with nothing changed, when the engine refuses it (its reason given)."""
        if self._seat < 0:
            raise IllegalMove("no decision is waiting: " + self._why_not_waiting())
        code = move_code(move)
        if not 0 <= code <= MOVE_NO_KNOCK:
            raise IllegalMove(f"{move!r} is not a move: {ERROR_TEXT[ERR_BAD_MOVE]}",
                              ERROR_TEXT[ERR_BAD_MOVE])
        err = self._apply(code)
        if err != OK:
            raise IllegalMove(f"{move_name(code)} is not legal now: {ERROR_TEXT[err]}",
                              ERROR_TEXT[err])
        self.history.append(code)
        self._advance()

    def deal(self, cards: Sequence[int | str] | np.ndarray) -> None:
        """Under ``deals="caller"``: deal the next hand from ``cards``, the 52 cards in the
        engine's order (dealer's 10, non-dealer's 10, the upcard, the stock from the top), as
        codes or text; then play on to the caller's next decision."""
        if not self.needs_deal:
            raise ValueError("no deal is awaited: " + (
                "the hands are shuffled from the seed" if self._shuffle else
                "a hand is being played" if self._in_hand else "the game is over"))
        codes = np.array([parse_card(c) if isinstance(c, str) else int(c) for c in cards],
                         np.int64)
        if len(codes) != 52 or len(set(codes.tolist())) != 52 or any(
                c < 0 or c >= N_CODES or c % 16 >= 13 for c in codes.tolist()):
            raise ValueError("the deal is not a 52-card deck: expected each card once")
        self._start_hand(codes)
        self._advance()

    def _why_not_waiting(self) -> str:
        if self.game_over:
            return "the game is over"
        return "the next hand waits for its deal" if self.needs_deal else "the hand is over"

    def _start_hand(self, deck: np.ndarray | None) -> None:
        """Deal the next hand: shuffled from the deck stream, or from ``deck``."""
        b = self.bufs
        if deck is not None:
            b.deck[:] = deck
        begin_hand(self._rules_array, b, deck is None)
        self.roles = tuple(int(r) for r in game_fields(b.gs).role_seat[:self.rules.players])
        self._dealt = b.deck.copy()
        self.hand += 1
        self._in_hand = True
        if self.listener is not None:
            self.listener.hand_started(self)

    def _advance(self) -> None:
        """Play on to the next decision that is the caller's: the built-ins' moves (inside
        one compiled call when no listener watches), hand ends, the next deals."""
        b = self.bufs
        lineup = self.lineup
        while True:
            if not self._in_hand:
                if game_fields(b.gs).over or not self._shuffle:
                    self._seat, self._decision = -1, DEC_OVER
                    return
                self._start_hand(None)
            if self.listener is None:
                decision, seat, err = play_hand(self._seating, b, NO_HOOKS)
                if err != OK:
                    raise StrategyError(self._refused(int(seat), int(err)))
            else:
                decision, seat = self._play_watched()
            if decision == DEC_OVER:
                self._end_hand()
                continue
            self._decision, self._seat = int(decision), int(seat)
            kernel = lineup.kernel(self._seat)
            if kernel is None:
                return
            p = int(hand_fields(b.hs).to_move)  # a compiled strategy the dispatcher does not know
            move = int(kernel(self._decision, lineup.params[self._seat], b.player_view, b.after,
                              b.mem[p], b.rng[1:2], b.scratch))
            err = self._apply(move)
            if err != OK:
                raise StrategyError(self._refused(self._seat, err))

    def _play_watched(self) -> tuple[int, int]:
        """:func:`sim.play.loop.play_hand` one move at a time, telling the listener."""
        b = self.bufs
        listener = self.listener
        assert listener is not None
        hand = hand_fields(b.hs)
        while True:
            logged, stock_top = int(hand.n_moves), int(hand.stock_top)
            decision = int(advance(b.hs, b.pile, b.deck, b.after, b.moves))
            if int(hand.n_moves) > logged:  # the stock draw forced after two passes
                p = int(hand.to_move)
                listener.moved(self, Played(self.hand, self.roles[p], p, self.roles[p], -1,
                                            MOVE_DRAW_STOCK, -1, int(b.deck[stock_top])))
            if decision == DEC_OVER:
                return DEC_OVER, -1
            seating = self._seating
            seat, _ = seat_move(decision, seating._replace(controlled=_EVERY_SEAT), b,
                                b.rng[1:2])  # the view and the seat; nothing chosen
            self._decision, self._seat = decision, int(seat)
            listener.deciding(self)
            seat, move = seat_move(decision, seating, b, b.rng[1:2])
            if move == CALLER:
                return decision, int(seat)
            err = self._apply(int(move))
            if err != OK:
                raise StrategyError(self._refused(self._seat, err))

    def _apply(self, move: int) -> int:
        """Play ``move`` for the deciding seat through ``apply_move``: OK, or the engine's
        error code with nothing changed. The listener hears of a move played."""
        b = self.bufs
        if self.listener is None:
            return int(apply_move(b.hs, b.pile, b.deck, b.after, b.moves, move))
        hand = hand_fields(b.hs)
        p, n, stock_top = int(hand.to_move), int(hand.pile_len), int(hand.stock_top)
        top = int(b.pile[n - 1]) if n else -1
        err = int(apply_move(b.hs, b.pile, b.deck, b.after, b.moves, move))
        if err == OK:
            drawn = int(b.deck[stock_top]) if move == MOVE_DRAW_STOCK else -1
            self.listener.moved(self, Played(self.hand, self.roles[p], p, self._seat,
                                             self._decision, move, top, drawn))
        return err

    def _refused(self, seat: int, err: int) -> str:
        spec = self.lineup.specs[seat]
        name = spec.text if spec is not None else self.lineup.names[seat]
        return (f"strategy {name!r} (seat {seat}) made an illegal move in game {self.game}, "
                f"hand {self.hand}: {ERROR_TEXT[err]}")

    def settle_declared(self, knocker_melds: Sequence[Sequence[str]],
                        defender_melds: Sequence[Sequence[str]]) -> int:
        """From :meth:`GameListener.showdown` only: settle the knock the EAAI framework's way
        on the melds each side declared (card texts, the knocker's in his order; see
        :func:`sim.engine.hand.settle_declared_hand`). A negative outcome (an illegal
        declaration) leaves the hand as it was, for the caller's forfeit."""
        outcome = settle_declared_in(self.bufs.hs, knocker_melds, defender_melds)
        if outcome >= 0:  # the hand log keeps them: its replay settles on them again
            self._declared = {"knocker": [list(m) for m in knocker_melds],
                              "defender": [list(m) for m in defender_melds]}
        return outcome

    def _end_hand(self) -> None:
        """Score, count and log the finished hand (a knock shown to the listener first)."""
        b = self.bufs
        self._declared = None
        if self.listener is not None and hand_fields(b.hs).knocker >= 0:
            self.listener.showdown(self)
        record_hand(self.stats_row, b.gs, b.hs)
        end_hand(b.gs, b.hs, self._rules_array)
        self._in_hand = False
        self._seat, self._decision = -1, DEC_OVER
        self._last = (self.hand, self.roles, b.hs.copy(), self.scores)
        self._last_result = None
        if self.log:
            record = hand_record(self.rules, self.lineup.names, self.game, self.hand, self.roles,
                                 dealt=self._dealt, hs=b.hs, moves=b.moves, gs=b.gs)
            if self._declared is not None:
                record["declared"] = self._declared
            self.records.append(record)
            self._last_result = HandResult(hand=self.hand, roles=self.roles,
                                           scores=self.scores, **record["result"])
        if game_fields(b.gs).over:
            record_game(self.stats_row, b.gs)
        if self.listener is not None:
            result = self.last_hand
            assert result is not None
            self.listener.hand_ended(self, result)

    # --------------------------------------------------------------------- results

    @property
    def last_hand(self) -> HandResult | None:
        """The last finished hand (None before the first ends)."""
        if self._last is None:
            return None
        if self._last_result is None:  # built once, from the hand's state
            hand, roles, hs, scores = self._last
            self._last_result = HandResult(hand=hand, roles=roles, scores=scores,
                                           **hand_result(hs, roles[:2]))
        return self._last_result

    @property
    def result(self) -> GameResult | None:
        """The finished game (None while it goes on)."""
        if not self.game_over:
            return None
        game, n = game_fields(self.bufs.gs), self.rules.players
        return GameResult(int(game.winner), self.scores,
                          tuple(int(t) for t in (game.score + game.bonus)[:n]), int(game.hands))

    # --------------------------------------------------------------------- copies

    def clone(self) -> GameState:
        """An independent copy: every buffer copied, the settings shared (they never change);
        the listener is not copied (set one on the copy if it should be watched)."""
        twin = copy.copy(self)
        twin.bufs = GameBuffers(*(a.copy() for a in self.bufs))
        twin.listener = None
        twin.roles = self.roles
        twin.history = list(self.history)
        twin.records = list(self.records)
        twin.stats_row = self.stats_row.copy()
        twin._dealt = self._dealt.copy()
        twin._rng = copy.deepcopy(self._rng)
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        """A :meth:`clone` whose listener is a deep copy too (shared through ``memo``)."""
        twin = self.clone()
        memo[id(self)] = twin
        twin.listener = copy.deepcopy(self.listener, memo)
        return twin

    @classmethod
    def replay(cls, rules: Rules | str | None, strategies: Any,
               moves: Iterable[int | str], **options: Any) -> GameState:
        """The game after the caller's ``moves`` (codes or names), rebuilt from its settings
        (``options`` as the constructor takes them: ``seed``, ``game``, ...): how a stateless
        front end resumes a game. IllegalMove names the first move that does not replay."""
        state = cls(rules, strategies, **options)
        for i, move in enumerate(moves):
            try:
                state.play(move)
            except IllegalMove as exc:
                raise IllegalMove(f"move {i + 1} ({move!r}): {exc}", exc.reason) from None
        return state

    def sample_world(self, seed: int) -> GameState:
        """A copy with the cards the deciding seat cannot see dealt afresh (the other hand
        player's unseen cards and the stock order) by ``mc``'s world sampler
        (``strategies.mc_worlds.sample_world``, no inference): a determinization for a
        search. A copy as it is when no decision waits."""
        world = self.clone()
        if self._seat < 0:
            return world
        b = world.bufs
        scratch = np.zeros(SCRATCH_LEN, np.int64)
        sample_world(b.player_view, scratch, np.uint64(seed), inference())
        other = known = int(opponent_known(b.player_view))
        unseen, need = scratch[S_UNSEEN:S_UNSEEN + 52], 10 - bin(known).count("1")
        for c in unseen[:need]:
            other |= 1 << int(c)
        hand = hand_fields(b.hs)
        top = int(hand.stock_top)
        hand.hand[1 - int(hand.to_move)] = other
        b.deck[top:] = unseen[need:need + 52 - top]
        return world

    def resampled_deal(self, seed: int) -> list[int]:
        """This hand's deal (:meth:`deal`'s order), what the deciding seat cannot see dealt
        afresh by ``mc``'s world sampler where the real hidden cards were: replayed, a world
        that holds none of them (OpenSpiel's resampler). ValueError if no decision waits."""
        if self._seat < 0:
            raise ValueError("no decision waits: there is no seat's view to resample from")
        b, scratch, deck = self.bufs, np.zeros(SCRATCH_LEN, np.int64), self._dealt.copy()
        sample_world(b.player_view.copy(), scratch, np.uint64(seed), inference())
        known = int(opponent_known(b.player_view))
        hand = hand_fields(b.hs)
        hidden = int(hand.hand[1 - int(hand.to_move)]) & ~known
        top, need = int(hand.stock_top), bin(hidden).count("1")
        unseen = scratch[S_UNSEEN:S_UNSEEN + need + 52 - top]
        deck[[i for i in range(top) if (hidden >> int(deck[i])) & 1]] = unseen[:need]
        deck[top:] = unseen[need:]
        return [int(c) for c in deck]

    @classmethod
    def from_record(cls, record: Mapping[str, Any], previous: Mapping[str, Any] | None = None,
                    listener: GameListener | None = None) -> GameState:
        """The position at the start of a logged hand, every seat the caller's: the record's
        rules, roles and deal, the scores (and Hollywood sheet) it starts from (``previous``:
        the same game's hand before it). Play the recorded moves to walk the hand (a review
        does); the object stops when the hand ends. ValueError for a record that is not one."""
        rules = rules_of(record)
        state = cls(rules, None, names=record["seats"], game=int(record["game"]),
                    deals="caller", listener=listener)
        state.bufs.gs[:] = game_state_before(record, previous, scores_before(record, previous))
        state.hand = int(record["hand"]) - 1
        state.deal(deck_of(record))
        return state

