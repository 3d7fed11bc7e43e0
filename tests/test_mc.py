"""``mc``: legal and deterministic in every role, blind to hidden cards, option values that
match a brute-force evaluation, and the game-value tables against exact values.

Kept fast: small ``samples`` everywhere (the default plays in tests/test_conformance.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.analysis.explain import explain_move
from sim.engine.cards import FULL_MASK, mask_cards, parse_card
from sim.engine.game import shuffle_deck
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    HS_HAND,
    HS_PILE_MASK,
    HS_STOCK_TOP,
    HS_TO_MOVE,
    HS_TOOK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.melds import min_deadwood_mask
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.showdown import new_showdown_work, settle_kernel
from sim.engine.view import (
    GI_LEN,
    GI_PLAYERS,
    GI_SCORE,
    GI_TARGET,
    V_DECISION,
    V_KNOCK_LIMIT,
    V_LEN,
    V_OPP_DISCARDED,
    V_PLAYERS,
    V_ROLE,
    fill_view,
)
from sim.play.driver import Seeds, iter_games, play_games
from sim.testing import check_strategy
from strategies import game_value as gv
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.mc import P_FUTILE, S_CAND, S_COUNT, S_SUM, base_move, mc_decide
from strategies.mc_options import option_values
from strategies.mc_worlds import S_BASE, inference, knock_bar, sample_world
from strategies.net import NET_WEIGHTS
from strategies.registry import parse_strategy
from strategies.tuned import (
    EAAI_SET,
    N_TUNED_PARAMS,
    OKLAHOMA_SET,
    THREE_HANDED_SET,
    tuned_decide,
)

CHEAP = "mc:samples=6"
#: Every base heuristic and rollout policy: tuned as the base, in its own rollouts and in both.
VARIANTS = (CHEAP, "mc:samples=4,base=1", "mc:samples=3,base=1,rollout=1",
            "mc:samples=3,base=0,rollout=2", "mc:samples=4,unknocked=100,opp_knock_at=8",
            "mc:samples=4,leaf=2", "mc:samples=3,leaf=1,rollout=2")


def test_cheap_mc_conforms_in_every_role_with_inference_on() -> None:
    report = check_strategy("mc:samples=3,infer=50,develop=20,stop=0")
    assert {"box", "captain", "advisor", "dealer", "non-dealer"} <= set(report.decisions)


def test_mc_with_tuned_as_base_and_in_both_rollouts_conforms_in_every_role() -> None:
    report = check_strategy("mc:samples=2,base=1,rollout=2,knock_at=7")
    assert {"box", "captain", "advisor", "dealer", "non-dealer"} <= set(report.decisions)


def test_same_seed_same_games_whatever_the_batching() -> None:
    rules = Rules.preset("eaai")
    seeds = Seeds.from_seed(5)
    whole = np.concatenate([r for r, _ in iter_games(rules, [CHEAP, "simple"], 6, seeds,
                                                     batch=6)])
    pieces = np.concatenate([r for r, _ in iter_games(rules, [CHEAP, "simple"], 6, seeds,
                                                      batch=1)])
    assert np.array_equal(whole, pieces)
    tail = np.concatenate([r for r, _ in iter_games(rules, [CHEAP, "simple"], 3, seeds,
                                                    first_game=3)])
    assert np.array_equal(whole[3:], tail)


@pytest.mark.parametrize(("preset", "lineup", "budget"), [
    ("eaai", ["{mc}", "simple"], 256),
    ("three-handed", ["simple", "{mc}", "discard-tracking"], 192),
])
def test_default_budget_is_256_worlds_two_handed_and_192_three_handed(
        preset: str, lineup: list[str], budget: int) -> None:
    """``samples = 0`` (the default) plays exactly as the table's budget given by hand."""
    rules = Rules.preset(preset)
    seeds = Seeds.from_seed(21)
    games = [np.concatenate([r for r, _ in iter_games(
        rules, [s.format(mc=mc) for s in lineup], 2, seeds)])
        for mc in ("mc:stop=0", f"mc:stop=0,samples={budget}")]
    assert np.array_equal(games[0], games[1])
    assert parse_strategy("mc").params_array()[0] == 0
    assert parse_strategy("mc").params_array()[P_FUTILE] == 15  # the budget assumes it


