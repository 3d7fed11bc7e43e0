"""The compiled table every environment plays on: one game, stepped one decision at a time.

A *table* is the engine's game and hand state (the buffers of :func:`sim.play.step.new_tables`,
which ``sim.play.batch`` plays in too)
plus a small env state ``es`` (``ES_*``): who decides what now, the hand's roles, whether a
learning seat has acted in this hand. :func:`advance_table` plays forward through the engine
(``advance``, ``apply_move``, ``end_hand``, ``start_hand``), asking the step of every front end
(:func:`sim.play.step.seat_move`) for the moves of built-in opponents, and stops where a seat
the caller controls (or a plain-Python strategy) must decide, where a hand ends and the caller
wants to log it, or where the episode ends. :func:`act` plays one action of
:mod:`sim.env.encoding` through ``apply_move``.

The PettingZoo and Gymnasium environments drive one table from Python
(:class:`sim.env.env_table.EnvTable`); the vector environment drives N tables inside one
compiled call. All of them go through these functions, so every environment plays by the
engine's one implementation of the rules and is a pure function of its seed: game ``g`` of
seed ``s`` deals the same cards as game ``g`` of ``ginbox play --seed s``.
"""

from __future__ import annotations

import numpy as np

from sim.engine.game import (
    GS_BONUS,
    GS_OVER,
    GS_ROLE_SEAT,
    GS_SCORE,
    GS_WINNER,
    end_hand,
    game_init,
    start_hand,
)
from sim.engine.hand import (
    DEC_KNOCK,
    DEC_OVER,
    HS_POINTS,
    HS_TO_MOVE,
    OK,
    advance,
    apply_move,
)
from sim.engine.jit import kernel
from sim.engine.layout import Layout
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
from sim.play.step import CALLER, seat_move

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

# Table statuses.
ST_RUNNING = 0  # play can go on: call advance_table
ST_DECIDE = 1  # ES_SEAT must decide ES_DECISION (a controlled seat or a Python strategy)
ST_HAND_DONE = 2  # a hand ended and was scored (still readable for its log line)
ST_EPISODE_OVER = 3  # the episode ended (the game, or a hand a controlled seat played)
ST_ERROR = 4  # a built-in strategy made an illegal move (an engine bug)

# Options of a table, one int64 array.
OPT_LAYOUT = Layout("OPT_", [
    ("CONTROLLED", 1),  # bit mask of the seats whose decisions the caller makes
    ("EPISODE_HAND", 1),  # 1: an episode is one hand (a controlled seat played); 0: a game
    ("REWARD", 1),  # REWARD_*: +1 / -1 at the end of the game, hand points, or their margin
    ("STOP_AT_HAND_END", 1),  # 1: return ST_HAND_DONE at every hand end (to log it)
])
OPT_CONTROLLED, OPT_EPISODE_HAND, OPT_REWARD, OPT_STOP_AT_HAND_END = OPT_LAYOUT.offsets
OPT_LAYOUT.check(globals())
OPT_LEN = OPT_LAYOUT.length

# Rewards (OPT_REWARD).
REWARD_GAME = 0  # +1 for the game's winner, -1 for every other seat, when the game ends
REWARD_POINTS = 1  # the hand's points to the seat that scored them
REWARD_MARGIN = 2  # the same, and minus them to that seat's opponent in the hand

# Errors of act() beyond the engine's ERR_* codes.
ERR_NOT_DECIDING = 100  # the table is not waiting for a decision
ERR_MASKED = 101  # the action is not legal now (masked out)


@kernel
def next_hand(rules: np.ndarray, gs: np.ndarray, hs: np.ndarray, pile: np.ndarray,
              deck: np.ndarray, game_info: np.ndarray, mem: np.ndarray, rng: np.ndarray,
              es: np.ndarray) -> None:
    """Shuffle and deal the game's next hand, as the batch loop does."""
    start_hand(gs, hs, pile, deck, rules, rng[0:1], game_info)
    for p in range(2):  # explicit loops: numba's slice fill is much slower
        for j in range(mem.shape[1]):
            mem[p, j] = 0
    es[ES_HAND] += 1
    for r in range(3):
        es[ES_ROLES + r] = gs[GS_ROLE_SEAT + r]
    es[ES_ACTED] = 0
    es[ES_STATUS] = ST_RUNNING


