"""``tuned``: a heuristic with many integer knobs, made to be tuned per rules variant.

Why a separate strategy: the best play differs between variants (two-player ``eaai`` rewards
camping for gin, three-handed rewards knocking early to keep the box), so instead of one more
fixed player this one exposes every choice strong heuristics make as an integer parameter,
and it ships named parameter sets (``tuned@eaai``) per variant. Named without a set, it plays
the set for the rules it plays (:func:`set_for_rules`: ``tuned`` under eaai is ``tuned@eaai``).

Its procedure, exactly (``p`` = the parameters, by name):

* **Offer and draw**: take the card if it lies in a meld of some least-deadwood arrangement
  (as ``simple``), or, when ``take_drop > 0``, if taking it (and discarding another card)
  lowers the least deadwood by at least ``take_drop``.
* **Knock** (asked only when legal), with ``best`` the deadwood left by the best discard:
  gin always knocks. Otherwise the threshold is ``knock_box`` (role 0: the box, or the dealer
  two-handed) or ``knock_captain`` (role 1) while fewer than ``early`` turns of the hand are
  done, and ``late_at`` after; it goes back up to the early value when the opponent is known
  to hold at least ``pressed`` cards from the pile (``pressed > 0``) or someone is within
  ``endgame`` points of the target (``endgame > 0``); then it falls by ``caution * max(0,
  shown + turn // 10 - 2)`` (undercut risk, as in ``discard-tracking``). It knocks when
  ``best <= threshold`` or when the stock holds at most ``wall + stock_low`` cards.
* **Discard** after a knock: a best discard, highest value first.
* **Discard** otherwise: among the legal cards leaving at most ``slack`` more deadwood than
  the best discard, the card with the smallest score ``4 * deadwood left + danger * feeds -
  safe * near_passed - pair * chances - look * outs * fade - reach * reach_outs - gain *
  saved / 32``; ties go to the higher-value card, then the higher code. ``outs``: the live
  cards that would complete a 3-card meld with two of the ten kept cards (the one-draw
  lookahead); ``fade`` falls linearly from 1 at turn 0 to 0 at turn ``look_fade``
  (``look_fade = 0``: no fading); ``feeds``:
  ``builtin.feeds_opponent`` (fit with the cards the opponent took, less his own discards);
  ``near_passed``: 1 if a card of the same rank or a suited neighbour is one I discarded and
  he did not take; ``chances``: the 3-card melds through the card with one other held card and
  a live missing card (two-card meld chances); ``reach_outs`` (``reach > 0``, counted when the
  card leaves at most ``REACH_SPAN`` above the knock threshold): the live cards counted in
  ``outs`` that, drawn, would leave at most the knock threshold (``knock_threshold`` capped by
  the hand's knock limit; 0 when camping: gin) after the best discard; ``saved`` (``gain >
  0``): the deadwood those ``outs`` would save, summed (``draw_outcomes``).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import CARD_VALUE
from sim.engine.hand import (
    AF_TIES,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    best_discards,
    deadwood_table,
)
from sim.engine.jit import kernel
from sim.engine.melds import best_discard_search, pick_highest, popcount
from sim.engine.rules import Rules
from sim.engine.view import (
    V_DEADWOOD,
    V_FORBIDDEN,
    V_HAND,
    V_KNOCK_LIMIT,
    V_KNOCKED,
    V_OPP_DECLINED,
    V_OPP_DISCARDED,
    V_OPP_TOOK,
    V_PLAYERS,
    V_ROLE,
    V_SCORE_OPP,
    V_SCORE_OTHER,
    V_SCORE_SELF,
    V_SELF_DISCARDED,
    V_STOCK,
    V_TARGET,
    V_TOP,
    V_TURN,
    V_WALL,
    legal_moves,
)
from strategies.builtin import (
    CARD_MELD3,
    CARD_MELD3_COUNT,
    feeds_opponent,
    in_some_best_meld,
    live_cards,
    opponent_holds,
)
from strategies.declare import ParamInfo, Params, StrategyInfo

# The shipped parameter sets, in slot order: the one source of their values. The declaration
# below builds ``tuned``'s defaults and named sets from them, and ``mc``'s kernel plays them as
# its base heuristic and rollout policy.
#: three-handed (``tuned``'s defaults): found by ``ginbox tune`` in two stages,
#: studies/tuned_sets/tune_tuned_three_handed.toml then tune_tuned_three_handed_2.toml, with
#: ``gain=8`` added later (the best of a sweep on seed 7, docs/lab/2026-12-02-tuned-sets.md).
THREE_HANDED_SET = np.array([8, 16, 21, 8, 3, 8, 0, 10, 10, 99, 10, 2, 0, 0, 0, 4, 8], np.int64)
#: eaai (``tuned@eaai``): gin only, tuned against simple in two stages
#: (studies/tuned_sets/tune_tuned_eaai.toml then tune_tuned_eaai_2.toml), then with ``gain`` in a
#: fifth run (tune_tuned_eaai_5.toml; its ``pair=3`` taken back to 2,
#: docs/lab/2026-12-02-tuned-sets.md).
EAAI_SET = np.array([23, 17, 6, 7, 4, 5, 2, 10, 10, 0, 0, 0, 0, 0, 0, 1, 9], np.int64)
#: oklahoma (``tuned@oklahoma``): the three-handed play with more lookahead late and more
#: reach, tuned under oklahoma rules (studies/tuned_sets/tune_tuned_oklahoma.toml). stock_low is the
#: tuner's value; it does nothing with thresholds of 10. Tuned before gain existed: gain=0.
OKLAHOMA_SET = np.array([12, 21, 20, 15, 5, 5, 1, 10, 10, 99, 10, 5, 0, 0, 0, 8, 0], np.int64)

#: The named sets' values; three-handed-20 plays the three-handed set until its own tune says
#: otherwise.
SET_VALUES: dict[str, np.ndarray] = {
    "three-handed": THREE_HANDED_SET,
    "three-handed-20": THREE_HANDED_SET,
    "eaai": EAAI_SET,
    "oklahoma": OKLAHOMA_SET,
}
#: The set ``tuned`` plays, when no set is named, under a preset that has one (by the rules'
#: name, a preset keeping its name under overrides), if the player count is the preset's.
PRESET_SETS: dict[str, str] = {name: name for name in SET_VALUES}
#: The set for any other rules (classic, hollywood, three-handed-hollywood, custom rules): the
#: one tuned for the same number of players. Why by players: the shipped sets differ most by
#: the table (two-handed rewards camping for gin, three-handed knocking early to keep the
#: box), and eaai and three-handed are the sets tuned for each. ``mc``'s kernel, which sees
#: the view and not the rules, plays this mapping for every table (:func:`load_table_set`).
PLAYERS_SETS: dict[int, str] = {2: "eaai", 3: "three-handed"}
TWO_HANDED_TABLE_SET = SET_VALUES[PLAYERS_SETS[2]]
THREE_HANDED_TABLE_SET = SET_VALUES[PLAYERS_SETS[3]]

# ``tuned``'s parameters in slot order, each default read from the three-handed set.
TUNED_PARAMS = Params("P_", (
    ParamInfo(name, int(default), low, high, doc) for (name, low, high, doc), default in zip((
        ("take_drop", 0, 60, "also take a card lowering deadwood by this much "
         "(0: only into a meld)"),
        ("slack", 0, 60, "discard only cards leaving at most this much more deadwood "
         "than the best"),
        ("look", 0, 40, "discard score: weight of each live card that would make a "
         "meld with the kept cards (deadwood weighs 4 a point)"),
        ("look_fade", 0, 99, "the lookahead weight falls to 0 by this turn (0: never)"),
        ("danger", 0, 40, "discard score: weight of feeding what the opponent took"),
        ("safe", 0, 40, "discard score: credit for a card next to one he passed"),
        ("pair", 0, 40, "discard score: credit per two-card meld chance kept"),
        ("knock_box", 0, 10, "knock threshold in the early turns as box (dealer)"),
        ("knock_captain", 0, 10, "knock threshold in the early turns as captain "
         "(non-dealer)"),
        ("early", 0, 99, "turns of the hand (both players') the early threshold lasts"),
        ("late_at", 0, 10, "knock threshold after the early turns (0: camp for gin)"),
        ("stock_low", 0, 31, "knock whenever legal once the stock is this close to the wall"),
        ("pressed", 0, 10, "back to the early threshold once the opponent holds this "
         "many cards from the pile (0: never)"),
        ("caution", 0, 10, "threshold falls this much per card he shows and per 10 "
         "turns, beyond the first two"),
        ("endgame", 0, 200, "back to the early threshold once someone is this close "
         "to the target (0: never)"),
        ("reach", 0, 40, "discard score: credit per live card that, drawn, would make "
         "a meld and let the kept cards knock (gin when camping)"),
        ("gain", 0, 40, "discard score: credit per 32 points of deadwood the live "
         "meld-making draws would save (deadwood weighs 4 a point)"),
    ), THREE_HANDED_SET.tolist(), strict=True)))
(P_TAKE_DROP, P_SLACK, P_LOOK, P_LOOK_FADE, P_DANGER, P_SAFE, P_PAIR, P_KNOCK_BOX,
 P_KNOCK_CAPTAIN, P_EARLY, P_LATE_AT, P_STOCK_LOW, P_PRESSED, P_CAUTION, P_ENDGAME,
 P_REACH, P_GAIN) = TUNED_PARAMS.slots
TUNED_PARAMS.check(globals())
N_TUNED_PARAMS = len(TUNED_PARAMS)
TUNED_PARAM_NAMES: tuple[str, ...] = TUNED_PARAMS.names
"""The parameters' names, in slot order."""
assert all(len(values) == N_TUNED_PARAMS for values in SET_VALUES.values())
REACH_SPAN = 20  # reach outs are counted only for discards leaving at most this much above
#                  the knock threshold: a single draw rarely lowers deadwood by more