def _positions(preset: str, hands: int, seed: int = 11, strategy: str = CHEAP):
    """(hand state, pile, deck, after, view) at every decision of ``hands`` hands in which
    both players follow ``strategy`` (an mc)."""
    rules = Rules.preset(preset).to_array()
    params = parse_strategy(strategy).params_array()
    rng = np.array([seed], np.uint64)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    mem = np.zeros(MEM_LEN, np.int64)
    for h in range(hands):
        hs, pile, after, moves = new_hand_buffers(0)
        deck = np.zeros(52, np.int64)
        shuffle_deck(deck, np.array([stream_seed(np.uint64(seed), h)], np.uint64))
        deal(hs, pile, deck, rules)
        info = np.zeros(GI_LEN, np.int64)
        info[GI_SCORE:GI_SCORE + 2] = (30, 55)
        info[GI_TARGET] = 100
        info[GI_PLAYERS] = 2
        while (decision := advance(hs, pile, deck, after, moves)) != DEC_OVER:
            view = np.zeros(V_LEN, np.int64)
            fill_view(view, hs, pile, info, decision)
            yield hs, pile, deck, after, view, info
            move = mc_decide(decision, params, view, after, mem, rng, scratch)
            assert apply_move(hs, pile, deck, after, moves, move) == OK


@pytest.mark.parametrize("strategy", VARIANTS)
def test_decisions_unchanged_when_hidden_cards_are_dealt_again(strategy: str) -> None:
    """The information test: re-deal the opponent's unknown cards and the stock in another
    order consistent with the same view; the view is identical and so is every option
    value and the move (with every base heuristic and rollout policy)."""
    params = parse_strategy(strategy).params_array()
    shuffler = np.random.default_rng(3)
    checked = 0
    for hs, pile, deck, after, view, info in _positions("eaai", 6, strategy=strategy):
        me = int(hs[HS_TO_MOVE])
        opp = 1 - me
        known = int(hs[HS_TOOK + opp]) & ~int(hs[HS_PILE_MASK]) & ~int(hs[HS_HAND + me])
        hidden_opp = int(hs[HS_HAND + opp]) & ~known
        top = int(hs[HS_STOCK_TOP])
        pool = mask_cards(hidden_opp) + [int(c) for c in deck[top:]]
        shuffler.shuffle(pool)
        k = len(mask_cards(hidden_opp))
        hs2, deck2 = hs.copy(), deck.copy()
        hs2[HS_HAND + opp] = known | sum(1 << c for c in pool[:k])
        deck2[top:] = pool[k:]
        view2 = np.zeros(V_LEN, np.int64)
        fill_view(view2, hs2, pile, info, int(view[V_DECISION]))
        assert np.array_equal(view, view2)
        out = []
        for v in (view, view2):
            scratch = np.zeros(SCRATCH_LEN, np.int64)
            move = mc_decide(int(v[V_DECISION]), params, v, after.copy(),
                             np.zeros(MEM_LEN, np.int64), np.array([99], np.uint64), scratch)
            n = int(scratch[S_COUNT])
            out.append((move, scratch[S_CAND:S_CAND + n].tolist(),
                        scratch[S_SUM:S_SUM + n].tolist()))
        assert out[0] == out[1]
        checked += 1
    assert checked > 50


def test_unknocked_worlds_hold_no_hand_he_would_have_knocked_with() -> None:
    """With ``unknocked=100`` no sampled opponent hand has deadwood at or under the bar he
    would have knocked at on his last turn (the hand's limit, or ``knock_at`` below it);
    without it such hands are common, so the test can fail; before his first discard there
    is no bar."""
    checked = 0
    seen_low_without = 0
    for _hs, _pile, _deck, _after, view, _info in _positions("eaai", 4):
        if int(view[V_OPP_DISCARDED]) == 0:
            assert knock_bar(view, -1) == -1
            continue
        assert knock_bar(view, -1) == int(view[V_KNOCK_LIMIT])
        assert knock_bar(view, 6) == min(6, int(view[V_KNOCK_LIMIT]))
        opp = 1 - int(view[V_ROLE])
        scratch = np.zeros(SCRATCH_LEN, np.int64)
        for k in range(8):
            seed = np.uint64(stream_seed(np.uint64(17), k))
            sample_world(view, scratch, seed, inference(0, 40, 100, 8))
            assert min_deadwood_mask(int(scratch[S_BASE + HS_HAND + opp])) > 8
            sample_world(view, scratch, seed, inference(0, 40, 0, 8))
            seen_low_without += min_deadwood_mask(int(scratch[S_BASE + HS_HAND + opp])) <= 8
            checked += 1
    assert checked > 100
    assert seen_low_without > 10


