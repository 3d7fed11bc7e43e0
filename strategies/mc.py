"""``mc``: determinized Monte Carlo search, scored by game value.

Why: the heuristics answer each decision by a fixed rule; ``mc`` instead plays every option
out on many guesses of the hidden cards, using the engine's speed for strength.

At each decision with more than one candidate it:

1. **Samples worlds** from what its view shows and nothing else: the cards it has not seen
   (not in its hand, not in the discard pile, not known to be in the opponent's hand) are
   shuffled into the opponent's hand (which always holds every card it took from the pile
   and has not discarded since) and the stock. Inference: the opponent hand kept is the one
   of least deadwood among ``1 + develop * (his turns) / 10`` draws, because by a given turn
   a hand has improved on a random one (``python -m studies.mc_inference`` measured how far);
   with ``infer > 0`` a hand that would meld a card he discarded or declined is redrawn with
   chance ``infer`` percent, and with ``unknocked > 0`` a hand he would have knocked with
   (at ``opp_knock_at``, the knock his rollouts play) but did not, with chance ``unknocked``
   percent (:mod:`strategies.mc_worlds`); ``belief = 1`` draws his unseen cards by the learned
   belief (:mod:`strategies.mc_belief`). World ``k`` of a decision is
   drawn from sub-stream ``k`` of one word of the game's strategy stream, so every candidate
   meets the same worlds (common random numbers) and the games are the same for any number
   of workers.
2. **Lists the candidates**: take the upcard or pass, the pile or the stock, knock or play
   on, or a discard from a shortlist (the base heuristic's card, then the legal discards
   leaving least deadwood, the higher card first among equals, ``shortlist`` in all; after a
   knock every legal discard); a kind of decision left out of ``searched`` (1 take or draw,
   2 knock, 4 discard, summed) plays the base move unsearched, so each kind's share of the
   search's strength can be measured. The base heuristic (:func:`base_move`) gives the first
   candidate: ``tuned`` with the shipped set for the table (``base = 1``: why, it is the
   strongest heuristic, and the search keeps its move unless clearly beaten) or
   ``discard-tracking`` knocking at ``knock_at`` (``base = 0``).
3. **Rolls each world out**: a candidate is played with the engine's own
   :func:`sim.engine.hand.apply_move` and the hand is rolled out to its end; with
   ``rollout = 0`` by fast policies for both players (take a card only into a meld, discard
   the highest of the best discards, knock at ``knock_at`` for itself and ``opp_knock_at``
   for the opponent, who with ``opp_model = 1`` waits for gin in a world where he passed a
   knock, and with ``opp_model = 2`` also once the game's earlier hands showed him waiting
   for gin, :func:`strategies.mc_worlds.opponent_knock_at`; with ``opp_model = 3`` the learned
   knock model of :mod:`strategies.mc_knock` decides his knocks, and with ``opp_model = 4``
   the keep model of :mod:`strategies.mc_keep` his takes and discards too), with ``rollout = 1`` by
   ``tuned`` (the base's set) for its own moves, with ``rollout = 2`` by ``tuned`` for both
   (the table's set for the opponent); each ``tuned`` mover sees only his own view of the rolled-out
   hand; ``rollout_for`` (summed as ``searched``) says which kinds of decision roll out with
   that policy, the others fast.
4. **Scores** the end of each rolled-out hand by its game value
   (:func:`strategies.game_value.game_value`): the chance of winning the game from the
   scores (and, three-handed, the roles) it leaves.
5. **Stops early**, after at least 16 worlds and every 8 worlds after, once the leading
   candidate beats every other by more than ``stop``/10 standard errors of the paired
   difference (0: never stop early), or, with ``futile > 0``, once every other candidate
   is at least ``futile``/10 standard errors short of the bar of ``trust`` (below), and
   **decides** (:func:`choose`): the base move unless another beats it by more than
   ``trust``/10 standard errors, then the best of those.

6. **With the network** (``net``, the sum of its uses; :mod:`strategies.net`): its move as
   the base move (1), its policy ordering the discard shortlist (2), its hand outcome as the
   leaf value with ``leaf > 0`` (4), its policy playing the searcher's own rollout moves (8).
   The search functions take the network's flat weights as their first argument
   (:func:`search_with`, :func:`mc_move`); ``mc_decide`` passes the shipped ones, and
   ``mc:weights=PATH`` a file's.

It reads only the view, ``after`` (the rules' per-turn deadwood table for its own hand) and
the game's strategy stream; its search buffers live in ``scratch`` (their layout and the
sampling of worlds are in :mod:`strategies.mc_worlds`).
"""

