"""The EAAI framework's showdown (``Rules.showdown == "eaai"``): declared melds, greedy layoffs.

Scripted hands where the framework's greedy layoffs and ginbox's exact showdown differ, with the
framework's result worked out by hand from its GinRummyGame (the knocker's deadwood is what his
declared melds leave; the defender's cards outside his declared melds are tried in the
framework's card order, clubs, hearts, spades, diamonds, each ace to king, and each goes onto
the first declared meld it extends). Then the engine: hands played under the option settle as
``settle`` says, and a hand is settled again on declared melds.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.decks import shuffled_deck

from sim.engine.cards import parse_cards
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    END_GIN,
    END_KNOCK,
    END_NAMES,
    HS_DEFENDER_DEADWOOD,
    HS_DEFENDER_HAND,
    HS_DEFENDER_MELDS,
    HS_END,
    HS_GIN_BONUS,
    HS_KNOCK_LIMIT,
    HS_KNOCKER,
    HS_KNOCKER_DEADWOOD,
    HS_KNOCKER_HAND,
    HS_KNOCKER_MELDS,
    HS_LAYOFFS,
    HS_MULTIPLIER,
    HS_N_DEFENDER_MELDS,
    HS_N_KNOCKER_MELDS,
    HS_POINTS,
    HS_TO_MOVE,
    HS_UNDERCUT_BONUS,
    HS_WINNER,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_PASS,
    advance,
    apply_move,
    deal,
    held,
    new_hand_buffers,
)
from sim.engine.melds import hand_mask, min_deadwood_mask
from sim.engine.rules import SHOWDOWNS, Rules
from sim.engine.showdown import (
    EAAI_CARD_ORDER,
    OUTCOME_DEFENDER_ILLEGAL,
    OUTCOME_ILLEGAL,
    OUTCOME_KNOCK,
    IllegalMelds,
    bot_declared_melds,
    describe_layout,
    greedy_layoffs,
    settle,
    settle_declared,
)

EAAI = Rules.preset("eaai")
FRAMEWORK = EAAI.replace(showdown="eaai")

# The knocker's 8 fits both his set of eights and his heart run. Exact: the defender lays 8H
# on the run and 9H after it. The framework: 8H goes onto the meld declared first.
RUN_OR_SET = ("5H 6H 7H 8C 8D 8S AC 2D 3S 4C", "8H 9H KS QD JC TS 9C 7D 6S 5C")


def test_showdown_option_validated_and_written_only_when_not_exact() -> None:
    assert SHOWDOWNS == ("exact", "eaai")
    assert Rules().showdown == "exact" and "showdown" not in EAAI.to_dict()
    assert FRAMEWORK.to_dict()["showdown"] == "eaai"
    assert Rules.from_dict({"preset": "eaai", "showdown": "eaai"}) == FRAMEWORK
    with pytest.raises(ValueError) as exc:
        Rules.resolve("eaai", {"showdown": "greedy"}, where="--set ")
    assert str(exc.value) == ("--set showdown='greedy' is not valid: expected one of exact, "
                              "eaai")


def test_framework_card_order() -> None:
    """Card id = suit * 13 + rank with suits C, H, S, D (the framework's Card)."""
    order = [int(c) for c in EAAI_CARD_ORDER]
    assert order[:2] == parse_cards("AC 2C") and order[13] == parse_cards("AH")[0]
    assert order[26] == parse_cards("AS")[0] and order[-1] == parse_cards("KD")[0]
    assert sorted(order) == sorted(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH 2H 3H "
                                               "4H 5H 6H 7H 8H 9H TH JH QH KH AD 2D 3D 4D 5D 6D "
                                               "7D 8D 9D TD JD QD KD AC 2C 3C 4C 5C 6C 7C 8C 9C "
                                               "TC JC QC KC"))


