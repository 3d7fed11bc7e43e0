"""One game table driven from Python: what the PettingZoo and Gymnasium environments share.

:class:`EnvTable` owns the engine arrays of one game and steps them through the compiled
functions of :mod:`sim.env.core`. It asks plain-Python opponents for their moves (with
``sim.play.driver.strategy_answer``, as ``ginbox play`` does), writes the hand log through
``sim.records.log.LogWriter`` with ``sim.records.log.hand_record`` (the bytes ``ginbox play
--log`` writes), and keeps each seat's reward since it was last collected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sim.engine.cards import parse_cards
from sim.engine.hand import DEC_DISCARD, ERROR_TEXT
from sim.engine.rules import Rules
from sim.engine.view import View
from sim.env.core import (
    ERR_MASKED,
    ERR_NOT_DECIDING,
    ES_LEN,
    OPT_LEN,
    ST_DECIDE,
    ST_EPISODE_OVER,
    ST_ERROR,
    ST_HAND_DONE,
    EnvBuffers,
    env_fields,
    game_is_over,
    new_game,
    observe_seat,
    option_fields,
    play_move,
    settle_table,
    step_table,
)
from sim.env.encoding import N_ACTIONS, OBS_LEN, action_name
from sim.play.driver import Seeds, StrategyError, check_seed, strategy_answer
from sim.play.step import GameBuffers, Seating, seat_arrays, table_buffers
from sim.records.log import LogWriter, check_log_target, hand_record
from sim.records.schema import HandRecord
from strategies.registry import (
    StrategySpec,
    build_strategy,
    check_no_person,
    parse_strategies,
    resolve,
)

EPISODES = ("game", "hand")
REWARDS = ("game", "points", "margin")
"""The rewards, in the order of their codes (``sim.env.core.REWARD_*``)."""
#: The seat name the hand log gives a seat that an environment's caller plays.
AGENT_NAME = "agent"


def check_rules(rules: Rules | str | Mapping[str, Any] | None) -> Rules:
    """Rules from a preset name, a ``Rules`` or a mapping of fields with an optional
    ``preset`` key (``Rules.from_dict``), resolved by :meth:`Rules.resolve`."""
    if rules is None or isinstance(rules, Rules | str):
        return Rules.resolve(rules)
    if isinstance(rules, Mapping):
        return Rules.from_dict(rules)
    raise ValueError(f"rules={rules!r} is not valid: expected a preset name, a Rules or a "
                     "mapping of rules fields")


def check_choice(name: str, value: object, accepted: Sequence[str]) -> str:
    """``value`` if it is one of ``accepted``; else a one-line ValueError."""
    if not isinstance(value, str) or value not in accepted:
        raise ValueError(f"{name}={value!r} is not valid: expected one of "
                         + ", ".join(repr(a) for a in accepted))
    return value


def check_log_path(log_path: object) -> str | os.PathLike[str] | None:
    """``log_path`` if a hand log can be written there (None: no log); else a one-line
    ValueError now, as ``ginbox play --log`` refuses it before playing, not at the first hand
    end."""
    if log_path is None:
        return None
    if not isinstance(log_path, str | os.PathLike) or not str(log_path).strip():
        raise ValueError(f"log_path={log_path!r} is not valid: expected a file name or None")
    try:
        check_log_target(log_path)
    except OSError as exc:
        raise ValueError(f"log_path={str(log_path)!r} cannot be written: "
                         f"{exc.strerror or exc}") from None
    return log_path


def new_seed() -> int:
    """A fresh seed from the operating system, for a reset without one."""
    return int(np.random.SeedSequence().generate_state(1, np.uint32)[0])


class EnvTable:
    """One game of gin stepped decision by decision, with the caller playing ``controlled``
    seats and ``specs`` (built-in or plain-Python strategies) playing the others."""

    def __init__(self, rules: Rules, controlled: Sequence[int],
                 specs: Sequence[StrategySpec | None], episode: str, reward: str,
                 log_path: str | os.PathLike[str] | None = None) -> None:
        self.rules = rules
        self.players = rules.players
        self.controlled = sorted(set(controlled))
        self.specs = list(specs)
        self.rules_array = rules.to_array()
        ids, params = seat_arrays(self.specs, self.controlled)
        self.seating = Seating(self.rules_array, ids, params,
                               sum(1 << s for s in self.controlled))
        self.python: dict[int, Any] = {}
        for seat, spec in enumerate(self.specs):
            if spec is None or seat in self.controlled or spec.compiled:
                continue
            if spec.kernel is not None:
                raise ValueError(f"strategy {spec.text!r} is compiled but not registered: "
                                 "an environment can seat registered built-ins and "
                                 "plain-Python strategies")
            self.python[seat] = build_strategy(spec, seat)
        self.seat_names = [AGENT_NAME if s in self.controlled or self.specs[s] is None
                           else self.specs[s].text for s in range(self.players)]  # type: ignore[union-attr]  # None is an agent seat
        opts = np.zeros(OPT_LEN, np.int64)
        options = option_fields(opts)
        options.episode_hand = check_choice("episode", episode, EPISODES) == "hand"
        options.reward = REWARDS.index(check_choice("reward", reward, REWARDS))
        self.log_path = check_log_path(log_path)
        options.stop_at_hand_end = log_path is not None
        self._writer: LogWriter | None = None
        self._log_games = -1  # games begun in the log: its "game" numbers
        self.bufs = table_buffers(self.rules_array, log=log_path is not None)
        self.env = EnvBuffers(opts, np.zeros(ES_LEN, np.int64),
                              np.zeros(3, np.float64), np.zeros(N_ACTIONS, np.int8),
                              np.zeros(64, np.int64))
        #: ``env.es`` by name (``env_state.hand``, ``env_state.seat``): the table's progress
        self.env_state = env_fields(self.env.es)
        self.obs_view = np.zeros_like(self.bufs.player_view)
        self.seeds: Seeds | None = None
        self.seed: int | None = None
        self.py_rng = np.random.default_rng(0)
        self.status = int(ST_ERROR)  # no game yet: start() begins one
        self.seat = -1  # the seat deciding now (when status is ST_DECIDE)

    # ------------------------------------------------------------------------- the game

    @property
    def game(self) -> int:
        return int(self.env_state.game)

    def start(self, seed: int | None) -> None:
        """Start an episode. With a seed: game 0 of that seed. Without: the next hand of the
        current game when episodes are hands and the game goes on, else the next game."""
        if seed is not None:
            self.seed = check_seed(seed)
            self.seeds = Seeds.from_seed(self.seed)
            self._new_game(0)
        elif self.seeds is None:
            self.start(new_seed())
            return
        elif self.status == ST_EPISODE_OVER and not game_is_over(self.bufs.gs):
            self._next_hand()  # the game goes on
        else:
            self._new_game(self.game + 1)
        while self.advance() == ST_EPISODE_OVER:  # over before any controlled seat decided
            self._new_game(self.game + 1) if game_is_over(self.bufs.gs) else self._next_hand()
        self.take_rewards()  # nothing a controlled seat did: not its reward

    def _next_hand(self) -> None:
        """Let advance() deal the game's next hand (as after a hand no one controlled)."""
        self.env_state.status = ST_HAND_DONE
        self.env_state.acted = 0

    def _new_game(self, game: int) -> None:
        assert self.seeds is not None
        new_game(self.rules_array, self.seeds.streams(), game, self.bufs, self.env.es)
        self.py_rng = np.random.default_rng(int(self.bufs.rng[1]))
        self.env.rewards[:] = 0
        self._started: set[int] = set()

    def advance(self) -> int:
        """Play on to the next decision of a controlled seat, or the end of the episode;
        plain-Python opponents are asked here, finished hands logged."""
        return self._settle(settle_table(self.seating, self.bufs, self.env))

    def _settle(self, status: int) -> int:
        """Handle what the compiled code stopped for until a controlled seat decides or the
        episode ends: a hand to log, a plain-Python opponent's decision."""
        while True:
            self.seat = int(self.env_state.seat)
            if status == ST_HAND_DONE:
                self._log_hand()
                self._started = set()
            elif status == ST_ERROR:
                raise StrategyError("a built-in strategy made an illegal move (engine bug)")
            elif status == ST_DECIDE and self.seat in self.python:
                self._python_move()
            else:
                self.status = status
                return status
            status = settle_table(self.seating, self.bufs, self.env)

    def _python_move(self) -> None:
        seat = self.seat
        player = self.python[seat]
        spec = self.specs[seat]
        assert spec is not None
        decision = int(self.env_state.decision)
        view = View.from_arrays(self.bufs.player_view, self.bufs.pile, self.py_rng)
        key = int(self.env_state.hand) * 2 + int(self.env_state.player)
        try:
            if key not in self._started and hasattr(player, "start_hand"):
                player.start_hand(view)
            self._started.add(key)
            answer = strategy_answer(player, decision, view)
            move = parse_cards([answer])[0] if decision == DEC_DISCARD else int(answer)
        except Exception as exc:
            raise StrategyError(f"strategy {spec.text!r} (seat {seat}) raised "
                                f"{type(exc).__name__}: {exc}") from exc
        err = play_move(move, self.bufs, self.env.es)
        if err != 0:
            raise StrategyError(f"strategy {spec.text!r} (seat {seat}) made an illegal move in "
                                f"game {self.game}: {ERROR_TEXT[err]}")

    def step(self, action: int) -> int:
        """Play the deciding seat's action and advance; the new status."""
        status = step_table(int(action), self.seating, self.bufs, self.env)
        if status >= 0:
            return self._settle(status)
        err = -1 - status
        if err == ERR_NOT_DECIDING:
            raise ValueError("no seat is deciding now: the episode is over (reset the "
                             "environment)")
        if err == ERR_MASKED:
            legal = ", ".join(action_name(int(a)) for a in np.flatnonzero(self.env.mask))
            what = action_name(action) if 0 <= int(action) < N_ACTIONS else str(action)
            raise ValueError(f"action {int(action)} ({what}) is not legal now: legal actions "
                             f"are {legal}")
        raise RuntimeError(f"the engine refused a masked action: {ERROR_TEXT[err]}")

    def abandon(self) -> None:
        """Give up the game (after an illegal action): the next start() begins a new game."""
        self.env_state.status = self.status = ST_ERROR
        self.env.mask[:] = 0
        self.env.rewards[:] = 0

    def take_rewards(self) -> np.ndarray:
        """Each seat's reward since the last call (and reset them)."""
        out = self.env.rewards[: self.players].copy()
        self.env.rewards[:] = 0
        return out

    def observe(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` now (float32, ``OBS_LEN``)."""
        obs = np.empty(OBS_LEN, np.float32)
        observe_seat(seat, self.rules_array, self.bufs, self.env.es, self.obs_view, obs)
        return obs

    def action_mask(self, seat: int) -> np.ndarray:
        """The legal actions of ``seat`` now (int8; all zero unless it is deciding)."""
        if self.status == ST_DECIDE and self.seat == seat:
            return self.env.mask.copy()
        return np.zeros(N_ACTIONS, np.int8)

    # -------------------------------------------------------------------------- the log

    def _log_hand(self) -> None:
        if self._writer is None:
            assert self.log_path is not None
            self._writer = LogWriter(self.log_path).__enter__()
        if self.env_state.hand == 0:
            self._log_games += 1
        self._writer.write(env_record(self, self._log_games, self.bufs, self.env.es))

    def close(self) -> None:
        """Finish the hand log (it appears, complete, only now)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.__exit__(None, None, None)


def env_record(table: Any, log_game: int, bufs: GameBuffers, es: np.ndarray) -> HandRecord:
    """The hand-log line of a finished hand of a table (the line ``ginbox play --log`` writes).

    ``game`` numbers the games in the log's order (an environment may be reset to a seed
    again); the extra keys ``env_seed`` and ``env_game`` say which game of which seed it was
    (game ``env_game`` of ``ginbox play --seed env_seed`` deals the same cards). ``table``
    is the :class:`EnvTable` or vector environment (its rules, seat names and seed), ``bufs``
    and ``es`` the finished game's buffers and env state.
    """
    env_state = env_fields(es)
    record = hand_record(table.rules, table.seat_names, log_game, int(env_state.hand),
                         [int(r) for r in env_state.roles], dealt=bufs.deck, hs=bufs.hs,
                         moves=bufs.moves, gs=bufs.gs)
    record["env_seed"] = table.seed
    record["env_game"] = int(env_state.game)
    return record


def opponent_specs(rules: Rules, learner: int, opponents: Any) -> list[StrategySpec | None]:
    """The seat specs of a single-learner table: None for the learner, the opponents in the
    other seats in order (one opponent given fills every other seat)."""
    if isinstance(opponents, str):
        specs = parse_strategies(opponents)
    elif isinstance(opponents, Sequence):
        specs = parse_strategies(list(opponents))
    else:
        specs = parse_strategies([opponents])
    specs = resolve(specs, rules)
    check_no_person(specs, batch=False)  # a person's seat needs someone to answer it
    others = rules.players - 1
    if len(specs) == 1 and others > 1:
        if not specs[0].compiled and not isinstance(specs[0].factory, type):
            raise ValueError("one plain-Python opponent object cannot sit in two seats: give "
                             f"{others} opponents")
        specs = specs * others
    if len(specs) != others:
        expected = ("1 opponent" if others == 1 else
                    f"1 opponent (for every other seat) or {others}")
        raise ValueError(f"{rules.players_text()}: expected "
                         f"{expected}, got {len(specs)}")
    if not isinstance(learner, int | np.integer) or not 0 <= learner < rules.players:
        raise ValueError(f"seat={learner!r} is not valid: expected 0..{rules.players - 1}")
    out: list[StrategySpec | None] = list(specs)
    out.insert(int(learner), None)
    return out