from __future__ import annotations

import numpy as np

from sim.engine.hand import (
    AF_TIES,
    AFTER_LEN,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    END_DRAW,
    END_TURN_LIMIT,
    HS_END,
    HS_HAND,
    HS_LEN,
    HS_POINTS,
    HS_STATE_LEN,
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
    best_legal_after,
    deadwood_table,
    forget_after,
)
from sim.engine.jit import kernel
from sim.engine.melds import (
    pick_highest,
)
from sim.engine.rng import next_u64, stream_seed
from sim.engine.view import (
    GI_LEN,
    GI_PLAYERS,
    GI_SCORE,
    GI_SCORE_OTHER,
    GI_TARGET,
    V_FORBIDDEN,
    V_HAND,
    V_KNOCKED,
    V_LEN,
    V_PILE_LEN,
    V_PLAYERS,
    V_ROLE,
    V_SCORE_OPP,
    V_SCORE_OTHER,
    V_SCORE_SELF,
    V_TARGET,
    fill_view,
    legal_moves,
)
from strategies.builtin import (
    DISCARD_TRACKING_PARAMS,
    DT_CAUTION,
    DT_KNOCK_AT,
    DT_SLACK,
    discard_tracking_decide,
)
from strategies.declare import ParamInfo, Params, StrategyInfo
from strategies.game_value import game_value
from strategies.mc_choice import _base_holds, _clearly_best, choose, discard_before
from strategies.mc_eval import N_FEATURES, leaf_value
from strategies.mc_worlds import (
    FEATURES_LEN,
    MAX_CANDIDATES,
    MC_SCRATCH_LEN,
    RSCRATCH_LEN,
    S_AFTER,
    S_BASE,
    S_BASE_PARAMS,
    S_BASE_PILE,
    S_CAND,
    S_COUNT,
    S_DECK,
    S_DIFF,
    S_FEATURES,
    S_HS,
    S_MOVES,
    S_OPP_SET,
    S_OWN_SET,
    S_PASSED_KNOCK,
    S_PILE,
    S_RINFO,
    S_RSCRATCH,
    S_RVIEW,
    S_SUM,
    S_TEAM,
    S_UNSEEN,
    S_VALUES,
    VALUE_ONE,
    fast_policy,
    inference,
    load_belief_odds,
    load_keep_style,
    load_opponent_style,
    opponent_keep_move,
    opponent_knock_at,
    opponent_knocks,
    sample_world,
    tuned_rollout_move,
)
from strategies.net import NET_AT, NET_WEIGHTS, W_LOGITS, forward, hand_outcome, policy_move
from strategies.tuned import (
    N_TUNED_PARAMS,
    P_KNOCK_BOX,
    P_KNOCK_CAPTAIN,
    P_LATE_AT,
    load_table_set,
    tuned_move,
)

