"""The compiled vector environment: N games stepped together inside one compiled call.

Each game is a table of :mod:`sim.env.core` (a row of a :func:`sim.play.step.new_tables`
record, with its row of :class:`sim.env.core.EnvBuffers`); one call of :func:`vector_run`
plays every game's learner action, the built-in opponents' moves up to the learner's next
decision (through the one game loop, :func:`sim.env.core.advance_table`), and encodes the
observations and action masks: numpy arrays in, numpy arrays out, no Python per game.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from sim.engine.game import GS_OVER
from sim.engine.hand import OK
from sim.engine.jit import kernel
from sim.engine.rules import Rules
from sim.engine.view import V_LEN
from sim.env.core import (
    ERR_MASKED,
    ES_ACTED,
    ES_GAME,
    ES_LEN,
    ES_STATUS,
    ST_DECIDE,
    ST_EPISODE_OVER,
    ST_ERROR,
    ST_HAND_DONE,
    EnvBuffers,
    act,
    advance_table,
    env_fields,
    env_row,
    game_is_over,
    new_game,
    observe_seat,
    seat_view,
)
from sim.env.encoding import (
    N_ACTIONS,
    OBS_LEN,
    action_name,
    encode_observation,
    fill_action_mask,
    observation_bounds,
)
from sim.env.env_table import (
    EnvTable,
    check_choice,
    check_rules,
    env_record,
    new_seed,
    opponent_specs,
)
from sim.play.driver import Seeds, check_seed
from sim.play.step import GameBuffers, Seating, Streams, table_buffers, table_row
from sim.records.log import LogWriter
from sim.records.schema import HandRecord

M_STEP = 0  # play each game's action (or autoreset a finished one)
M_RESET = 1  # start game first_game + i in row i
M_CONTINUE = 2  # go on in the rows left pending at a logged hand end

ERR_ENGINE = -2  # a built-in strategy made an illegal move (engine bug)
OBSERVATIONS = ("planes", "view")
"""The observations: the encoded float vectors, or the engine's view arrays."""


class VectorStep(NamedTuple):
    """What one call of :func:`vector_run` reads and writes besides the tables and their env
    buffers (a row per game)."""

    actions: np.ndarray  # each row's learner action
    started: np.ndarray  # 1 once the row's learner has decided in its episode
    obs: np.ndarray  # the encoded observations (when not raw)
    views: np.ndarray  # the learners' view arrays (when raw)
    out_rewards: np.ndarray  # the learner's reward of this step
    terms: np.ndarray  # the row's episode ended
    pending: np.ndarray  # the row stopped at a hand end to be logged
    error: np.ndarray  # (row, code) of the first refused action
    learner: int  # the learner's seat
    raw: bool  # observations are view arrays


@kernel
def _next_episode(rules: np.ndarray, streams: Streams, n: int, table: GameBuffers,
                  es: np.ndarray) -> None:
    """Autoreset one row: the game's next hand (episodes of one hand), else the row's next
    game (game numbers step by ``n``, so row i plays games i, i + n, i + 2n, ...)."""
    if table.gs[GS_OVER]:
        new_game(rules, streams, es[ES_GAME] + n, table, es)
    else:
        es[ES_STATUS] = ST_HAND_DONE
        es[ES_ACTED] = 0