@kernel
def meld_draws(kept: int, live: int) -> int:
    """Mask of the live cards that would complete a 3-card meld with two of the ``kept`` cards
    (every longer meld through a card holds such a 3-card part)."""
    draws = 0
    m = live
    while m:
        x = trailing_zeros(m)
        m &= m - 1
        for k in range(CARD_MELD3_COUNT[x]):
            others = CARD_MELD3[x, k] & ~(1 << x)
            if others & kept == others:
                draws |= 1 << x
                break
    return draws


@kernel
def meld_outs(kept: int, live: int) -> int:
    """How many live cards would complete a 3-card meld with two of the ``kept`` cards."""
    return popcount(meld_draws(kept, live))


@kernel
def draw_outcomes(kept: int, live: int, threshold: int, deadwood: int) -> tuple[int, int]:
    """What the live meld-making draws (``meld_draws``) would do for ``kept``, which has
    ``deadwood`` now: how many would let it knock, leaving at most ``threshold`` after the
    best discard (0: gin), and the total deadwood they would save. One meld search a draw
    gives both."""
    outs = 0
    saved = 0
    m = meld_draws(kept, live)
    while m:
        x = trailing_zeros(m)
        m &= m - 1
        left = best_discard_search(kept | (1 << x), -1)[0]
        if left <= threshold:
            outs += 1
        saved += max(0, deadwood - left)
    return outs, saved