# ``mc``'s parameters in slot order. Defaults: measured for speed and strength on two-player
# eaai, in docs/lab/ (the mc pages).
MC_PARAMS = Params("P_", (
    ParamInfo("samples", 0, 0, 1024, "worlds sampled per decision (the most; see stop); "
              "0: 256 two-handed, 192 three-handed"),
    ParamInfo("shortlist", 3, 1, 11, "discards searched: those leaving least deadwood"),
    ParamInfo("knock_at", 11, 0, 11, "its base heuristic and its own rollouts knock at this "
              "deadwood or less; 11: tuned's set decides, other heuristics knock at gin only "
              "two-handed and at the knock limit three-handed"),
    ParamInfo("opp_knock_at", None, 0, 10, "the opponent's rollouts knock at this deadwood "
              "or less (default: the knock limit)"),
    ParamInfo("stop", 30, 0, 100, "stop sampling once the leader is this many tenths of a "
              "standard error ahead of every other option (0: never)"),
    ParamInfo("infer", 0, 0, 100, "redraw a world with this chance (percent) when the "
              "opponent's hand would meld a card he discarded or declined"),
    ParamInfo("trust", 15, 0, 100, "keep the heuristic's move unless another beats it by "
              "this many tenths of a standard error"),
    ParamInfo("develop", 40, 0, 100, "keep the opponent hand of least deadwood among 1 + "
              "develop/10 draws per turn he has had (0: uniform)"),
    ParamInfo("base", 1, 0, 1, "its base heuristic, whose move is kept unless beaten: "
              "0 discard-tracking, 1 tuned with the shipped set for the table"),
    ParamInfo("rollout", 0, 0, 2, "rollout policy: 0 fast for both players, 1 tuned (the "
              "table's set) for its own moves, 2 tuned for both"),
    ParamInfo("unknocked", 0, 0, 100, "redraw with this chance (percent) an opponent hand "
              "he would have knocked with on his last turn at opp_knock_at (he did not)"),
    ParamInfo("futile", 15, 0, 100, "also stop sampling once every other option is this many "
              "tenths of a standard error short of the trust bar (0: never)"),
    ParamInfo("searched", 7, 0, 7, "the decisions searched, the sum of 1 take or draw, "
              "2 knock, 4 discard; the others play the base heuristic's move"),
    ParamInfo("rollout_for", 7, 0, 7, "the decisions whose rollouts play the rollout policy, "
              "the sum of 1 take or draw, 2 knock, 4 discard; the others roll out fast"),
    ParamInfo("leaf", 0, 0, 30, "stop each rollout at its own n-th next draw and score the "
              "rest of the hand with the learned evaluator (0: roll out to the end)"),
    ParamInfo("net", 0, 0, 15, "the network's uses (the shipped one, or weights=PATH), the sum "
              "of 1 base move (instead of the heuristic's), 2 prior (the discard shortlist by "
              "its policy), 4 leaf value (with leaf > 0, instead of the linear evaluator), "
              "8 rollouts (its policy plays its own rollout moves)"),
    ParamInfo("belief", 0, 0, 1, "1: draw the opponent's unseen cards from the learned belief "
              "(each card's chance, from the view); develop, infer and unknocked still apply"),
    ParamInfo("opp_model", 0, 0, 4, "1: where the world's opponent could have knocked last turn "
              "and did not, his fast rollouts wait for gin instead of knocking at opp_knock_at; "
              "2: also, once the game's earlier hands showed him going gin twice and never "
              "knocking, they wait for gin; 3: the learned knock model decides his knocks from "
              "what he has shown (his earlier hands, a knock let pass, the scores, the stock); "
              "4: also the learned keep model plays his takes and discards"),
))
(P_SAMPLES, P_SHORTLIST, P_KNOCK_AT, P_OPP_KNOCK_AT, P_STOP, P_INFER, P_TRUST, P_DEVELOP,
 P_BASE, P_ROLLOUT, P_UNKNOCKED, P_FUTILE, P_SEARCHED, P_ROLLOUT_FOR, P_LEAF,
 P_NET, P_BELIEF, P_OPP_MODEL) = MC_PARAMS.slots
MC_PARAMS.check(globals())
assert N_FEATURES <= FEATURES_LEN
assert MC_SCRATCH_LEN <= NET_AT  # the network's workspace lies past every slot of the search
NET_BASE, NET_PRIOR, NET_LEAF, NET_ROLLOUT = 1, 2, 4, 8  # ``net``: the network's uses
N_DT_PARAMS = len(DISCARD_TRACKING_PARAMS)  # base = 0's parameters (a plain int for numba)
BASE_DISCARD_TRACKING, BASE_TUNED = 0, 1  # ``base``: the heuristic giving candidate 0
ROLLOUT_FAST, ROLLOUT_TUNED_OWN, ROLLOUT_TUNED_BOTH = 0, 1, 2  # ``rollout``: who plays tuned
AUTO_KNOCK = 11  # knock_at's default: decided by the number of players
AUTO_SAMPLES = 0  # samples' default: decided by the number of players (:func:`budget`)
TWO_HANDED_SAMPLES, THREE_HANDED_SAMPLES = 256, 192