@pytest.mark.parametrize(("knock_at", "two_handed", "three_handed"), [
    (11, "tuned@eaai", "tuned"),
    (5, "tuned@eaai:knock_box=5,knock_captain=5,late_at=5",
     "tuned:knock_box=5,knock_captain=5,late_at=5"),
])
def test_tuned_base_plays_the_shipped_set_for_the_table(knock_at: int, two_handed: str,
                                                         three_handed: str) -> None:
    """With ``base=1`` the first candidate is ``tuned``'s move with the eaai set at two
    players and the three-handed set at three (``knock_at`` other than 11 overriding its
    thresholds): the same set values the registry ships."""
    params = parse_strategy(f"mc:base=1,knock_at={knock_at}").params_array()
    expected = {2: parse_strategy(two_handed).params_array(),
                3: parse_strategy(three_handed).params_array()}
    seen = set()
    for _hs, _pile, _deck, after, view, _info in _positions("eaai", 3):
        for players in (2, 3):
            v = view.copy()
            v[V_PLAYERS] = players
            args = (np.zeros(MEM_LEN, np.int64), np.zeros(1, np.uint64))
            mine = base_move(NET_WEIGHTS, int(v[V_DECISION]), params, v, after.copy(), *args,
                             np.zeros(SCRATCH_LEN, np.int64))
            theirs = tuned_decide(int(v[V_DECISION]), expected[players], v, after.copy(), *args,
                                  np.zeros(SCRATCH_LEN, np.int64))
            assert mine == theirs
            seen.add(int(v[V_DECISION]))
    assert {DEC_DISCARD} <= seen


def test_the_registry_ships_the_set_values_mc_plays() -> None:
    assert np.array_equal(parse_strategy("tuned@eaai").params_array()[:N_TUNED_PARAMS],
                          EAAI_SET)
    assert np.array_equal(parse_strategy("tuned@oklahoma").params_array()[:N_TUNED_PARAMS],
                          OKLAHOMA_SET)
    for name in ("tuned", "tuned@three-handed", "tuned@three-handed-20"):
        assert np.array_equal(parse_strategy(name).params_array()[:N_TUNED_PARAMS],
                              THREE_HANDED_SET)


def _knocked_view(opp_cards: list[str], my_cards: list[str], pile: list[str],
                  decision: int) -> np.ndarray:
    """A two-player view where the opponent's whole hand is known (he took all ten cards
    from the pile), so every world is the same and the search is exact."""
    from sim.engine.view import (
        V_DEADWOOD,
        V_DRAWN,
        V_FORBIDDEN,
        V_GIN_BONUS,
        V_HAND,
        V_KNOCK_LIMIT,
        V_KNOCKED,
        V_OPP_DECLINED,
        V_OPP_TOOK,
        V_PILE_LEN,
        V_PILE_MASK,
        V_PLAYERS,
        V_ROLE,
        V_SCORE_OPP,
        V_SCORE_SELF,
        V_SELF_DECLINED,
        V_STOCK,
        V_TAKEN,
        V_TARGET,
        V_TOP,
        V_TURN,
        V_UNDERCUT_BONUS,
        V_UPCARD,
        V_WALL,
    )

    view = np.zeros(V_LEN, np.int64)
    mine = sum(1 << parse_card(c) for c in my_cards)
    theirs = sum(1 << parse_card(c) for c in opp_cards)
    piled = [parse_card(c) for c in pile]
    view[V_HAND] = mine
    view[V_ROLE] = 1
    view[V_DECISION] = decision
    view[V_STOCK] = 52 - len(my_cards) - 10 - len(pile)
    view[V_TURN] = 20
    view[V_PILE_LEN] = len(piled)
    view[V_TOP] = piled[-1]
    view[V_PILE_MASK] = sum(1 << c for c in piled)
    view[V_OPP_TOOK] = theirs
    view[V_OPP_DECLINED] = view[V_SELF_DECLINED] = -1
    view[V_DRAWN] = view[V_TAKEN] = view[V_FORBIDDEN] = -1
    view[V_KNOCK_LIMIT] = 10
    view[V_UPCARD] = piled[0]
    view[V_SCORE_SELF], view[V_SCORE_OPP] = 40, 70
    view[V_TARGET] = 100
    view[V_WALL] = view[V_STOCK]  # any discard without a knock ends the hand drawn
    view[V_GIN_BONUS] = view[V_UNDERCUT_BONUS] = 25
    view[V_KNOCKED] = 1 if decision == DEC_DISCARD else 0
    view[V_DEADWOOD] = 0
    view[V_PLAYERS] = 2
    assert FULL_MASK & mine & theirs == 0
    return view