@kernel
def vector_run(mode: int, first_game: int, seating: Seating, streams: Streams, tables: GameBuffers,
               envs: EnvBuffers, step: VectorStep) -> None:
    """One vector step (``mode`` M_*) over every row; fills ``step``'s observations (or, when
    ``step.raw``, the learners' view arrays), the masks (``envs.mask``), rewards and terms.

    A row whose episode ended last step is reset instead of acting (Gymnasium's next-step
    autoreset). ``step.pending`` marks rows stopped at a hand end to be logged (only when
    the options ask for it): call again with M_CONTINUE after logging them. ``step.error``
    gets (row, code) of the first illegal action, and the call stops there.
    """
    rules = seating.rules
    learner = step.learner
    n = tables.gs.shape[0]
    for i in range(n):
        table = table_row(tables, i)
        env = env_row(envs, i)
        es, rewards, mask = env.es, env.rewards, env.mask
        if mode == M_CONTINUE:
            if not step.pending[i]:
                continue
            step.pending[i] = 0
        else:
            step.out_rewards[i] = 0.0
            step.terms[i] = False
            if mode == M_RESET:
                new_game(rules, streams, first_game + i, table, es)
                step.started[i] = 0
            elif es[ES_STATUS] == ST_EPISODE_OVER:
                _next_episode(rules, streams, n, table, es)
                step.started[i] = 0
            else:
                err = act(step.actions[i], table, env)
                if err != OK:
                    step.error[0] = i
                    step.error[1] = err
                    return
        while True:
            status = advance_table(seating, table, env)
            if status == ST_HAND_DONE:
                step.pending[i] = 1
                break
            if status == ST_ERROR:
                step.error[0] = i
                step.error[1] = ERR_ENGINE
                return
            if status == ST_EPISODE_OVER and not step.started[i]:
                # the game ended before the learner's first decision: not its episode
                for s in range(3):
                    rewards[s] = 0.0
                _next_episode(rules, streams, n, table, es)
                continue
            step.out_rewards[i] += rewards[learner]
            for s in range(3):  # the opponents' rewards are not reported
                rewards[s] = 0.0
            view = table.player_view
            if status == ST_DECIDE:
                step.started[i] = 1
                if not step.raw:
                    encode_observation(view, step.obs[i], False)
                fill_action_mask(view, table.after, envs.buf, mask)
            else:  # the episode is over: the learner's last view, no legal action
                step.terms[i] = True
                if step.raw:
                    seat_view(learner, rules, table, es, view)
                else:
                    observe_seat(learner, rules, table, es, view, step.obs[i])
                for j in range(N_ACTIONS):
                    mask[j] = 0
            if step.raw:
                for j in range(step.views.shape[1]):
                    step.views[i, j] = view[j]
            break


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of gin stepped together in compiled code, one learner per game.

    The learner sits in ``seat`` of every game; ``opponents`` (built-in strategies only: they
    play inside the compiled step) fill the other seats. ``rules``, ``episode``, ``reward`` and
    ``log_path`` are those of :class:`sim.env.aec.raw_env`. Follows ``gymnasium.vector``:
    ``reset(seed=...) -> (obs, infos)``, ``step(actions) -> (obs, rewards, terminations,
    truncations, infos)`` with arrays of shape ``(num_envs, ...)``, next-step autoreset
    (``metadata["autoreset_mode"]``): the step after an episode ends resets that game and
    ignores its action. ``infos["action_mask"]`` (also ``action_masks``) holds the legal
    actions (int8, ``(num_envs, 108)``). Row ``i`` plays games ``i, i + num_envs, ...`` of the
    seed's streams. ``copy=False`` returns the internal buffers (valid until the next step),
    which saves a copy per step. ``observation="view"``: the observations are the learners'
    engine view arrays (int64, ``(num_envs, V_LEN)``, :mod:`sim.engine.view`), what a compiled
    strategy decides from, instead of the encoded float vectors (``"planes"``, the default).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, rules: Rules | str | Mapping[str, Any] | None = None,
                 opponents: Any = "random", seat: int = 0, *, episode: str = "game",
                 reward: str = "game", log_path: str | os.PathLike[str] | None = None,
                 copy: bool = True, observation: str = "planes") -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or not (
                1 <= num_envs <= 10**7):
            raise ValueError(f"num_envs={num_envs!r} is not valid: expected an integer "
                             "1..10000000")
        n = self.num_envs = int(num_envs)
        self.rules = check_rules(rules)
        specs = opponent_specs(self.rules, seat, opponents)
        python = [s.text for s in specs if s is not None and not s.compiled]
        if python:
            raise ValueError(f"VectorEnv plays built-in strategies only (inside the compiled "
                             f"step); {python[0]!r} is not one: use SingleAgentEnv for it")
        # one table's bookkeeping (ids, params, options, seat names), shared by every row
        self._proto = EnvTable(self.rules, [int(seat)], specs, episode, reward, log_path)
        self.seat = int(seat)
        self.raw = check_choice("observation", observation, OBSERVATIONS) == "view"
        self.copy = copy
        self.log_path = log_path
        self._writer: LogWriter | None = None
        self._held: dict[int, list[HandRecord]] = {}  # each row's logged hands, this game
        self._log_games = -1
        if self.raw:
            int64 = np.iinfo(np.int64)
            self.single_observation_space = spaces.Box(low=-1, high=int64.max, shape=(V_LEN,),
                                                       dtype=np.int64)
        else:
            low, high = observation_bounds()
            self.single_observation_space = spaces.Box(low=low, high=high, shape=(OBS_LEN,),
                                                       dtype=np.float32)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._tables = table_buffers(self._proto.rules_array, log=log_path is not None,
                                     tables=n)
        self.action_masks = np.zeros((n, N_ACTIONS), np.int8)
        self._envs = EnvBuffers(self._proto.env.opts, np.zeros((n, ES_LEN), np.int64),
                                np.zeros((n, 3), np.float64), self.action_masks,
                                np.zeros(64, np.int64))
        self._step = VectorStep(
            actions=np.zeros(n, np.int64), started=np.zeros(n, np.int64),
            obs=np.zeros((n, OBS_LEN if not self.raw else 0), np.float32),
            views=np.zeros((n, V_LEN if self.raw else 0), np.int64),
            out_rewards=np.zeros(n, np.float64), terms=np.zeros(n, np.bool_),
            pending=np.zeros(n, np.int64), error=np.full(2, -1, np.int64), learner=self.seat,
            raw=self.raw)
        self._truncs = np.zeros(n, np.bool_)
        self.seeds: Seeds | None = None

    def _run(self, mode: int, first_game: int = 0) -> None:
        step = self._step
        step.error[:] = -1
        assert self.seeds is not None  # reset() made them
        streams = self.seeds.streams()
        while True:
            vector_run(mode, first_game, self._proto.seating, streams, self._tables,
                       self._envs, step)
            if step.error[0] >= 0:
                self._raise()
            if not step.pending.any():
                return
            self._log_pending()
            mode = M_CONTINUE

    def _raise(self) -> None:
        row, code = int(self._step.error[0]), int(self._step.error[1])
        if code == ERR_MASKED:
            action = int(self._step.actions[row])
            what = action_name(action) if 0 <= action < N_ACTIONS else "out of range"
            raise ValueError(f"action {action} ({what}) of env {row} is not legal now "
                             "(see action_masks)")
        raise RuntimeError(f"env {row}: the engine refused a move (code {code}); a bug")

    def _log_pending(self) -> None:
        """Log the hands the rows stopped at. A game's hands are held until it ends, then
        written together (a hand log keeps each game's hands together; rows finish hands in
        any order), so memory holds at most one game per row."""
        if self._writer is None:
            # called only when the environment was given a log_path
            self._writer = LogWriter(self.log_path).__enter__()  # type: ignore[arg-type]
        for i in np.flatnonzero(self._step.pending):
            held = self._held.setdefault(int(i), [])
            if env_fields(self._envs.es[i]).hand == 0:
                held.clear()  # a game abandoned by reset() was flushed already
            row = self._tables.row(int(i))
            held.append(env_record(self._proto, 0, row, self._envs.es[i]))
            if game_is_over(row.gs):
                self._flush(int(i))

    def _flush(self, row: int) -> None:
        held = self._held.pop(row, [])
        if held and self._writer is not None:
            self._log_games += 1
            for record in held:
                record["game"] = self._log_games
                self._writer.write(record)

    def _observations(self) -> np.ndarray:
        return self._step.views if self.raw else self._step.obs

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self.copy else a

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self._out(self.action_masks),
                "_action_mask": np.ones(self.num_envs, np.bool_)}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every row: games 0..num_envs-1 of ``seed`` (without a seed: the next
        num_envs games of the last seed, or of a fresh one)."""
        first = int(env_fields(self._envs.es).game.max()) + 1  # past every game played so far
        if seed is not None or self.seeds is None:
            self._proto.seed = check_seed(seed if seed is not None else new_seed())
            self.seeds = Seeds.from_seed(self._proto.seed)
            first = 0
        self._envs.rewards[:] = 0
        for row in sorted(self._held):  # the games reset() abandons
            self._flush(row)
        self._run(M_RESET, first)
        return self._out(self._observations()), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Play one action per game (ignored for games that autoreset now)."""
        if self.seeds is None:
            raise ValueError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions have shape {a.shape}: expected ({self.num_envs},)")
        self._step.actions[:] = a
        self._run(M_STEP)
        return (self._out(self._observations()), self._out(self._step.out_rewards),
                self._out(self._step.terms),
                self._out(self._truncs), self._infos())

    def close_extras(self, **kwargs: Any) -> None:
        """Finish the hand log, if one was asked for (games still running end it with the
        hands they played)."""
        for row in sorted(self._held):
            self._flush(row)
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.__exit__(None, None, None)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (int8 or bool), numpy only;
    0 for a row with no legal action (a finished game, whose action is ignored).

    The legal actions of all rows in one ``flatnonzero``, each row's slice of them found by
    ``searchsorted``: about 0.1 us a row, ten times an argmax over random keys.
    """
    n, width = masks.shape
    flat = masks.view(np.bool_) if masks.dtype == np.int8 else masks.astype(np.bool_)
    legal = np.flatnonzero(flat)
    row_start = np.arange(n, dtype=np.int64) * width
    starts = np.searchsorted(legal, row_start)
    counts = np.diff(starts, append=len(legal))
    pick = starts + (rng.random(n) * counts).astype(np.int64)
    np.minimum(pick, max(len(legal) - 1, 0), out=pick)
    if len(legal) == 0:
        return np.zeros(n, np.int64)
    return np.where(counts > 0, legal[pick] - row_start, 0)