def test_a_card_that_fits_two_melds_goes_to_the_first_declared() -> None:
    knocker, defender = RUN_OR_SET
    exact = settle(knocker, defender, EAAI)
    assert (exact.layoffs, exact.defender_deadwood, exact.points) == (["8H", "9H"], 67, 57)
    # ginbox's bots declare in the order of each meld's lowest card: 8S (a spade) comes first,
    # so 8H completes the set of eights and 9H has nowhere to go: 84 - 8 = 76, 76 - 10 = 66
    bots = settle(knocker, defender, FRAMEWORK)
    assert (bots.layoffs, bots.defender_deadwood, bots.points) == (["8H"], 76, 66)
    assert bot_declared_melds(knocker) == [["8S", "8D", "8C"], ["5H", "6H", "7H"]]
    assert bot_declared_melds("3H 4H 5H 6H 7H 8H KS KC KD 2C") == [
        ["KS", "KD", "KC"], ["3H", "4H", "5H", "6H", "7H", "8H"]]
    set_first = settle_declared(knocker, defender, ["8C 8D 8S", "5H 6H 7H"], [], EAAI)
    assert (set_first.layoffs, set_first.defender_deadwood, set_first.points) == (["8H"], 76, 66)
    run_first = settle_declared(knocker, defender, ["5H 6H 7H", "8C 8D 8S"], [], EAAI)
    assert (run_first.layoffs, run_first.defender_deadwood, run_first.points) == (
        ["8H", "9H"], 67, 57)


def test_the_defender_keeps_his_declared_melds() -> None:
    """Exact: the defender breaks his run 6D 7D 8D to lay 7D 8D off and undercuts (5 against
    7). The framework: he declares his least-deadwood melds (QQQ, 6D 7D 8D), nothing of the
    rest (AS 4H 6S 6C, 17) fits, and the knocker wins 17 - 7 = 10."""
    knocker, defender = "9D TD JD 3S 3H 3C KS KH KC 7C", "6D 7D 8D 6S 6C QS QH QC 4H AS"
    exact = settle(knocker, defender, EAAI)
    assert (exact.winner, exact.defender_deadwood, exact.points) == ("defender", 5, 25 + 2)
    framework = settle(knocker, defender, FRAMEWORK)
    assert framework.defender_melds == [["6D", "7D", "8D"], ["QS", "QH", "QC"]]
    assert (framework.winner, framework.layoffs, framework.defender_deadwood,
            framework.points) == ("knocker", [], 17, 10)


def test_the_knocker_declares_least_deadwood() -> None:
    """Exact: the knocker keeps 4C out of his run (10 deadwood) so 5C 6C cannot be laid off:
    28 - 10 = 18. Declaring least deadwood (6) he lets both off: 28 - 11 = 17 against 6."""
    knocker, defender = "AC 2C 3C 4C KS KH KD 2H 3D AS", "5C 6C QS QH QD JS JH JD 9S 8H"
    assert settle(knocker, defender, EAAI).points == 18
    framework = settle(knocker, defender, FRAMEWORK)
    assert (framework.knocker_deadwood, framework.layoffs, framework.defender_deadwood,
            framework.points) == (6, ["5C", "6C"], 17, 11)
    # declaring as the exact showdown lays out gives its result
    laid_short = settle_declared(knocker, defender, ["AC 2C 3C", "KS KH KD"],
                                 ["QS QH QD", "JS JH JD"], EAAI)
    assert (laid_short.knocker_deadwood, laid_short.layoffs, laid_short.points) == (10, [], 18)


def test_layoffs_chain_and_a_long_declared_run() -> None:
    """A run of six declared as one meld takes 2H below and 9H, TH above (TH only after 9H);
    the defender declared nothing: 71 - 2 - 9 - 10 = 50 against 2."""
    knocker = "3H 4H 5H 6H 7H 8H KS KC KD 2C"
    defender = "2H 9H TH QS QD 4S 5D 6C 7C 8S"
    s = settle_declared(knocker, defender, ["3H 4H 5H 6H 7H 8H", "KS KC KD"], [], EAAI)
    assert s.knocker_melds == [["3H", "4H", "5H", "6H", "7H", "8H"], ["KS", "KD", "KC"]]
    assert (s.layoffs, s.knocker_deadwood, s.defender_deadwood, s.points) == (
        ["2H", "9H", "TH"], 2, 50, 48)


def test_gin_takes_no_layoffs() -> None:
    knocker, defender = "4H 5H 6H 7H 9S 9D 9C JS JH JD", "8H 3H 2S 2D KC QC 5S 5C AD TD"
    s = settle(knocker, defender, FRAMEWORK)
    assert (s.gin, s.layoffs, s.defender_deadwood, s.points) == (True, [], 56, 56 + 25)