@kernel
def new_game(rules: np.ndarray, deck_base: np.uint64, strategy_base: np.uint64, game: int,
             gs: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
             game_info: np.ndarray, mem: np.ndarray, rng: np.ndarray, es: np.ndarray) -> None:
    """Start game number ``game``: its streams, initial roles and first deal (as
    ``sim.play.batch`` starts game ``game`` of the same seeds)."""
    rng[0] = stream_seed(deck_base, game)
    rng[1] = stream_seed(strategy_base, game)
    game_init(gs, rules, rng[0:1], -1)
    es[ES_GAME] = game
    es[ES_HAND] = -1
    es[ES_SCORER] = -1
    next_hand(rules, gs, hs, pile, deck, game_info, mem, rng, es)


@kernel(inline="always")
def _finish_hand(rules: np.ndarray, opts: np.ndarray, gs: np.ndarray, hs: np.ndarray,
                 es: np.ndarray, rewards: np.ndarray) -> None:
    """Score the hand through the engine and add each seat's reward."""
    scorer = end_hand(gs, hs, rules)
    es[ES_SCORER] = scorer
    n = rules[RI_PLAYERS]
    reward = opts[OPT_REWARD]
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
def advance_table(rules: np.ndarray, ids: np.ndarray, params: np.ndarray, opts: np.ndarray,
                  gs: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
                  after: np.ndarray, moves: np.ndarray, view: np.ndarray,
                  game_info: np.ndarray, mem: np.ndarray, scratch: np.ndarray,
                  rng: np.ndarray, es: np.ndarray, rewards: np.ndarray) -> int:
    """Play on until a decision that is not a built-in's, a logged hand end or the episode end.

    Every decision goes through :func:`sim.play.step.seat_move`, the step of the batch loop
    and the driver: built-in seats (``ids[seat] >= 0`` and not in ``opts[OPT_CONTROLLED]``)
    move there, under the rules' team policy; the others stop the table (``ST_DECIDE``).
    Returns the new status (``ST_*``).
    Rewards of finished hands are added to ``rewards`` (by seat).
    """
    controlled = opts[OPT_CONTROLLED]
    while True:
        status = es[ES_STATUS]
        if status == ST_HAND_DONE:
            if gs[GS_OVER] or (opts[OPT_EPISODE_HAND] and es[ES_ACTED]):
                es[ES_STATUS] = ST_EPISODE_OVER
                return ST_EPISODE_OVER
            next_hand(rules, gs, hs, pile, deck, game_info, mem, rng, es)
        elif status != ST_RUNNING:
            return status
        decision = advance(hs, pile, deck, after, moves)
        if decision == DEC_OVER:
            _finish_hand(rules, opts, gs, hs, es, rewards)
            if opts[OPT_STOP_AT_HAND_END]:
                return ST_HAND_DONE
            continue
        seat, move = seat_move(decision, rules, ids, params, controlled, gs, hs, pile,
                               game_info, view, after, mem, rng[1:2], scratch)
        if move == CALLER:
            es[ES_DECISION] = decision
            es[ES_SEAT] = seat
            es[ES_PLAYER] = hs[HS_TO_MOVE]
            es[ES_STATUS] = ST_DECIDE
            return ST_DECIDE
        if apply_move(hs, pile, deck, after, moves, move) != OK:
            es[ES_STATUS] = ST_ERROR
            return ST_ERROR


@kernel
def act(action: int, mask: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
        after: np.ndarray, moves: np.ndarray, es: np.ndarray) -> int:
    """Play ``action`` for the deciding seat: OK, or an error code and nothing changed.

    ``mask`` is the action mask of this decision (:func:`sim.env.encoding.fill_action_mask`).
    A discard or knock action at the engine's knock question is two engine moves.
    """
    if es[ES_STATUS] != ST_DECIDE:
        return ERR_NOT_DECIDING
    if action < 0 or action >= N_ACTIONS or mask[action] == 0:
        return ERR_MASKED
    decision = es[ES_DECISION]
    err = apply_move(hs, pile, deck, after, moves, first_move(decision, action))
    if err == OK and decision == DEC_KNOCK:
        err = apply_move(hs, pile, deck, after, moves, card_of_action(action))
    if err == OK:
        es[ES_ACTED] = 1
        es[ES_STATUS] = ST_RUNNING
    return err