@kernel
def _rollout_value(net: np.ndarray, view: np.ndarray, scratch: np.ndarray,
                   params: np.ndarray, candidate: int, rollout: int, opp_knock_at: int) -> int:
    """Play ``candidate`` in the world held in the base buffers, roll the hand out, and
    return its game value for the mover (times ``VALUE_ONE``); the opponent's fast rollouts
    knock at ``opp_knock_at`` (:func:`strategies.mc_worlds.opponent_knock_at`)."""
    hs = scratch[S_HS:S_HS + HS_LEN]
    pile = scratch[S_PILE:S_PILE + 52]
    deck = scratch[S_DECK:S_DECK + 52]
    after = scratch[S_AFTER:S_AFTER + AFTER_LEN]
    moves = scratch[S_MOVES:S_MOVES + 2].reshape((1, 2))
    for j in range(HS_STATE_LEN):
        hs[j] = scratch[S_BASE + j]
    for j in range(view[V_PILE_LEN]):
        pile[j] = scratch[S_BASE_PILE + j]
    forget_after(after)
    me = view[V_ROLE]
    move = candidate
    if candidate == MOVE_KNOCK:  # knock, then the discard leaving least deadwood
        apply_move(hs, pile, deck, after, moves, MOVE_KNOCK)
        best_legal_after(hs, after)
        move = pick_highest(after[AF_TIES])
    apply_move(hs, pile, deck, after, moves, move)
    leaf = params[P_LEAF]
    draws = 0
    passed = False  # the opponent let a knock pass in this rollout
    while True:
        decision = advance(hs, pile, deck, after, moves)
        if decision == DEC_OVER:
            break
        own = hs[HS_TO_MOVE] == me
        if leaf > 0 and own and decision == DEC_DRAW:
            draws += 1
            if draws >= leaf:
                return _leaf(net, hs, pile, scratch, decision, me, params[P_NET])
        if own and params[P_NET] & NET_ROLLOUT:
            chosen = _net_rollout_move(net, decision, hs, pile, after, scratch)
        elif rollout == ROLLOUT_TUNED_BOTH or (own and rollout == ROLLOUT_TUNED_OWN):
            chosen = tuned_rollout_move(decision, hs, pile, after, scratch,
                                         S_OWN_SET if own else S_OPP_SET)
        elif not own and decision == DEC_KNOCK and params[P_OPP_MODEL] >= 3:
            chosen = MOVE_KNOCK if opponent_knocks(hs, after, scratch, passed) else MOVE_NO_KNOCK
            passed = passed or chosen == MOVE_NO_KNOCK
        elif not own and params[P_OPP_MODEL] >= 4:
            chosen = opponent_keep_move(decision, hs, pile, after, scratch)
        else:
            knock_at = own_knock_at(params, view) if own else opp_knock_at
            if not own and scratch[S_PASSED_KNOCK] == 1:
                knock_at = 0  # he passed a knock in this world: he waits for gin
            chosen = fast_policy(decision, hs, pile, after, knock_at)
        if apply_move(hs, pile, deck, after, moves, chosen) != OK:
            return -1  # cannot happen: the policies play only legal moves
    end = hs[HS_END]
    if end == END_DRAW or end == END_TURN_LIMIT:
        value = game_value(view, -1, 0)
    else:
        value = game_value(view, 1 if hs[HS_WINNER] == me else 0, hs[HS_POINTS])
    return int(value * VALUE_ONE + 0.5)