OPP = ["2S", "3S", "4S", "9H", "9D", "9C", "KH", "QD", "5C", "6C"]
MINE = ["AH", "2H", "3H", "7S", "7D", "7C", "JS", "JC", "JD", "4D", "5D"]
PILE = ["KS", "8H"]


def _brute_force_value(view: np.ndarray, discard: int) -> float:
    """The knocker's game value after ``discard``, straight from the engine's showdown."""
    me = int(view[0]) & ~(1 << discard)
    opp = sum(1 << parse_card(c) for c in OPP)
    outcome, points, *_ = settle_kernel(me, opp, 10, 25, 25, new_showdown_work())
    from sim.engine.showdown import OUTCOME_UNDERCUT

    won = 0 if outcome == OUTCOME_UNDERCUT else 1
    return gv.game_value(view, won, points)


def test_option_values_agree_with_brute_force_after_a_knock() -> None:
    view = _knocked_view(OPP, MINE, PILE, DEC_DISCARD)
    options = option_values(view, "mc:samples=5,stop=0,trust=0")
    assert {o.move for o in options} == {"4D", "5D"}  # the discards within the limit
    assert all(o.worlds == 5 for o in options)
    for o in options:
        assert o.value == pytest.approx(_brute_force_value(view, o.code), abs=1e-4)
    best = max(options, key=lambda o: o.value)
    assert best.chosen


def test_knock_or_play_on_at_the_wall_matches_brute_force() -> None:
    """Playing on at the wall draws the hand (the scores stay); knocking settles it."""
    view = _knocked_view(OPP, MINE, PILE, DEC_KNOCK)
    options = {o.code: o for o in option_values(view, "mc:samples=4,stop=0,trust=0")}
    assert set(options) == {MOVE_KNOCK, MOVE_NO_KNOCK}
    assert options[MOVE_NO_KNOCK].value == pytest.approx(gv.game_value(view, -1, 0), abs=1e-4)
    # the knock is played with the discard leaving least deadwood (5D leaves the 4D)
    assert options[MOVE_KNOCK].value == pytest.approx(
        _brute_force_value(view, parse_card("5D")), abs=1e-4)


def test_explain_a_logged_move() -> None:
    hand = play_games(f"{CHEAP},simple", rules="eaai", games=1, seed=3, log=True).log[0]
    index = next(i for i, m in enumerate(hand["moves"]) if m["move"] == "discard")
    options = explain_move(hand, index, CHEAP)
    assert options[0].base and sum(o.chosen for o in options) == 1
    assert all(0.0 <= o.value <= 1.0 for o in options)
    assert (options.seat, options.strategy, options.mc_seat, options.warning) == (
        0, hand["seats"][0], True, None)
    assert options.played_move == hand["moves"][index]["card"]
    assert options.played is not None and options.played.move == options.played_move
    with pytest.raises(ValueError, match="not in this hand"):
        explain_move(hand, len(hand["moves"]))


def test_explain_says_whose_decision_and_flags_one_mc_did_not_make() -> None:
    """simple's discards are scored too, with a warning naming the seat and its strategy; the
    played option is the logged card when mc listed it, else None and the warning says so."""
    hand = play_games(f"{CHEAP},simple", rules="eaai", games=1, seed=3, log=True).log[0]
    theirs = [i for i, m in enumerate(hand["moves"]) if m["seat"] == 1 and m["move"] == "discard"]
    assert theirs
    for index in theirs:
        card = hand["moves"][index]["card"]
        options = explain_move(hand, index, CHEAP)
        assert (options.seat, options.strategy, options.mc_seat) == (1, "simple", False)
        assert options.played_move == card
        listed = [o for o in options if o.move == card]
        assert options.played == (listed[0] if listed else None)
        unlisted = "" if listed else f"; the move played, {card}, is not among mc's options"
        assert options.warning == (f"seat 1 plays simple, not mc: these are mc's values for "
                                   f"its decision, not why it played {card}{unlisted}")
    first = next(i for i, m in enumerate(hand["moves"]) if m["seat"] == 0 and m["move"] != "discard"
                 and not (i >= 2 and hand["moves"][i - 1]["move"] == "pass"
                          and hand["moves"][i - 2]["move"] == "pass"))
    options = explain_move(hand, first, CHEAP)
    assert options.played_move == hand["moves"][first]["move"]
    assert options.played is not None and options.played.move == options.played_move
    with pytest.raises(ValueError, match="from mc's search"):
        option_values(np.zeros(V_LEN, np.int64), "simple")