def test_the_defender_may_declare_less_than_his_best() -> None:
    """Declaring 6D 7D 8D as loose cards lets them all go onto 9D TD JD, one by one (8D first:
    7D fits only after it, 6D after 7D): AS 4H 6S 6C = 17 against 7."""
    knocker, defender = "9D TD JD 3S 3H 3C KS KH KC 7C", "6D 7D 8D 6S 6C QS QH QC 4H AS"
    s = settle_declared(knocker, defender, ["9D TD JD", "3S 3H 3C", "KS KH KC"],
                        ["QS QH QC"], EAAI)
    assert (s.layoffs, s.defender_deadwood, s.points) == (["8D", "7D", "6D"], 17, 10)


@pytest.mark.parametrize("k_melds, d_melds, side, message", [
    (["5H 6H 8H"], [], "knocker", "5H 6H 8H is not a meld"),
    (["5H 6H 7H", "8C 8D 8H"], [], "knocker", "8H 8D 8C holds cards not in the hand"),
    (["5H 6H 7H", "7H 8C 8D 8S"], [], "knocker", "8S 7H 8D 8C is not a meld"),
    (["5H 6H 7H", "8C 8D 8S", "8S 8D 8C"], [], "knocker",
     "8S 8D 8C shares cards with an earlier meld"),
    (["5H 6H 7H"], [], "knocker",
     "they leave 3S 8S 2D 8D AC 4C 8C (34), above the knock limit 10"),
    (["5H 6H 7H", "8C 8D 8S"], ["8H 9H TH"], "defender", "8H 9H TH holds cards not in the hand"),
    (["5H 6H 7H", "8C 8D 8S"], "8H 9H", "defender", "expected a list of melds, got the text "
                                                    "'8H 9H'"),
])
def test_illegal_declarations_name_the_side_that_forfeits(k_melds, d_melds, side: str,
                                                          message: str) -> None:
    with pytest.raises(IllegalMelds) as exc:
        settle_declared(*RUN_OR_SET, k_melds, d_melds, EAAI)
    assert exc.value.side == side
    assert str(exc.value) == f"the {side}'s declared melds are not legal: {message}"


def _framework_layoffs(melds: list[list[int]], unmelded: list[int]) -> list[int]:
    """The framework's layoff loop on card lists, as its GinRummyGame writes it, for the
    kernel to be checked against (meld test from docs/rules.md: 3-4 of a rank or 3+ in a
    suit in sequence)."""
    def is_meld(cards: list[int]) -> bool:
        ranks = sorted(c % 16 for c in cards)
        if len({c // 16 for c in cards}) == 1:
            return len(cards) >= 3 and ranks == list(range(ranks[0], ranks[0] + len(cards)))
        return len(set(ranks)) == 1 and len(cards) in (3, 4)

    order = [int(c) for c in EAAI_CARD_ORDER]
    cards = sorted(unmelded, key=order.index)
    laid = []
    progress = True
    while progress:
        progress = False
        for card in cards:
            meld = next((m for m in melds if is_meld([*m, card])), None)
            if meld is not None:
                meld.append(card)
                cards.remove(card)
                laid.append(card)
                progress = True
                break
    return laid


def test_greedy_layoffs_match_the_framework_loop_on_random_hands() -> None:
    rng = np.random.default_rng(5)
    runs = [[16 * s + r + i for i in range(3)] for s in range(4) for r in range(11)]
    sets = [[16 * s + r for s in suits] for r in range(13)
            for suits in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3))]
    checked = laid_any = 0
    for _ in range(400):
        picks = [runs[i] for i in rng.choice(len(runs), 2)] + [sets[rng.integers(len(sets))]]
        melds, used = [], set()
        for meld in picks:
            if not used & set(meld):
                melds.append(list(meld))
                used |= set(meld)
        rng.shuffle(melds)
        free = [c for c in range(64) if c % 16 < 13 and c not in used]
        cards = [int(c) for c in rng.choice(free, 10, replace=False)]
        grown = np.array([sum(1 << c for c in m) for m in melds], np.int64)
        laid = greedy_layoffs(grown, len(melds), sum(1 << c for c in cards))
        expected = _framework_layoffs([list(m) for m in melds], cards)
        assert laid == sum(1 << c for c in expected), (melds, cards)
        checked += 1
        laid_any += bool(expected)
    assert checked == 400 and laid_any > 50