@kernel
def _leaf(net: np.ndarray, hs: np.ndarray, pile: np.ndarray, scratch: np.ndarray,
          decision: int, me: int, uses: int) -> int:
    """The game value (times ``VALUE_ONE``) of the rolled-out hand at the mover's draw:
    the linear evaluator's, from his view there and the opponent's hand in this world, or
    with ``uses`` holding ``NET_LEAF`` the network's hand outcome from his view alone (both
    through :func:`game_value`)."""
    rview = scratch[S_RVIEW:S_RVIEW + V_LEN]
    fill_view(rview, hs, pile, scratch[S_RINFO:S_RINFO + GI_LEN], decision)
    if uses & NET_LEAF:
        _, won, lost, won_points, lost_points = hand_outcome(
            net, rview, scratch[S_AFTER:S_AFTER + AFTER_LEN], scratch)
        value = won * game_value(rview, 1, int(won_points + 0.5))
        value += lost * game_value(rview, 0, int(lost_points + 0.5))
        value += (1.0 - won - lost) * game_value(rview, -1, 0)
    else:
        value = leaf_value(rview, hs[HS_HAND + 1 - me],
                           scratch[S_FEATURES:S_FEATURES + N_FEATURES])
    return int(value * VALUE_ONE + 0.5)


@kernel
def _net_rollout_move(net: np.ndarray, decision: int, hs: np.ndarray, pile: np.ndarray,
                      after: np.ndarray, scratch: np.ndarray) -> int:
    """The network's move for the player to move in a rollout, from his own view there."""
    rview = scratch[S_RVIEW:S_RVIEW + V_LEN]
    fill_view(rview, hs, pile, scratch[S_RINFO:S_RINFO + GI_LEN], decision)
    return policy_move(net, rview, after, scratch, scratch[S_RSCRATCH:S_RSCRATCH + RSCRATCH_LEN])


@kernel(inline="always")
def budget(params: np.ndarray, view: np.ndarray) -> int:
    """The most worlds a decision samples: ``samples``, where ``AUTO_SAMPLES`` means
    ``TWO_HANDED_SAMPLES`` at two players and ``THREE_HANDED_SAMPLES`` at three. Why these:
    with ``futile`` on, most decisions stop at 16 worlds, so the budget goes to the close
    ones; measured on the tuning seed, two-handed 256 beat 48 (and 128 and 512 were no
    better), three-handed 192 and 384 played as 96 without ``futile`` did, 192 the faster."""
    k = params[P_SAMPLES]
    if k == AUTO_SAMPLES:
        return THREE_HANDED_SAMPLES if view[V_PLAYERS] == 3 else TWO_HANDED_SAMPLES
    return max(1, k)


@kernel(inline="always")
def own_knock_at(params: np.ndarray, view: np.ndarray) -> int:
    """Its own knock threshold: ``knock_at``, where ``AUTO_KNOCK`` means gin only two-handed
    (patience beats early knocks there) and the knock limit (-1) three-handed (where an early
    knock keeps the box)."""
    k = params[P_KNOCK_AT]
    if k == AUTO_KNOCK:
        return -1 if view[V_PLAYERS] == 3 else 0
    return k