# ------------------------------------------------------------------------------ game value


def _dist(p_dealer: float, p_nondealer: float, points: int, draw: float = 0.0) -> np.ndarray:
    d = np.zeros((2, gv.SCALE + 1))
    d[0, points] = p_dealer
    d[1, points] = p_nondealer
    d[0, 0] = draw
    return d


def test_two_player_table_exact_values() -> None:
    w = gv.W2
    assert np.allclose(w[1:, 1:, 0] + w[1:, 1:, 1], 1.0, atol=1e-5)  # someone wins
    d = gv.hand_outcomes_cached(2)
    first = d[0, 1:].sum() / (1 - d[0, 0])
    assert w[1, 1, 0] == pytest.approx(first, abs=1e-5)  # any win ends it: the next scorer
    # every hand worth the whole target: the first scored hand decides, whatever the scores
    t = gv.two_player_table(_dist(0.3, 0.5, gv.SCALE, draw=0.2))
    assert np.allclose(t[1:, 1:, 0], 0.3 / 0.8)
    # a symmetric hand distribution: symmetric positions are even
    t = gv.two_player_table(_dist(0.45, 0.45, 10, draw=0.1))
    for x in (1, 10, 37, 100):
        assert t[x, x, 0] == pytest.approx(0.5, abs=1e-9)
    # one 10-point hand from the target against an opponent who needs two: he must win
    # twice in a row before I win once; the deal passes after every scored hand
    t = gv.two_player_table(_dist(0.5, 0.5, 10))
    assert t[10, 20, 0] == pytest.approx(1 - 0.5 * 0.5, abs=1e-9)


def test_three_player_table_exact_values() -> None:
    t = gv.three_player_table(_dist(0.4, 0.4, gv.SCALE, draw=0.2))
    assert np.allclose(t[1:, 1:, 1:].sum(axis=3), 1.0)
    assert np.allclose(t[1:, 1:, 1:, 2], 0.0)  # the sitter never plays the deciding hand
    assert t[50, 70, 90, 0] == pytest.approx(0.5)
    w3 = gv.W3
    assert np.allclose(w3[1:, 1:, 1:].sum(axis=3), 1.0, atol=1e-4)
    # box needs one 10-point hand, the others a whole game: the box wins unless the captain
    # wins ten hands in a row... or the new box does: the box's chance exceeds 1/2
    assert w3[1, 25, 25, 0] > 0.5


def test_game_value_reads_scores_and_roles() -> None:
    view = _knocked_view(OPP, MINE, PILE, DEC_KNOCK)  # me 40, him 70, target 100, captain
    assert gv.game_value(view, 1, 60) == 1.0
    assert gv.game_value(view, 0, 30) == 0.0
    # a draw: same deal again, I am the non-dealer needing 60 against his 30
    assert gv.game_value(view, -1, 0) == pytest.approx(float(gv.W2[30, 60, 1]))
    # I score 20: the deal passes, I deal needing 40 against his 30
    assert gv.game_value(view, 1, 20) == pytest.approx(float(gv.W2[40, 30, 0]))


def _paired_sums(diffs: list[list[float]]) -> np.ndarray:
    """A search scratch whose candidate ``i + 1`` has the per-world paired differences
    ``diffs[i]`` against the base move (candidate 0), on the game-value scale."""
    from strategies.mc import S_DIFF, VALUE_ONE
    from strategies.mc_worlds import MAX_CANDIDATES

    scratch = np.zeros(SCRATCH_LEN, np.int64)
    squares = S_DIFF + MAX_CANDIDATES * MAX_CANDIDATES
    for i, worlds in enumerate(diffs, start=1):
        units = [round(d * VALUE_ONE) for d in worlds]
        scratch[S_DIFF + i * MAX_CANDIDATES] = sum(units)
        scratch[squares + i * MAX_CANDIDATES] = sum(u * u for u in units)
    return scratch