@kernel
def reach_outs(kept: int, live: int, threshold: int) -> int:
    """How many live cards would, drawn, make a meld with ``kept`` and let it knock: leave at
    most ``threshold`` deadwood after the best discard (0: gin). The exact one-draw lookahead
    towards the goal among the cards ``outs`` counts (a card joining no meld, such as a low
    card replacing a high one, is not counted: this is the rule the shipped sets were tuned
    with)."""
    return draw_outcomes(kept, live, threshold, 0)[0]


@kernel
def two_card_chances(card: int, rest: int, live: int) -> int:
    """3-card melds through ``card`` with exactly one other card in ``rest`` and the missing
    card live: the partial melds that keeping ``card`` preserves."""
    n = 0
    for k in range(CARD_MELD3_COUNT[card]):
        others = CARD_MELD3[card, k] & ~(1 << card)
        held = others & rest
        if held != 0 and held != others and (others & ~held & live) != 0:
            n += 1
    return n


@kernel
def near(card: int, cards: int) -> int:
    """1 if ``cards`` holds a card of the same rank or a suited neighbour of ``card``."""
    rank = card % 16
    m = cards
    while m:
        o = trailing_zeros(m)
        m &= m - 1
        if o % 16 == rank or (o - o % 16 == card - rank and abs(o % 16 - rank) == 1):
            return 1
    return 0