@kernel
def settle_table(rules: np.ndarray, ids: np.ndarray, params: np.ndarray, opts: np.ndarray,
                 gs: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
                 after: np.ndarray, moves: np.ndarray, view: np.ndarray, game_info: np.ndarray,
                 mem: np.ndarray, scratch: np.ndarray, rng: np.ndarray, es: np.ndarray,
                 rewards: np.ndarray, mask: np.ndarray, buf: np.ndarray) -> int:
    """:func:`advance_table`, then the action mask of the decision it stops at (all zero if
    none): one compiled call for the Python-driven environments."""
    status = advance_table(rules, ids, params, opts, gs, hs, pile, deck, after, moves, view,
                           game_info, mem, scratch, rng, es, rewards)
    if status == ST_DECIDE:
        fill_action_mask(view, after, buf, mask)
    else:
        for j in range(N_ACTIONS):
            mask[j] = 0
    return status


@kernel
def step_table(action: int, rules: np.ndarray, ids: np.ndarray, params: np.ndarray,
               opts: np.ndarray, gs: np.ndarray, hs: np.ndarray, pile: np.ndarray,
               deck: np.ndarray, after: np.ndarray, moves: np.ndarray, view: np.ndarray,
               game_info: np.ndarray, mem: np.ndarray, scratch: np.ndarray, rng: np.ndarray,
               es: np.ndarray, rewards: np.ndarray, mask: np.ndarray, buf: np.ndarray) -> int:
    """:func:`act`, then :func:`settle_table`: the new status, or ``-1 - error`` when the
    action was refused (nothing changed then)."""
    err = act(action, mask, hs, pile, deck, after, moves, es)
    if err != OK:
        return -1 - err
    return settle_table(rules, ids, params, opts, gs, hs, pile, deck, after, moves, view,
                        game_info, mem, scratch, rng, es, rewards, mask, buf)


@kernel
def play_move(move: int, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
              after: np.ndarray, moves: np.ndarray, es: np.ndarray) -> int:
    """Play an engine move (``MOVE_*`` or a card) for a plain-Python strategy's seat."""
    if es[ES_STATUS] != ST_DECIDE:
        return ERR_NOT_DECIDING
    err = apply_move(hs, pile, deck, after, moves, move)
    if err == OK:
        es[ES_STATUS] = ST_RUNNING
    return err


def game_is_over(gs: np.ndarray) -> bool:
    """The table's game is over (its last hand scored)."""
    return bool(gs[GS_OVER])


def seat_scores(gs: np.ndarray, players: int) -> list[int]:
    """Each seat's score in the table's game (hand points, what counts towards the target)."""
    return [int(gs[GS_SCORE + s]) for s in range(players)]


@kernel
def fill_seat_view(seat: int, rules: np.ndarray, hs: np.ndarray, pile: np.ndarray,
                   game_info: np.ndarray, view: np.ndarray, es: np.ndarray) -> bool:
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
    saved = hs[HS_TO_MOVE]
    hs[HS_TO_MOVE] = p
    fill_view(view, hs, pile, game_info, es[ES_DECISION] if deciding else DEC_OVER)
    hs[HS_TO_MOVE] = saved
    return hidden


@kernel
def observe_seat(seat: int, rules: np.ndarray, hs: np.ndarray, pile: np.ndarray,
                 game_info: np.ndarray, view: np.ndarray, es: np.ndarray,
                 obs: np.ndarray) -> None:
    """The observation of any seat now (:func:`fill_seat_view`): a seat outside the hand gets
    the captain's public view with the hand plane empty."""
    hidden = fill_seat_view(seat, rules, hs, pile, game_info, view, es)
    encode_observation(view, obs, hidden)


@kernel
def public_view(view: np.ndarray) -> None:
    """Blank what only the hand's player knows (his cards, their deadwood, the card he drew
    from the stock): the view array a seat outside the hand may be given."""
    view[V_HAND] = 0
    view[V_DEADWOOD] = 0
    view[V_DRAWN] = -1


@kernel
def seat_view(seat: int, rules: np.ndarray, hs: np.ndarray, pile: np.ndarray,
              game_info: np.ndarray, view: np.ndarray, es: np.ndarray) -> None:
    """The engine's view array of any seat now (:func:`fill_seat_view`), in ``view``: a seat
    outside the hand gets the captain's :func:`public_view`."""
    if fill_seat_view(seat, rules, hs, pile, game_info, view, es):
        public_view(view)