@kernel
def base_move(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
              after: np.ndarray, mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The base move: with ``net`` holding ``NET_BASE``, the network's; else with
    ``base = 0``, ``discard-tracking`` knocking at ``knock_at``; with ``base = 1``, ``tuned``
    with the shipped set for the table (:func:`own_tuned_set`). None reads ``mem`` or
    ``rng``."""
    if params[P_NET] & NET_BASE:
        return policy_move(net, view, after, scratch, scratch[S_UNSEEN:S_UNSEEN + 16])
    if params[P_BASE] == BASE_TUNED:
        base = scratch[S_BASE_PARAMS:S_BASE_PARAMS + N_TUNED_PARAMS]
        own_tuned_set(params, view, base)
        return tuned_move(decision, base, view, after, scratch)
    base = scratch[S_BASE_PARAMS:S_BASE_PARAMS + N_DT_PARAMS]
    base[DT_KNOCK_AT] = own_knock_at(params, view)
    base[DT_SLACK] = 1
    base[DT_CAUTION] = 1
    return discard_tracking_decide(decision, base, view, after, mem, rng, scratch)


@kernel
def own_tuned_set(params: np.ndarray, view: np.ndarray, out: np.ndarray) -> None:
    """``tuned``'s parameters when ``mc`` plays it (as its base or in its own rollouts): the
    shipped set for the table (three-handed at three players, ``eaai`` at two), knocking at
    ``knock_at`` instead of the set's thresholds unless ``knock_at`` is ``AUTO_KNOCK``."""
    load_table_set(view, out)
    k = params[P_KNOCK_AT]
    if k != AUTO_KNOCK:
        out[P_KNOCK_BOX] = k
        out[P_KNOCK_CAPTAIN] = k
        out[P_LATE_AT] = k


@kernel
def _prepare_rollouts(rollout: int, params: np.ndarray, view: np.ndarray,
                      scratch: np.ndarray) -> None:
    """Load the rollouts' ``tuned`` sets (its own as :func:`own_tuned_set`, the opponent's
    the plain set for the table) and the public game facts their views (and the leaf
    evaluator's) are filled from."""
    if rollout == ROLLOUT_FAST and params[P_LEAF] <= 0 and not params[P_NET] & NET_ROLLOUT:
        return
    own_tuned_set(params, view, scratch[S_OWN_SET:S_OWN_SET + N_TUNED_PARAMS])
    load_table_set(view, scratch[S_OPP_SET:S_OPP_SET + N_TUNED_PARAMS])
    for j in range(V_LEN):
        scratch[S_RVIEW + j] = 0
    info = scratch[S_RINFO:S_RINFO + GI_LEN]
    for j in range(GI_LEN):
        info[j] = 0
    me = view[V_ROLE]
    info[GI_SCORE + me] = view[V_SCORE_SELF]
    info[GI_SCORE + 1 - me] = view[V_SCORE_OPP]
    info[GI_SCORE_OTHER] = view[V_SCORE_OTHER]
    info[GI_TARGET] = view[V_TARGET]
    info[GI_PLAYERS] = view[V_PLAYERS]


@kernel
def candidates(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
               after: np.ndarray, scratch: np.ndarray, first: int) -> int:
    """Write this decision's candidates to ``scratch[S_CAND:]``; return how many. ``first``
    (the base move) comes first: it wins ties and is kept unless beaten. The discards
    follow by deadwood left, or with ``net`` holding ``NET_PRIOR`` by the network's logit."""
    c = scratch[S_CAND:S_CAND + MAX_CANDIDATES]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        stay = MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK
        if view[V_PILE_LEN] == 0:
            c[0] = stay
            return 1
        c[0] = first
        c[1] = stay if first == MOVE_DRAW_DISCARD else MOVE_DRAW_DISCARD
        return 2
    if decision == DEC_KNOCK:
        c[0] = first
        c[1] = MOVE_NO_KNOCK if first == MOVE_KNOCK else MOVE_KNOCK
        return 2
    # a discard: the legal cards by deadwood left, the higher card first among equals
    legal = scratch[S_UNSEEN:S_UNSEEN + 52]
    n_legal = legal_moves(view, after, legal)
    deadwood_table(view[V_HAND], view[V_FORBIDDEN], after)
    if params[P_NET] & NET_PRIOR:
        _sort_by_logit(net, view, after, scratch, legal, n_legal)
    else:
        for i in range(1, n_legal):  # insertion sort of at most 11 cards
            card = legal[i]
            j = i
            while j > 0 and discard_before(after, card, legal[j - 1]):
                legal[j] = legal[j - 1]
                j -= 1
            legal[j] = card
    n = n_legal if view[V_KNOCKED] == 1 else min(n_legal, max(1, params[P_SHORTLIST]))
    n = min(n, MAX_CANDIDATES)
    c[0] = first
    k = 1
    for i in range(n_legal):
        if k >= n:
            break
        if legal[i] != first:
            c[k] = legal[i]
            k += 1
    return k


@kernel
def _sort_by_logit(net: np.ndarray, view: np.ndarray, after: np.ndarray, scratch: np.ndarray,
                   legal: np.ndarray, n_legal: int) -> None:
    """Order the ``n_legal`` discards in ``legal`` by the network's logit, highest first
    (the earlier card among equals)."""
    forward(net, view, after, scratch, legal, n_legal)
    logits = scratch.view(np.float64)[W_LOGITS:W_LOGITS + n_legal]
    for i in range(1, n_legal):
        card = legal[i]
        logit = logits[i]
        j = i
        while j > 0 and logit > logits[j - 1]:
            legal[j] = legal[j - 1]
            logits[j] = logits[j - 1]
            j -= 1
        legal[j] = card
        logits[j] = logit


@kernel
def search(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
           mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """:func:`search_with` the shipped network (read only when ``net`` asks for it)."""
    return search_with(NET_WEIGHTS, decision, params, view, after, mem, rng, scratch)


@kernel
def search_with(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
                after: np.ndarray, mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """Score the candidates on sampled worlds; return the index of the one to play.
    Afterwards ``scratch[S_COUNT]`` holds the number of candidates, ``scratch[S_COUNT + 1]``
    the worlds used, ``scratch[S_CAND + i]`` candidate ``i`` and ``scratch[S_SUM + i]`` its
    summed value (times ``VALUE_ONE``). A single candidate is played without search (and
    without drawing from the stream). ``net``: the network's flat weights, for the uses
    ``params[P_NET]`` names."""
    n_cand = shortlist(net, decision, params, view, after, mem, rng, scratch)
    if n_cand <= 1:
        return 0
    score(net, decision, params, view, scratch, n_cand, next_u64(rng))
    return choose(scratch, n_cand, scratch[S_COUNT + 1], max(0, params[P_TRUST]) / 10.0)


@kernel
def shortlist(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
              after: np.ndarray, mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The first half of :func:`search_with`: the base move, then the candidates to score
    when ``searched`` holds this kind of decision (else the base move alone), written to
    ``scratch[S_CAND:]``; return how many (also in ``scratch[S_COUNT]``, with no worlds yet
    in ``scratch[S_COUNT + 1]``)."""
    first = base_move(net, decision, params, view, after, mem, rng, scratch)
    if _kind_in(params[P_SEARCHED], decision):
        n_cand = candidates(net, decision, params, view, after, scratch, first)
    else:
        scratch[S_CAND] = first
        n_cand = 1
    scratch[S_COUNT] = n_cand
    scratch[S_COUNT + 1] = 0
    return n_cand


@kernel(inline="always")
def _kind_in(mask: int, decision: int) -> bool:
    """Is this kind of decision in ``mask`` (the sum of 1 take or draw, 2 knock, 4 discard)?"""
    if decision == DEC_OFFER or decision == DEC_DRAW:
        bit = 1
    elif decision == DEC_KNOCK:
        bit = 2
    else:
        bit = 4
    return (mask & bit) != 0


@kernel
def score(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
          scratch: np.ndarray, n_cand: int, base: np.uint64, known: bool = False) -> int:
    """Roll the ``n_cand`` candidates in ``scratch[S_CAND:]`` out on worlds drawn from
    ``base`` with ``params``' budget, inference and rollout policies; sums in ``S_SUM``,
    paired differences in ``S_DIFF``; return the worlds used (also in ``S_COUNT + 1``).

    ``known``: the base buffers already hold the world (the true deal,
    :func:`strategies.mc_worlds.load_truth`), so nothing is sampled and it is rolled out
    once: every rollout policy is deterministic, so copies of it would add identical values
    (and the early stop would end the search at 16 of them with the same choice)."""
    for i in range(n_cand):
        scratch[S_SUM + i] = 0
    for i in range(2 * MAX_CANDIDATES * MAX_CANDIDATES):
        scratch[S_DIFF + i] = 0
    samples = 1 if known else budget(params, view)
    sq = S_DIFF + MAX_CANDIDATES * MAX_CANDIDATES
    rollout = params[P_ROLLOUT] if _kind_in(params[P_ROLLOUT_FOR], decision) else ROLLOUT_FAST
    _prepare_rollouts(rollout, params, view, scratch)
    opp_knock_at = opponent_knock_at(params[P_OPP_KNOCK_AT], params[P_OPP_MODEL], view)
    how = inference(params[P_INFER], params[P_DEVELOP], params[P_UNKNOCKED], opp_knock_at,
                    params[P_BELIEF], params[P_OPP_MODEL])
    if how.belief > 0 and not known:
        load_belief_odds(view, scratch)
    if params[P_OPP_MODEL] >= 3:
        load_opponent_style(view, scratch)
    if params[P_OPP_MODEL] >= 4:
        load_keep_style(scratch)
    scratch[S_PASSED_KNOCK] = 0  # the true deal (known) has no guessed knock model
    done = 0
    for k in range(samples):
        if not known:
            sample_world(view, scratch, stream_seed(base, k), how)
        for i in range(n_cand):
            v = _rollout_value(net, view, scratch, params, scratch[S_CAND + i], rollout,
                               opp_knock_at)
            scratch[S_VALUES + i] = v
            scratch[S_SUM + i] += v
        for i in range(n_cand):
            for j in range(n_cand):
                d = scratch[S_VALUES + i] - scratch[S_VALUES + j]
                scratch[S_DIFF + i * MAX_CANDIDATES + j] += d
                scratch[sq + i * MAX_CANDIDATES + j] += d * d
        done = k + 1
        scratch[S_COUNT + 1] = done
        if done >= 16 and done % 8 == 0 and done < samples:
            if params[P_STOP] > 0 and _clearly_best(scratch, n_cand, done,
                                                    params[P_STOP] / 10.0):
                break
            if params[P_FUTILE] > 0 and _base_holds(
                    scratch, n_cand, done, (params[P_TRUST] - params[P_FUTILE]) / 10.0):
                break
    return done


@kernel
def consensus(decision: int, captain: np.ndarray, advisor: np.ndarray, view: np.ndarray,
              after: np.ndarray, mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The team policy ``consensus`` between two ``mc``: the captain's candidates, each
    scored by both (each with its own budget, inference and rollouts, on the same worlds),
    and the move of highest summed mean value; ties go to the earlier candidate (the
    captain's base move first). ``S_TEAM`` keeps the captain's means."""
    first = base_move(NET_WEIGHTS, decision, captain, view, after, mem, rng, scratch)
    if not _kind_in(captain[P_SEARCHED], decision):
        return first
    n_cand = candidates(NET_WEIGHTS, decision, captain, view, after, scratch, first)
    if n_cand <= 1:
        return scratch[S_CAND]
    base = next_u64(rng)
    worlds = score(NET_WEIGHTS, decision, captain, view, scratch, n_cand, base)
    for i in range(n_cand):
        scratch[S_TEAM + i] = scratch[S_SUM + i] // worlds
    worlds = score(NET_WEIGHTS, decision, advisor, view, scratch, n_cand, base)
    best = 0
    best_value = -1
    for i in range(n_cand):
        value = scratch[S_TEAM + i] + scratch[S_SUM + i] // worlds
        if value > best_value:
            best = i
            best_value = value
    return scratch[S_CAND + best]


@kernel
def mc_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
              mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """Determinized Monte Carlo search scored by game value (see the module docstring)."""
    return mc_move(NET_WEIGHTS, decision, params, view, after, mem, rng, scratch)


@kernel
def mc_move(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
            after: np.ndarray, mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """``mc``'s move searching with the network ``net`` (``mc:weights=PATH``)."""
    return scratch[S_CAND + search_with(net, decision, params, view, after, mem, rng, scratch)]


MC = StrategyInfo(
    name="mc",
    strategy_id=6,
    decide=mc_decide,
    description="determinized Monte Carlo search: samples the hidden cards, rolls every "
                "option out on the same worlds, scores by the chance of winning the game",
    params=MC_PARAMS.params,
    consensus=consensus,
    decide_with_net=mc_move,
)
"""``mc``'s declaration (collected by :mod:`strategies.registry`)."""