@kernel
def knock_threshold(params: np.ndarray, view: np.ndarray) -> int:
    """The deadwood ``tuned`` knocks with (gin and the low-stock rule aside)."""
    turn = view[V_TURN]
    base = params[P_KNOCK_BOX] if view[V_ROLE] == 0 else params[P_KNOCK_CAPTAIN]
    threshold = base if turn < params[P_EARLY] else params[P_LATE_AT]
    shown = popcount(opponent_holds(view))
    if params[P_PRESSED] > 0 and shown >= params[P_PRESSED]:
        threshold = max(threshold, base)
    if params[P_ENDGAME] > 0:
        leader = max(view[V_SCORE_SELF], view[V_SCORE_OPP], view[V_SCORE_OTHER])
        if view[V_TARGET] - leader <= params[P_ENDGAME]:
            threshold = max(threshold, base)
    return threshold - params[P_CAUTION] * max(0, shown + turn // 10 - 2)


@kernel
def load_table_set(view: np.ndarray, out: np.ndarray) -> None:
    """Write the shipped set for the view's table into ``out[:N_TUNED_PARAMS]``: the set of
    :data:`PLAYERS_SETS` for the view's player count (the view does not name the rules)."""
    values = THREE_HANDED_TABLE_SET if view[V_PLAYERS] == 3 else TWO_HANDED_TABLE_SET
    for i in range(N_TUNED_PARAMS):
        out[i] = values[i]


@kernel
def tuned_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
                 mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """A heuristic with integer knobs for drawing, discarding and knocking (module doc)."""
    return tuned_move(decision, params, view, after, scratch)


@kernel
def tuned_move(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
               scratch: np.ndarray) -> int:
    """``tuned``'s move; it reads neither memory nor random bits, so ``mc``'s rollouts call
    it without them (``scratch``: at least 11 slots, for the legal discards)."""
    hand = view[V_HAND]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        top = view[V_TOP]
        take = in_some_best_meld(hand, top)
        if not take and params[P_TAKE_DROP] > 0:
            take = best_discards(hand | (1 << top), top, after) <= (
                view[V_DEADWOOD] - params[P_TAKE_DROP])
        if take:
            return MOVE_DRAW_DISCARD
        return MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK
    best = best_discards(hand, view[V_FORBIDDEN], after)
    if decision == DEC_KNOCK:
        if best == 0 or best <= knock_threshold(params, view):
            return MOVE_KNOCK
        if view[V_STOCK] <= view[V_WALL] + params[P_STOCK_LOW]:
            return MOVE_KNOCK
        return MOVE_NO_KNOCK
    if view[V_KNOCKED]:
        return pick_highest(after[AF_TIES])
    n = legal_moves(view, after, scratch)
    deadwood_table(hand, view[V_FORBIDDEN], after)
    live = live_cards(view)
    opp = opponent_holds(view)
    shed = view[V_OPP_DISCARDED]
    if view[V_OPP_DECLINED] >= 0:
        shed |= 1 << view[V_OPP_DECLINED]
    passed = view[V_SELF_DISCARDED] & ~view[V_OPP_TOOK]
    reach_at = -1
    if params[P_REACH] > 0:
        reach_at = max(0, min(knock_threshold(params, view), view[V_KNOCK_LIMIT]))
    fade_num = 1
    fade_den = 1
    if params[P_LOOK_FADE] > 0:
        fade_num = max(0, params[P_LOOK_FADE] - view[V_TURN])
        fade_den = params[P_LOOK_FADE]
    pick = -1
    pick_key = 0
    for i in range(n):
        c = scratch[i]
        extra = after[c] - best
        if extra > params[P_SLACK]:
            continue
        kept = hand & ~(1 << c)
        key = 4 * after[c] * fade_den
        if params[P_DANGER] > 0:
            key += params[P_DANGER] * feeds_opponent(c, opp, shed) * fade_den
        if params[P_SAFE] > 0:
            key -= params[P_SAFE] * near(c, passed) * fade_den
        if params[P_PAIR] > 0:
            key -= params[P_PAIR] * two_card_chances(c, kept, live) * fade_den
        if params[P_LOOK] > 0 and fade_num > 0:
            key -= params[P_LOOK] * meld_outs(kept, live) * fade_num
        use_reach = reach_at >= 0 and after[c] <= reach_at + REACH_SPAN
        if use_reach or params[P_GAIN] > 0:
            outs, saved = draw_outcomes(kept, live, reach_at, after[c])
            if use_reach:
                key -= params[P_REACH] * outs * fade_den
            key -= params[P_GAIN] * saved * fade_den // 32
        key = key * 16 - CARD_VALUE[c]
        if pick < 0 or key <= pick_key:
            pick = c
            pick_key = key
    return pick


def set_for_rules(rules: Rules) -> str:
    """The set bare ``tuned`` plays under ``rules``: the preset's own set (:data:`PRESET_SETS`)
    when the rules carry a preset's name and its number of players, else the set for the
    number of players (:data:`PLAYERS_SETS`)."""
    name = PRESET_SETS.get(rules.name)
    if name is not None and Rules.preset(name).players == rules.players:
        return name
    return PLAYERS_SETS[rules.players]


def _differences(values: np.ndarray) -> dict[str, int]:
    """A set as the parameters where it differs from the defaults."""
    return {p.name: v for p, v in zip(TUNED_PARAMS.params, values.tolist(), strict=True)
            if v != p.default}


TUNED = StrategyInfo(
    name="tuned",
    strategy_id=5,
    decide=tuned_decide,
    description="a heuristic with knobs for drawing, lookahead and danger in discarding, "
                "knocking by turn, role and score, and camping for gin; named sets per rules",
    params=TUNED_PARAMS.params,
    sets=tuple((name, _differences(values)) for name, values in SET_VALUES.items()),
    rules_set=set_for_rules,
)
"""``tuned``'s declaration (collected by :mod:`strategies.registry`)."""