def test_base_holds_when_no_other_candidate_is_near_the_trust_bar() -> None:
    """``futile``'s test: every challenger more than ``z`` standard errors short of beating
    the base move, or level with it on every world."""
    from strategies.mc import _base_holds

    behind = [0.1, -0.3] * 8  # 16 worlds, mean -0.1, standard error 0.05
    ahead = [0.3, -0.1] * 8  # mean +0.1, standard error 0.05: 2 standard errors ahead
    level = [0.0] * 16
    assert _base_holds(_paired_sums([behind]), 2, 16, 0.0)
    assert _base_holds(_paired_sums([behind, level]), 3, 16, 0.0)
    assert not _base_holds(_paired_sums([behind, ahead]), 3, 16, 0.0)
    assert _base_holds(_paired_sums([ahead]), 2, 16, 2.5)  # ahead, but short of 2.5 SE
    assert not _base_holds(_paired_sums([ahead]), 2, 16, 1.5)
    assert not _base_holds(_paired_sums([[0.05] * 16]), 2, 16, 3.0)  # ahead on every world
    assert _base_holds(_paired_sums([[-0.05] * 16]), 2, 16, 0.0)  # behind on every world


def test_futile_stops_only_to_play_the_base_move() -> None:
    """With ``futile`` on and the other stop off, a search that used fewer worlds than its
    budget plays its base move; the same search without ``futile`` uses every world."""
    full, cut = "mc:samples=64,stop=0,futile=0", "mc:samples=64,stop=0,futile=15"
    stopped = 0
    for *_, after, view, _info in _positions("eaai", 4):
        options = option_values(view, cut, seed=5, after=after.copy())
        if len(options) < 2:
            continue
        assert all(o.worlds == 64 for o in option_values(view, full, seed=5,
                                                         after=after.copy()))
        worlds = options[0].worlds
        assert 16 <= worlds <= 64 and worlds % 8 == 0
        if worlds < 64:
            stopped += 1
            assert options[0].chosen
    assert stopped > 0


@pytest.mark.parametrize(("preset", "lineup", "base"), [
    ("eaai", ["{mc}", "simple"], "tuned@eaai"),
    ("three-handed", ["discard-tracking", "{mc}", "simple"], "tuned"),
])
def test_searching_nothing_plays_the_base_heuristic(preset: str, lineup: list[str],
                                                    base: str) -> None:
    """``searched = 0``: every decision plays the base move, so the games are exactly those
    of the base heuristic (``tuned`` with the table's set) in its seat."""
    rules = Rules.preset(preset)
    games = [np.concatenate([r for r, _ in iter_games(
        rules, [s.format(mc=player) for s in lineup], 12, Seeds.from_seed(4), rotate=True)])
        for player in ("mc:searched=0", base)]
    assert np.array_equal(games[0], games[1])


_KIND_BIT = {DEC_OFFER: 1, DEC_DRAW: 1, DEC_KNOCK: 2, DEC_DISCARD: 4}


@pytest.mark.parametrize("searched", [1, 2, 4, 5])
def test_unsearched_kinds_of_decision_play_the_base_move_unsearched(searched: int) -> None:
    """A kind of decision left out of ``searched`` lists only the base move and samples no
    world; the kinds searched get exactly the default's candidates and values."""
    spec = f"mc:samples=24,searched={searched}"
    seen = set()
    for *_, after, view, _info in _positions("eaai", 8):
        kind = int(view[V_DECISION])
        default = option_values(view, "mc:samples=24", seed=2, after=after.copy())
        options = option_values(view, spec, seed=2, after=after.copy())
        if _KIND_BIT[kind] & searched:
            assert options == default
        else:
            assert [(o.code, o.worlds, o.base) for o in options] == [
                (default[0].code, 0, True)]
        seen.add((kind, len(default) > 1))
    assert {(DEC_DRAW, True), (DEC_KNOCK, True), (DEC_DISCARD, True)} <= seen


def test_rollout_for_picks_the_decisions_whose_rollouts_play_tuned() -> None:
    """``rollout_for = 2`` (knock decisions only): knock decisions get exactly
    ``rollout = 1``'s values and every other decision exactly the fast rollouts'; ``rollout_for
    = 0`` is the fast rollouts everywhere. The two policies disagree somewhere, so the test can
    fail."""
    differ = 0
    for *_, after, view, _info in _positions("eaai", 8):
        fast, tuned, knock_only, none = (
            option_values(view, f"mc:samples=12,{extra}", seed=3, after=after.copy())
            for extra in ("rollout=0", "rollout=1", "rollout=1,rollout_for=2",
                          "rollout=1,rollout_for=0"))
        assert knock_only == (tuned if view[V_DECISION] == DEC_KNOCK else fast)
        assert none == fast
        differ += view[V_DECISION] == DEC_KNOCK and tuned != fast
    assert differ > 0
