"""``tuned``: exact decisions on scripted views, its named parameter sets and their notation."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.engine.cards import FULL_MASK, parse_cards
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    new_after,
)
from sim.engine.melds import min_deadwood
from sim.engine.rules import Rules
from sim.engine.view import (
    V_DEADWOOD,
    V_DECISION,
    V_DRAWN,
    V_FORBIDDEN,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LEN,
    V_OPP_DECLINED,
    V_PLAYERS,
    V_ROLE,
    V_SELF_DECLINED,
    V_STOCK,
    V_TAKEN,
    V_TARGET,
    V_TOP,
    V_TURN,
    V_WALL,
)
from sim.env.env_table import opponent_specs
from sim.league.spec import load_league
from sim.play.driver import play_games
from sim.runs.experiment import ArmSpec
from sim.runs.runner import run_experiment
from sim.tune.spec import load_tune
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.registry import BUILTINS, check_table, describe, parse_strategy
from strategies.tuned import (
    EAAI_SET,
    N_TUNED_PARAMS,
    PLAYERS_SETS,
    SET_VALUES,
    THREE_HANDED_SET,
    draw_outcomes,
    load_table_set,
    reach_outs,
    tuned_decide,
)


def _mask(cards: str) -> int:
    m = 0
    for c in parse_cards(cards.split()):
        m |= 1 << c
    return m


def _decide(spec: str, decision: int, hand: str, top: str | None = None, *, turn: int = 10,
            stock: int = 20, taken: str | None = None, role: int = 0) -> int:
    """Ask ``tuned`` (as named by ``spec``) one decision on a scripted view."""
    view = np.zeros(V_LEN, np.int64)
    view[V_HAND] = _mask(hand)
    view[V_DECISION] = decision
    view[V_ROLE] = role
    view[V_TOP] = parse_cards([top])[0] if top else -1
    view[V_TURN] = turn
    view[V_STOCK] = stock
    view[V_WALL] = 2
    view[V_KNOCK_LIMIT] = 10
    view[V_TARGET] = 100
    view[V_OPP_DECLINED] = view[V_SELF_DECLINED] = -1
    card = parse_cards([taken])[0] if taken else -1
    view[V_DRAWN] = view[V_TAKEN] = view[V_FORBIDDEN] = card
    ten = parse_cards(hand.split())
    if decision in (DEC_OFFER, DEC_DRAW):
        view[V_DEADWOOD] = min_deadwood(ten)
    args = (np.zeros(MEM_LEN, np.int64), np.zeros(1, np.uint64), np.zeros(SCRATCH_LEN, np.int64))
    return int(tuned_decide(decision, parse_strategy(spec).params_array(), view, new_after(),
                            *args))


TEN = "5H 6H 2S 2D 9C JC KD QS 8D 4C"  # a pair of twos, two hearts in a row, high junk


@pytest.mark.parametrize("spec", ["tuned:take_drop=0", "tuned@eaai"])
def test_takes_the_upcard_into_a_meld_only(spec: str) -> None:
    assert _decide(spec, DEC_OFFER, TEN, "7H") == MOVE_DRAW_DISCARD  # 5H 6H 7H
    assert _decide(spec, DEC_DRAW, TEN, "2C") == MOVE_DRAW_DISCARD  # three twos
    assert _decide(spec, DEC_OFFER, TEN, "AC") == MOVE_PASS  # lowers deadwood, no meld
    assert _decide(spec, DEC_DRAW, TEN, "AC") == MOVE_DRAW_STOCK


def test_take_drop_also_takes_a_card_that_lowers_deadwood_enough() -> None:
    # AC replacing KD lowers deadwood by 9 (the defaults take at 8)
    assert _decide("tuned", DEC_OFFER, TEN, "AC") == MOVE_DRAW_DISCARD
    assert _decide("tuned:take_drop=9", DEC_DRAW, TEN, "AC") == MOVE_DRAW_DISCARD
    assert _decide("tuned:take_drop=10", DEC_DRAW, TEN, "AC") == MOVE_DRAW_STOCK


ELEVEN = "AS 2S 3S 4H 4D 4C 7C 8C 9C 2H KD"  # best discard KD leaves deadwood 2


def test_knocks_or_camps_per_policy() -> None:
    assert _decide("tuned", DEC_KNOCK, ELEVEN) == MOVE_KNOCK
    assert _decide("tuned@eaai", DEC_KNOCK, ELEVEN) == MOVE_NO_KNOCK  # camps for gin
    assert _decide("tuned@eaai", DEC_KNOCK, ELEVEN, stock=2) == MOVE_KNOCK  # at the wall
    early = "tuned@eaai:early=6,knock_box=2,knock_captain=1"
    assert _decide(early, DEC_KNOCK, ELEVEN, turn=4) == MOVE_KNOCK
    assert _decide(early, DEC_KNOCK, ELEVEN, turn=4, role=1) == MOVE_NO_KNOCK  # captain's 1
    assert _decide(early, DEC_KNOCK, ELEVEN, turn=6) == MOVE_NO_KNOCK  # early turns over
    gin = "AS 2S 3S 4H 4D 4C 7C 8C 9C TC KD"
    assert _decide("tuned@eaai", DEC_KNOCK, gin) == MOVE_KNOCK


def test_never_discards_the_card_just_taken() -> None:
    # KH was taken into KH KS KC; left alone, the meld would make KD the worst card
    hand = "KH KS KC QD JD 9D 2C 3C 5S 6S 8H"
    for spec in ("tuned", "tuned@eaai", "tuned:danger=40,look=40,slack=60"):
        pick = _decide(spec, DEC_DISCARD, hand, taken="KH")
        assert pick != parse_cards(["KH"])[0]
        assert pick in parse_cards(hand.split())


@pytest.mark.parametrize("text, message", [
    ("tuned:look=41", "out of range"),
    ("tuned:early=100", "out of range"),
    ("tuned@nope", "unknown parameter set 'nope' for tuned"),
    ("simple@eaai", "unknown parameter set 'eaai' for simple: its sets are none"),
    ("tuned@eaai:late_at=11", "out of range"),
])
def test_parameter_ranges_and_sets_are_validated(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_strategy(text)


def test_named_sets_and_their_canonical_text() -> None:
    info = BUILTINS["tuned"]
    eaai = parse_strategy("TUNED @ eaai")
    assert eaai.params == info.param_set("eaai") and eaai.canonical == "tuned@eaai"
    spelled = ",".join(f"{k}={v}" for k, v in info.param_set("eaai").items())
    assert parse_strategy(f"tuned:{spelled}").canonical == "tuned@eaai"
    assert parse_strategy("tuned@three-handed").canonical == "tuned"  # the defaults
    assert parse_strategy("tuned@eaai:look=5").canonical.startswith(
        "tuned:take_drop=23,slack=17,look=5,")
    assert list(parse_strategy("tuned@eaai").params_array()[:len(info.params)]) == list(
        info.param_set("eaai").values())


def test_a_set_with_a_bad_value_is_refused() -> None:
    bad = dataclasses.replace(BUILTINS["tuned"], sets=(("x", {"look": 99}),))
    with pytest.raises(ValueError, match="set 'x': look=99"):
        check_table([bad])
    lost = dataclasses.replace(BUILTINS["tuned"], rules_set=lambda rules: "gone")
    with pytest.raises(ValueError, match="chooses the set 'gone' for three-handed rules, which "
                                         "it does not declare"):
        check_table([lost])


def test_reach_outs_count_the_meld_draws_that_let_the_kept_cards_knock() -> None:
    kept = _mask("AS 2S 3S 4H 4D 4C 7C 8C 9C 5H")  # deadwood 5 (the 5H)
    live = FULL_MASK & ~kept
    # gin: 4S (run and set), 6C and TC (the club run) let the 5H go
    assert reach_outs(kept, live, 0) == 3
    # knock at 4: those three, and 3H and 6H (a heart run leaving 4D or 4C, 4 points); a low
    # card joining no meld (AH for the 5H) would also do, but only meld draws are counted
    assert reach_outs(kept, live, 4) == 5
    assert reach_outs(kept, live, 5) == 5
    assert reach_outs(kept, live & ~_mask("4S 6C"), 0) == 1  # dead cards are no outs


def test_draw_outcomes_count_reach_outs_and_the_deadwood_the_meld_draws_save() -> None:
    kept = _mask("AS 2S 3S 4H 4D 4C 7C 8C 9C 5H")  # deadwood 5 (the 5H)
    live = FULL_MASK & ~kept
    # the meld draws: 4S, 6C, TC (gin: save 5 each), 3H (keep the 4s, throw the 5H: 3 left,
    # saves 2) and 6H (the heart run, a 4 thrown: 4 left, saves 1): 18 in all
    assert draw_outcomes(kept, live, 0, 5) == (3, 18)
    assert draw_outcomes(kept, live, 4, 5) == (5, 18)
    assert draw_outcomes(kept, live & ~_mask("4S 6C"), 0, 5) == (1, 8)  # dead cards save nothing
    assert draw_outcomes(kept, live, 0, 0) == (3, 0)  # nothing saved below zero deadwood


def test_gain_keeps_the_cards_whose_draws_would_save_more() -> None:
    hand = "JD 4C AS 7H 7C 4H TS 6C QD 8H 4D"
    plain = ("tuned:take_drop=0,slack=60,look=0,look_fade=0,danger=0,safe=0,pair=0,early=0,"
             "late_at=0,stock_low=0,reach=0,gain=")
    live = FULL_MASK & ~_mask(hand)
    full = _mask(hand)
    # throwing JD, TS or QD leaves 49 each; the meld draws would then save 154, 210 and 154
    saved = {c: draw_outcomes(full & ~_mask(c), live, -1, 49)[1] for c in ("JD", "TS", "QD")}
    assert saved == {"JD": 154, "TS": 210, "QD": 154}
    assert _decide(plain + "0", DEC_DISCARD, hand) == parse_cards(["QD"])[0]  # tie: high code
    assert _decide(plain + "4", DEC_DISCARD, hand) == parse_cards(["TS"])[0]


# gin only, with the small discard weights of the hand-set eaai values before tuning
CAMPER = ("tuned:take_drop=0,slack=1,look=3,look_fade=0,danger=3,safe=0,pair=0,early=0,"
          "late_at=0,stock_low=0,reach=")


def test_reach_keeps_the_card_with_a_gin_draw() -> None:
    hand = "KD KH KC 2S 2H 2D 3S 3C 4C 5D 6C"
    # throwing 6C leaves 15 (no gin draw); throwing 5D leaves 16 but 5C then makes 3C-6C, gin
    assert _decide(CAMPER + "0", DEC_DISCARD, hand) == parse_cards(["6C"])[0]
    assert _decide(CAMPER + "40", DEC_DISCARD, hand) == parse_cards(["5D"])[0]
    live = FULL_MASK & ~_mask(hand)
    assert reach_outs(_mask("KD KH KC 2S 2H 2D 3S 3C 4C 6C"), live, 0) == 1
    assert reach_outs(_mask("KD KH KC 2S 2H 2D 3S 3C 4C 5D"), live, 0) == 0


# ----------------------------------------------------------------- the set for the rules


@pytest.mark.parametrize(("rules", "text"), [
    (Rules.preset("three-handed"), "tuned"),
    (Rules.preset("three-handed-20"), "tuned"),  # its set holds the defaults' values
    (Rules.preset("three-handed-hollywood"), "tuned"),  # by players: three-handed
    (Rules.preset("eaai"), "tuned@eaai"),
    (Rules.preset("classic"), "tuned@eaai"),  # by players: eaai
    (Rules.preset("hollywood"), "tuned@eaai"),
    (Rules.preset("oklahoma"), "tuned@oklahoma"),
    (Rules.preset("oklahoma").replace(oklahoma=False), "tuned@oklahoma"),  # still named so
    (Rules.preset("oklahoma").replace(players=2), "tuned@eaai"),  # not its player count
    (Rules(players=2), "tuned@eaai"),  # named three-handed, seated two-handed
    (Rules(name="mine"), "tuned"),
])
def test_bare_tuned_plays_the_set_for_the_rules(rules: Rules, text: str) -> None:
    spec = parse_strategy("tuned").for_rules(rules)
    assert spec.text == spec.canonical == text
    assert spec.params == parse_strategy(text).params


def test_parameters_given_override_the_rules_set_and_a_named_set_is_kept() -> None:
    eaai = Rules.preset("eaai")
    spec = parse_strategy("Tuned:slack=02").for_rules(eaai)
    assert spec.text == "tuned@eaai:slack=2"
    assert spec.params == {**BUILTINS["tuned"].param_set("eaai"), "slack": 2}
    assert spec.canonical == parse_strategy("tuned@eaai:slack=2").canonical
    assert parse_strategy("tuned:slack=2").for_rules(Rules()).text == "tuned:slack=2"
    pinned = parse_strategy("tuned@three-handed")
    assert pinned.for_rules(eaai) is pinned and pinned.canonical == "tuned"
    again = spec.for_rules(Rules())  # chosen by the rules, so chosen again by other rules
    assert again.params == parse_strategy("tuned:slack=2").params
    assert again.text == "tuned:slack=2"
    for other in ("simple", "greedy-knock:knock_at=3", "mc", "discard-tracking"):
        assert parse_strategy(other).for_rules(eaai) == parse_strategy(other)


def test_every_entry_point_plays_the_rules_set() -> None:
    games = play_games("tuned,simple", "eaai", games=30, seed=3)
    assert games.strategies == ["tuned@eaai", "simple"]
    pd.testing.assert_frame_equal(games.games,
                                  play_games("tuned@eaai,simple", "eaai", games=30, seed=3).games)
    logged = play_games("simple,tuned", "eaai", games=1, seed=3, log=True)
    assert {tuple(r["seats"]) for r in logged.log} == {("simple", "tuned@eaai")}
    arm = ArmSpec(name="a", rules="eaai", strategies=("tuned", "tuned:slack=2"))
    assert arm.strategies == ("tuned@eaai", "tuned@eaai:slack=2")
    assert ArmSpec(name="a", strategies=("tuned",) * 3).strategies == ("tuned",) * 3
    league = load_league({"name": "lg", "seed": 1, "games": 10, "rules": "eaai",
                          "strategies": ["simple", "tuned"], "anchor": "tuned"})
    assert league.strategies == ("simple", "tuned@eaai") and league.anchor == "tuned@eaai"
    tune = load_tune({"name": "t", "seed": 1, "strategy": "tuned", "params": ["slack"],
                      "field": ["simple"], "rules": "eaai", "generations": 1,
                      "population": 2, "games_per_candidate": 10, "holdout_games": 10})
    assert tune.baseline == "tuned@eaai"
    assert tune.start() == (BUILTINS["tuned"].param_set("eaai")["slack"],)
    opponents = opponent_specs(Rules.preset("eaai"), 0, "tuned")
    assert [s.text if s else None for s in opponents] == [None, "tuned@eaai"]


def test_mc_plays_the_set_for_the_players_from_the_same_table() -> None:
    """``mc``'s kernel sees the view, not the rules: the by-players sets, read from the one
    table of sets (so oklahoma's three-handed mc plays the three-handed set)."""
    for players, values in ((2, EAAI_SET), (3, THREE_HANDED_SET)):
        view = np.zeros(V_LEN, np.int64)
        view[V_PLAYERS] = players
        out = np.zeros(N_TUNED_PARAMS, np.int64)
        load_table_set(view, out)
        assert out.tolist() == values.tolist() == SET_VALUES[PLAYERS_SETS[players]].tolist()
    assert PLAYERS_SETS == {2: "eaai", 3: "three-handed"}


def test_ginbox_strategies_lists_the_set_per_preset() -> None:
    (entry,) = [e for e in describe() if e["name"] == "tuned"]
    assert entry["rules_sets"] == {
        "three-handed": "three-handed", "three-handed-20": "three-handed-20",
        "classic": "eaai", "eaai": "eaai", "oklahoma": "oklahoma", "hollywood": "eaai",
        "three-handed-hollywood": "three-handed"}
    assert all("rules_sets" not in e for e in describe() if e["name"] != "tuned")


def test_a_results_table_of_bare_tuned_under_eaai_is_refused_not_mixed(tmp_path: Path) -> None:
    """A run written while bare ``tuned`` played the three-handed set under eaai stored the
    text ``tuned``; resuming it now, where ``tuned`` there is ``tuned@eaai``, must refuse."""
    spec = {"name": "stale", "seed": 3, "games": 8, "chunk_size": 2,
            "arms": [{"name": "a", "rules": "eaai", "strategies": ["tuned", "simple"]}]}
    out = tmp_path / "run"
    old = {**spec, "arms": [{**spec["arms"][0], "strategies": ["tuned@three-handed",
                                                                 "simple"]}]}
    run_experiment(old, out=out, games=4, quiet=True, jobs=1)  # the games bare tuned played
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["spec"]["arms"][0]["strategies"] = ["tuned", "simple"]  # as it then wrote them
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"cannot resume .*different experiment \(arms\[0\]"
                                         r"\.strategies: \['tuned', 'simple'\] there, "
                                         r"\['tuned@eaai', 'simple'\] now\)"):
        run_experiment(spec, out=out, games=4, resume=True, quiet=True, jobs=1)