def _play_hand(rules: Rules, seed: int) -> np.ndarray:
    """One hand of least-deadwood play (never take the upcard, draw from the stock, discard
    to least deadwood, knock when allowed): the finished hand state."""
    deck = shuffled_deck(seed)
    hs, pile, after, moves = new_hand_buffers(0)
    deal(hs, pile, deck, rules.to_array())
    while (decision := advance(hs, pile, deck, after, moves)) != DEC_OVER:
        if decision in (DEC_OFFER, DEC_DRAW, DEC_KNOCK):
            move = {DEC_OFFER: MOVE_PASS, DEC_DRAW: MOVE_DRAW_STOCK, DEC_KNOCK: MOVE_KNOCK}[
                decision]
        else:
            assert decision == DEC_DISCARD
            h = int(held(hs, int(hs[HS_TO_MOVE])))
            move = min((c for c in range(64) if h >> c & 1),
                       key=lambda c: (min_deadwood_mask(h & ~(1 << c)), c))
        assert apply_move(hs, pile, deck, after, moves, move) == 0
    return hs


def test_hands_played_under_the_option_settle_as_settle_says() -> None:
    differ = knocks = 0
    for seed in range(40):
        exact_hs, framework_hs = _play_hand(EAAI, seed), _play_hand(FRAMEWORK, seed)
        if exact_hs[HS_KNOCKER] < 0:
            continue
        knocks += 1
        k, d = int(framework_hs[HS_KNOCKER_HAND]), int(framework_hs[HS_DEFENDER_HAND])
        assert (int(exact_hs[HS_KNOCKER_HAND]), int(exact_hs[HS_DEFENDER_HAND])) == (k, d)
        for hs, rules in ((exact_hs, EAAI), (framework_hs, FRAMEWORK)):
            s = settle([c for c in range(64) if k >> c & 1], [c for c in range(64) if d >> c & 1],
                       rules)
            assert END_NAMES[int(hs[HS_END])] == s.end
            assert (int(hs[HS_POINTS]), int(hs[HS_KNOCKER_DEADWOOD]),
                    int(hs[HS_DEFENDER_DEADWOOD])) == (s.points, s.knocker_deadwood,
                                                       s.defender_deadwood)
            k_melds, d_melds, layoffs, _, _ = describe_layout(
                k, d, hs[HS_KNOCKER_MELDS:HS_KNOCKER_MELDS + hs[HS_N_KNOCKER_MELDS]],
                hs[HS_DEFENDER_MELDS:HS_DEFENDER_MELDS + hs[HS_N_DEFENDER_MELDS]],
                int(hs[HS_LAYOFFS]))
            assert (k_melds, d_melds, layoffs) == (s.knocker_melds, s.defender_melds, s.layoffs)
        k_cards = [c for c in range(64) if k >> c & 1]
        d_cards = [c for c in range(64) if d >> c & 1]
        declared = settle_declared(k_cards, d_cards, bot_declared_melds(k_cards),
                                   bot_declared_melds(d_cards), EAAI)
        assert (declared.points, declared.winner, declared.layoffs) == (
            int(framework_hs[HS_POINTS]), "knocker" if framework_hs[HS_WINNER] == framework_hs[
                HS_KNOCKER] else "defender", settle(k_cards, d_cards, FRAMEWORK).layoffs)
        differ += int(exact_hs[HS_POINTS] != framework_hs[HS_POINTS]
                      or exact_hs[HS_WINNER] != framework_hs[HS_WINNER])
    assert knocks >= 20 and differ >= 1


def _knocked_state(knocker: str, defender: str) -> np.ndarray:
    """A hand state as a knock by hand player 0 leaves it, under the eaai preset."""
    hs = new_hand_buffers(0)[0]
    hs[HS_KNOCKER], hs[HS_KNOCKER_HAND], hs[HS_DEFENDER_HAND] = 0, hand_mask(knocker), hand_mask(
        defender)
    hs[HS_KNOCK_LIMIT], hs[HS_GIN_BONUS], hs[HS_UNDERCUT_BONUS], hs[HS_MULTIPLIER] = 10, 25, 25, 1
    hs[HS_END], hs[HS_WINNER], hs[HS_POINTS] = END_GIN, 0, 99  # to be overwritten
    return hs


