"""The compiled table every environment plays on: one game, stepped one decision at a time.

A *table* is a :class:`sim.play.step.GameBuffers` (the game's buffers, which every loop plays in)
played by a :class:`sim.play.step.Seating`, plus :class:`EnvBuffers`: the table's options, a
small env state ``es`` (``ES_*``: who decides what now, the hand's roles, whether a learning
seat has acted in this hand), the rewards and the action mask. :func:`advance_table` plays
forward through the one game loop (:func:`sim.play.loop.begin_hand` and
:func:`sim.play.loop.play_hand`, whose seat step asks the built-in opponents for their moves)
and scores hands through the engine (``end_hand``); it stops where a seat the caller controls
(or a plain-Python strategy) must decide, where a hand ends and the caller wants to log it, or
where the episode ends. :func:`act` plays one action of
:mod:`sim.env.encoding` through ``apply_move``.

The PettingZoo and Gymnasium environments drive one table from Python
(:class:`sim.env.env_table.EnvTable`); the vector environment drives N tables inside one
compiled call. All of them go through these functions, so every environment plays by the
engine's one implementation of the rules and is a pure function of its seed: game ``g`` of
seed ``s`` deals the same cards as game ``g`` of ``ginbox play --seed s``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.game import (
    GS_BONUS,
    GS_OVER,
    GS_ROLE_SEAT,
    GS_WINNER,
    end_hand,
    game_fields,
    game_init,
)
from sim.engine.hand import (
    DEC_KNOCK,
    DEC_OVER,
    HS_POINTS,
    HS_TO_MOVE,
    OK,
    apply_move,
)
from sim.engine.jit import kernel
from sim.engine.layout import Layout, Record
from sim.engine.rng import stream_seed
from sim.engine.rules import RI_PLAYERS, RI_TEAM_ADVISOR
from sim.engine.view import V_DEADWOOD, V_DRAWN, V_HAND, fill_view
from sim.env.encoding import (
    N_ACTIONS,
    card_of_action,
    encode_observation,
    fill_action_mask,
    first_move,
)
from sim.play.loop import NO_HOOKS, begin_hand, play_hand
from sim.play.step import GameBuffers, Seating, Streams

# The env state of one table, declared once (offsets computed by Layout).
ES_LAYOUT = Layout("ES_", [
    ("STATUS", 1),  # ST_*
    ("DECISION", 1),  # the engine decision (DEC_*) the deciding seat faces
    ("SEAT", 1),  # the seat that decides (the advisor when it decides for the captain)
    ("PLAYER", 1),  # the hand player it decides for (0 dealer, 1 non-dealer)
    ("GAME", 1),  # game number: the index of the game's seed streams
    ("HAND", 1),  # hand number within the game
    ("ROLES", 3),  # seats of the box (dealer), captain (non-dealer), sitter in this hand
    ("ACTED", 1),  # 1 once a controlled seat has acted in this hand
    ("SCORER", 1),  # the seat that scored the last finished hand, or -1
])
(ES_STATUS, ES_DECISION, ES_SEAT, ES_PLAYER, ES_GAME, ES_HAND, ES_ROLES, ES_ACTED,
 ES_SCORER) = ES_LAYOUT.offsets
ES_LAYOUT.check(globals())
ES_LEN = ES_LAYOUT.length

# GameBuffers statuses.
ST_RUNNING = 0  # play can go on: call advance_table
ST_DECIDE = 1  # ES_SEAT must decide ES_DECISION (a controlled seat or a Python strategy)
ST_HAND_DONE = 2  # a hand ended and was scored (still readable for its log line)
ST_EPISODE_OVER = 3  # the episode ended (the game, or a hand a controlled seat played)
ST_ERROR = 4  # a built-in strategy made an illegal move (an engine bug)

# Options of a table, one int64 array.
OPT_LAYOUT = Layout("OPT_", [
    ("EPISODE_HAND", 1),  # 1: an episode is one hand (a controlled seat played); 0: a game
    ("REWARD", 1),  # REWARD_*: +1 / -1 at the end of the game, hand points, or their margin
    ("STOP_AT_HAND_END", 1),  # 1: return ST_HAND_DONE at every hand end (to log it)
])
OPT_EPISODE_HAND, OPT_REWARD, OPT_STOP_AT_HAND_END = OPT_LAYOUT.offsets
OPT_LAYOUT.check(globals())
OPT_LEN = OPT_LAYOUT.length


def env_fields(es: np.ndarray) -> Record:
    """An env state (``ES_*``; or the vector environment's rows of them) by name
    (``env.status``, ``env.roles[1]``): how Python code reads it without offsets."""
    return ES_LAYOUT.record(es)


def option_fields(opts: np.ndarray) -> Record:
    """A table's options (``OPT_*``) by name (``options.reward``), for Python code."""
    return OPT_LAYOUT.record(opts)


# Rewards (OPT_REWARD).
REWARD_GAME = 0  # +1 for the game's winner, -1 for every other seat, when the game ends
REWARD_POINTS = 1  # the hand's points to the seat that scored them
REWARD_MARGIN = 2  # the same, and minus them to that seat's opponent in the hand

# Errors of act() beyond the engine's ERR_* codes.
ERR_NOT_DECIDING = 100  # the table is not waiting for a decision
ERR_MASKED = 101  # the action is not legal now (masked out)


class EnvBuffers(NamedTuple):
    """What an environment keeps beside its :class:`sim.play.step.GameBuffers` (or, in the vector
    environment, beside N of them: a leading axis on all but ``opts`` and ``buf``)."""

    opts: np.ndarray  # the table's options (OPT_*)
    es: np.ndarray  # the env state (ES_*)
    rewards: np.ndarray  # each seat's reward since it was last collected (float64)
    mask: np.ndarray  # the deciding seat's legal actions (int8, N_ACTIONS)
    buf: np.ndarray  # the action mask's workspace


@kernel(inline="always")
def env_row(envs: EnvBuffers, i: int) -> EnvBuffers:
    """Row ``i`` of the vector environment's env buffers (the shared options and workspace)."""
    return EnvBuffers(envs.opts, envs.es[i], envs.rewards[i], envs.mask[i], envs.buf)


@kernel
def next_hand(rules: np.ndarray, table: GameBuffers, es: np.ndarray) -> None:
    """Deal the game's next hand, as every loop does (:func:`sim.play.loop.begin_hand`)."""
    begin_hand(rules, table)
    es[ES_HAND] += 1
    for r in range(3):
        es[ES_ROLES + r] = table.gs[GS_ROLE_SEAT + r]
    es[ES_ACTED] = 0
    es[ES_STATUS] = ST_RUNNING


@kernel
def new_game(rules: np.ndarray, streams: Streams, game: int, table: GameBuffers,
             es: np.ndarray) -> None:
    """Start game number ``game`` of ``streams``: its streams, initial roles and first deal
    (as :func:`sim.play.loop.play_game` starts it)."""
    table.rng[0] = stream_seed(streams.deck, game)
    table.rng[1] = stream_seed(streams.strategy, game)
    game_init(table.gs, rules, table.rng[0:1], game if streams.rotate else -1)
    es[ES_GAME] = game
    es[ES_HAND] = -1
    es[ES_SCORER] = -1
    next_hand(rules, table, es)


@kernel(inline="always")
def _finish_hand(rules: np.ndarray, table: GameBuffers, env: EnvBuffers) -> None:
    """Score the hand through the engine and add each seat's reward."""
    gs, hs, es, rewards = table.gs, table.hs, env.es, env.rewards
    scorer = end_hand(gs, hs, rules)
    es[ES_SCORER] = scorer
    n = rules[RI_PLAYERS]
    reward = env.opts[OPT_REWARD]
    if reward == REWARD_POINTS or reward == REWARD_MARGIN:
        margin = reward == REWARD_MARGIN
        if scorer >= 0:
            rewards[scorer] += hs[HS_POINTS]
            if margin:  # the other player of the hand (never the seat sitting out)
                box, captain = es[ES_ROLES], es[ES_ROLES + 1]
                rewards[captain if scorer == box else box] -= hs[HS_POINTS]
        if gs[GS_OVER]:  # end-of-game bonuses (classic scoring), so rewards sum to the score
            for s in range(n):
                rewards[s] += gs[GS_BONUS + s]
                if margin and n == 2:
                    rewards[1 - s] -= gs[GS_BONUS + s]
    elif gs[GS_OVER]:
        for s in range(n):
            rewards[s] += 1.0 if s == gs[GS_WINNER] else -1.0
    es[ES_STATUS] = ST_HAND_DONE


@kernel
def advance_table(seating: Seating, table: GameBuffers, env: EnvBuffers) -> int:
    """Play on until a decision that is not a built-in's, a logged hand end or the episode end.

    The hands are played by the one game loop (:func:`sim.play.loop.play_hand`, through the
    seat step): built-in seats (``ids[seat] >= 0`` and not in ``seating.controlled``) move
    there, under the rules' team policy; the others stop the table (``ST_DECIDE``).
    Returns the new status (``ST_*``).
    Rewards of finished hands are added to ``env.rewards`` (by seat).
    """
    es, opts = env.es, env.opts
    while True:
        status = es[ES_STATUS]
        if status == ST_HAND_DONE:
            if table.gs[GS_OVER] or (opts[OPT_EPISODE_HAND] and es[ES_ACTED]):
                es[ES_STATUS] = ST_EPISODE_OVER
                return ST_EPISODE_OVER
            next_hand(seating.rules, table, es)
        elif status != ST_RUNNING:
            return status
        decision, seat, err = play_hand(seating, table, NO_HOOKS)
        if err != OK:
            es[ES_STATUS] = ST_ERROR
            return ST_ERROR
        if decision == DEC_OVER:
            _finish_hand(seating.rules, table, env)
            if opts[OPT_STOP_AT_HAND_END]:
                return ST_HAND_DONE
            continue
        es[ES_DECISION] = decision
        es[ES_SEAT] = seat
        es[ES_PLAYER] = table.hs[HS_TO_MOVE]
        es[ES_STATUS] = ST_DECIDE
        return ST_DECIDE


@kernel
def act(action: int, table: GameBuffers, env: EnvBuffers) -> int:
    """Play ``action`` for the deciding seat: OK, or an error code and nothing changed.

    ``env.mask`` is the action mask of this decision
    (:func:`sim.env.encoding.fill_action_mask`). A discard or knock action at the engine's
    knock question is two engine moves.
    """
    es = env.es
    if es[ES_STATUS] != ST_DECIDE:
        return ERR_NOT_DECIDING
    if action < 0 or action >= N_ACTIONS or env.mask[action] == 0:
        return ERR_MASKED
    decision = es[ES_DECISION]
    hs, pile, deck, after, moves = table.hs, table.pile, table.deck, table.after, table.moves
    err = apply_move(hs, pile, deck, after, moves, first_move(decision, action))
    if err == OK and decision == DEC_KNOCK:
        err = apply_move(hs, pile, deck, after, moves, card_of_action(action))
    if err == OK:
        es[ES_ACTED] = 1
        es[ES_STATUS] = ST_RUNNING
    return err


@kernel
def settle_table(seating: Seating, table: GameBuffers, env: EnvBuffers) -> int:
    """:func:`advance_table`, then the action mask of the decision it stops at (all zero if
    none): one compiled call for the Python-driven environments."""
    status = advance_table(seating, table, env)
    if status == ST_DECIDE:
        fill_action_mask(table.player_view, table.after, env.buf, env.mask)
    else:
        for j in range(N_ACTIONS):
            env.mask[j] = 0
    return status


@kernel
def step_table(action: int, seating: Seating, table: GameBuffers, env: EnvBuffers) -> int:
    """:func:`act`, then :func:`settle_table`: the new status, or ``-1 - error`` when the
    action was refused (nothing changed then)."""
    err = act(action, table, env)
    if err != OK:
        return -1 - err
    return settle_table(seating, table, env)


@kernel
def play_move(move: int, table: GameBuffers, es: np.ndarray) -> int:
    """Play an engine move (``MOVE_*`` or a card) for a plain-Python strategy's seat."""
    if es[ES_STATUS] != ST_DECIDE:
        return ERR_NOT_DECIDING
    err = apply_move(table.hs, table.pile, table.deck, table.after, table.moves, move)
    if err == OK:
        es[ES_STATUS] = ST_RUNNING
    return err


def game_is_over(gs: np.ndarray) -> bool:
    """The table's game is over (its last hand scored)."""
    return bool(game_fields(gs).over)


def seat_scores(gs: np.ndarray, players: int) -> list[int]:
    """Each seat's score in the table's game (hand points, what counts towards the target)."""
    return [int(s) for s in game_fields(gs).score[:players]]


@kernel
def fill_seat_view(seat: int, rules: np.ndarray, table: GameBuffers, es: np.ndarray,
                   view: np.ndarray) -> bool:
    """Fill ``view`` with what ``seat`` sees now: its own view if it plays this hand (the
    advisor sees the captain's), else the captain's, and then True: the caller must hide that
    hand (the seat is outside it). The decision is set only for the seat that is deciding."""
    p = -1
    for q in range(2):
        if es[ES_ROLES + q] == seat:
            p = q
    if p < 0 and rules[RI_TEAM_ADVISOR] and rules[RI_PLAYERS] == 3 and es[ES_ROLES + 2] == seat:
        p = 1
    hidden = p < 0
    if hidden:
        p = 1
    deciding = es[ES_STATUS] == ST_DECIDE and es[ES_SEAT] == seat
    hs = table.hs
    saved = hs[HS_TO_MOVE]
    hs[HS_TO_MOVE] = p
    fill_view(view, hs, table.pile, table.game_info, es[ES_DECISION] if deciding else DEC_OVER)
    hs[HS_TO_MOVE] = saved
    return hidden


@kernel
def observe_seat(seat: int, rules: np.ndarray, table: GameBuffers, es: np.ndarray, view: np.ndarray,
                 obs: np.ndarray) -> None:
    """The observation of any seat now (:func:`fill_seat_view`): a seat outside the hand gets
    the captain's public view with the hand plane empty."""
    hidden = fill_seat_view(seat, rules, table, es, view)
    encode_observation(view, obs, hidden)


@kernel
def public_view(view: np.ndarray) -> None:
    """Blank what only the hand's player knows (his cards, their deadwood, the card he drew
    from the stock): the view array a seat outside the hand may be given."""
    view[V_HAND] = 0
    view[V_DEADWOOD] = 0
    view[V_DRAWN] = -1


@kernel
def seat_view(seat: int, rules: np.ndarray, table: GameBuffers, es: np.ndarray,
              view: np.ndarray) -> None:
    """The engine's view array of any seat now (:func:`fill_seat_view`), in ``view``: a seat
    outside the hand gets the captain's :func:`public_view`."""
    if fill_seat_view(seat, rules, table, es, view):
        public_view(view)