def test_a_hand_settled_again_on_declared_melds() -> None:
    from sim.engine.hand import settle_declared_hand

    knocker = "3H 4H 5H 6H 7H 8H KS KC KD 2C"
    defender = "2H 9H TH QS QD 4S 5D 6C 7C 8S"
    hs = _knocked_state(knocker, defender)
    k = np.array([hand_mask("3H 4H 5H 6H 7H 8H"), hand_mask("KS KC KD")], np.int64)
    none = np.zeros(1, np.int64)
    assert settle_declared_hand(hs, k, 2, none, 0) == OUTCOME_KNOCK
    assert (hs[HS_END], hs[HS_WINNER], hs[HS_POINTS]) == (END_KNOCK, 0, 48)
    assert (hs[HS_KNOCKER_DEADWOOD], hs[HS_DEFENDER_DEADWOOD]) == (2, 50)
    assert hs[HS_LAYOFFS] == hand_mask("2H 9H TH")
    assert hs[HS_N_KNOCKER_MELDS] == 3 and hs[HS_N_DEFENDER_MELDS] == 0  # the run in pieces
    k_melds, _, layoffs, k_dead, _ = describe_layout(
        hand_mask(knocker), hand_mask(defender), hs[HS_KNOCKER_MELDS:HS_KNOCKER_MELDS + 3], [],
        int(hs[HS_LAYOFFS]))
    assert k_melds == [["3H", "4H", "5H", "6H", "7H", "8H"], ["KS", "KD", "KC"]]
    assert (layoffs, k_dead) == (["2H", "9H", "TH"], ["2C"])
    assert list(hs[HS_DEFENDER_MELDS:HS_DEFENDER_MELDS + 2]) == [-1, -1]


def test_illegal_declared_melds_leave_the_hand_as_it_was() -> None:
    from sim.engine.hand import settle_declared_hand

    hs = _knocked_state(*RUN_OR_SET)
    before = hs.copy()
    short = np.array([hand_mask("5H 6H 7H")], np.int64)  # leaves 34
    assert settle_declared_hand(hs, short, 1, np.zeros(1, np.int64), 0) == OUTCOME_ILLEGAL
    full = np.array([hand_mask("5H 6H 7H"), hand_mask("8C 8D 8S")], np.int64)
    stolen = np.array([hand_mask("7H 8H 9H")], np.int64)  # 7H is the knocker's
    assert settle_declared_hand(hs, full, 2, stolen, 1) == OUTCOME_DEFENDER_ILLEGAL
    assert np.array_equal(hs, before)


def test_play_sets_the_option_and_its_log_replays(tmp_path, capsys) -> None:
    """``ginbox play --set showdown=eaai``: the hand log names the option and replays."""
    import json

    from sim.cli import main

    log = tmp_path / "hands.jsonl"
    assert main(["play", "--strategies", "simple,tuned", "--rules", "eaai", "--set",
                 "showdown=eaai", "--games", "3", "--quiet", "--log", str(log)]) == 0
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records and all(r["rules_config"]["showdown"] == "eaai" for r in records)
    capsys.readouterr()
    assert main(["replay", str(log), "--all"]) == 0
    assert "all match the rules" in capsys.readouterr().out


def test_knocks_the_framework_settled_settle_the_same() -> None:
    """Knocks from the framework's own games (tests/fixtures/eaai_framework_knocks.json says
    how they were recorded): the same layoffs, deadwood, winner and points."""
    import json
    from pathlib import Path

    fixture = Path(__file__).parent / "fixtures" / "eaai_framework_knocks.json"
    knocks = json.loads(fixture.read_text(encoding="utf-8"))["knocks"]
    assert len(knocks) == 40 and sum(bool(k["layoffs"]) for k in knocks) >= 30
    for k in knocks:
        knocker = [c for m in k["knocker_melds"] for c in m] + k["knocker_loose"]
        defender = ([c for m in k["defender_melds"] for c in m] + k["layoffs"]
                    + k["defender_loose"])
        s = settle_declared(knocker, defender, k["knocker_melds"], k["defender_melds"], EAAI)
        assert (sorted(s.layoffs), s.knocker_deadwood, s.defender_deadwood, s.winner,
                s.points) == (sorted(k["layoffs"]), k["knocker_deadwood"],
                              k["defender_deadwood"], k["winner"], k["points"]), k
