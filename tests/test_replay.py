"""sim.records.replay: logged hands re-run through the rule kernels, edits flagged, hands
rendered."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from sim.engine.cards import card_str, parse_cards
from sim.engine.rules import TEAM_POLICIES, Rules
from sim.play.driver import play_games
from sim.records.replay import (
    deck_of,
    fan,
    render_hand,
    replay_game,
    replay_hand,
    replay_log,
)

ADVISOR = Rules().replace(team_policy="advisor")
GIN20 = Rules().replace(gin_bonus=20)  # still named "three-handed": only rules_config says 20

RUNS = {
    "three-mixed": ("greedy-knock,simple,random", "three-handed", 6, 1),
    "three-random": ("random,random,simple", "three-handed", 2, 2),
    "classic": ("simple,greedy-knock", "classic", 3, 3),
    "eaai": ("random,simple", "eaai", 4, 4),
    "oklahoma": ("greedy-knock,greedy-knock:knock_at=3,simple", "oklahoma", 3, 5),
    "advisor": ("simple,random,greedy-knock", ADVISOR, 4, 6),
    "gin20": ("greedy-knock:knock_at=0,greedy-knock:knock_at=2,simple", GIN20, 3, 7),
}


@pytest.fixture(scope="module")
def logs() -> dict[str, list[dict[str, Any]]]:
    return {name: play_games(s, rules, games=g, seed=seed, log=True).log or []
            for name, (s, rules, g, seed) in RUNS.items()}


def _find(logs: dict[str, list[dict[str, Any]]], pred: Any) -> tuple[dict[str, Any],
                                                                       dict[str, Any] | None]:
    """The first logged hand satisfying ``pred``, and the previous hand of its game."""
    for records in logs.values():
        for i, r in enumerate(records):
            if pred(r):
                prev = records[i - 1] if r["hand"] > 0 else None
                return copy.deepcopy(r), prev
    raise AssertionError("no logged hand has the wanted property; change a seed")


# ---------------------------------------------------------------------------------- honest logs


@pytest.mark.parametrize("name", list(RUNS))
def test_every_logged_hand_replays_ok(logs: dict[str, list[dict[str, Any]]], name: str) -> None:
    checks = replay_log(logs[name])
    assert len(checks) == len(logs[name]) > 0
    bad = [(c.game, c.hand, c.differences) for c in checks if not c.ok]
    assert bad == []
    for check, record in zip(checks, logs[name], strict=True):
        assert check.result == record["result"]
        assert check.scores == record["scores"]
        assert check.game_over == record["game_over"]


def test_scores_chain_across_hands(logs: dict[str, list[dict[str, Any]]]) -> None:
    records = [r for r in logs["three-mixed"] if r["game"] == 0]
    assert len(records) >= 3
    checks = replay_game(records)
    scores = [0, 0, 0]
    for check, r in zip(checks, records, strict=True):
        if r["result"]["winner"] is not None:
            scores[r["result"]["winner"]] += r["result"]["points"]
        assert check.scores == scores == r["scores"]
        assert r["sitter"] != r["result"]["winner"]  # the sitter never scores
    for check, nxt in zip(checks, records[1:], strict=False):
        assert check.next_roles == (nxt["dealer"], nxt["nondealer"], nxt["sitter"])
    assert checks[-1].game_over and checks[-1].game_winner == records[-1]["game_winner"]


def test_rules_config_wins_over_the_preset_name(logs: dict[str, list[dict[str, Any]]]) -> None:
    gin, prev = _find({"gin20": logs["gin20"]}, lambda r: r["result"]["end"] == "gin")
    assert gin["rules"] == "three-handed" and gin["rules_config"]["gin_bonus"] == 20
    assert replay_hand(gin, prev).ok
    del gin["rules_config"]  # the preset alone has gin bonus 25: five points more
    check = replay_hand(gin, prev)
    points = gin["result"]["points"]
    assert f"result.points: recorded {points}, rules give {points + 5}" in check.differences


def test_forced_draw_after_both_pass(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, prev = _find(logs, lambda r: [m["move"] for m in r["moves"][:3]]
                         == ["pass", "pass", "draw_stock"])
    assert record["moves"][2]["seat"] == record["nondealer"]
    check = replay_hand(record, prev)
    assert check.ok, check.differences
    assert "both passed the upcard" in check.text
    missing = copy.deepcopy(record)
    del missing["moves"][2]
    check = replay_hand(missing, prev)
    assert not check.ok
    assert check.differences[0].startswith("move 3 (seat ")
    assert check.differences[0].endswith(
        f"both players passed the upcard, so the rules make seat {record['nondealer']} draw "
        "from the stock")


def test_single_hand_without_previous_skips_scores(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, _ = _find(logs, lambda r: r["hand"] > 0)
    check = replay_hand(record)
    assert check.ok and check.scores is None
    assert check.notes == ["scores not checked: the previous hand of this game was not given"]


# ---------------------------------------------------------------------------------- edited logs


def test_edited_points_are_flagged(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, prev = _find(logs, lambda r: r["result"]["end"] == "knock")
    points = record["result"]["points"]
    record["result"]["points"] = points + 2
    check = replay_hand(record, prev)
    assert not check.ok
    assert check.differences == [f"result.points: recorded {points + 2}, rules give {points}"]
    assert "THE RECORD DIFFERS FROM THE RULES" in check.text


def test_edited_winner_is_flagged(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, prev = _find(logs, lambda r: r["result"]["end"] == "undercut")
    winner = record["result"]["winner"]
    record["result"]["winner"] = record["result"]["knocker"]
    check = replay_hand(record, prev)
    assert check.differences == [
        f"result.winner: recorded {record['result']['knocker']}, rules give {winner}"]


def test_edited_scores_are_flagged(logs: dict[str, list[dict[str, Any]]]) -> None:
    records = copy.deepcopy([r for r in logs["three-mixed"] if r["game"] == 1])
    right = list(records[1]["scores"])
    records[1]["scores"] = [s + 1 for s in right]
    checks = replay_game(records)
    assert checks[0].ok
    assert checks[1].differences == [
        f"scores: recorded [{' '.join(str(s + 1) for s in right)}], "
        f"rules give [{' '.join(map(str, right))}]"]


def test_discard_not_in_hand_is_flagged(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, prev = _find(logs, lambda r: len(r["moves"]) > 8)
    i = next(i for i, m in enumerate(record["moves"]) if m["move"] == "discard")
    seat = record["moves"][i]["seat"]
    record["moves"][i]["card"] = record["deal"]["stock"][-1]  # never drawn before move i
    check = replay_hand(record, prev)
    assert check.differences[0] == (
        f"move {i + 1} (seat {seat} discard {record['deal']['stock'][-1]}) is illegal: the "
        f"discarded card is not in the player's hand (seat {seat} must discard)")
    assert check.differences[1].startswith("result: not checked")
    assert check.result is None


def test_discarding_the_card_just_taken_is_flagged(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, prev = _find(logs, lambda r: any(m["move"] == "draw_discard" for m in r["moves"]))
    i = next(i for i, m in enumerate(record["moves"]) if m["move"] == "draw_discard")
    taken = record["deal"]["upcard"] if i < 2 else record["moves"][i - 1]["card"]
    record["moves"][i + 1] = {"seat": record["moves"][i]["seat"], "move": "discard",
                              "card": taken}
    check = replay_hand(record, prev)
    assert "a card taken from the discard pile may not be discarded in the same turn" in \
        check.differences[0]


def test_missing_knock_and_extra_moves_are_flagged(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, prev = _find(logs, lambda r: r["result"]["end"] == "knock")
    moves = record["moves"]
    no_knock = copy.deepcopy(record)
    del no_knock["moves"][-2]  # the discard is then an ordinary one and the hand goes on
    check = replay_hand(no_knock, prev)
    assert check.differences[0].startswith(
        f"moves: the record ends after {len(moves) - 1} moves but the hand is not over")
    extra = copy.deepcopy(record)
    extra["moves"].append({"seat": moves[-1]["seat"], "move": "draw_stock"})
    check = replay_hand(extra, prev)
    assert check.differences == [
        f"moves: the hand ended after move {len(moves)} but the record has 1 more, from "
        f"move {len(moves) + 1} (seat {moves[-1]['seat']} draw_stock)"]


def test_wrong_roles_after_rotation_are_flagged(logs: dict[str, list[dict[str, Any]]]) -> None:
    records = copy.deepcopy([r for r in logs["three-mixed"] if r["game"] == 2])
    r = records[1]
    old_nd, old_sit = r["nondealer"], r["sitter"]
    swap = {old_nd: old_sit, old_sit: old_nd}
    r["nondealer"], r["sitter"] = old_sit, old_nd  # same cards, but another seat holds them
    for m in r["moves"]:
        m["seat"] = swap.get(m["seat"], m["seat"])
    for key in ("knocker", "winner"):
        if r["result"][key] is not None:
            r["result"][key] = swap.get(r["result"][key], r["result"][key])
    checks = replay_game(records)
    assert checks[1].differences[0].startswith(
        f"roles: recorded dealer {r['dealer']}, nondealer {old_sit}, sitter {old_nd}; the "
        f"rotation after the previous hand gives dealer {r['dealer']}, nondealer {old_nd}, "
        f"sitter {old_sit}")


def test_bad_deal_is_bad_input(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, _ = _find(logs, lambda r: r["hand"] == 0)
    record["deal"]["stock"][0] = record["deal"]["upcard"]
    with pytest.raises(ValueError, match=r"game \d+ hand 0: the deal is not a 52-card deck: "):
        replay_hand(record)
    record, _ = _find(logs, lambda r: r["hand"] == 0)
    record["seats"].append("simple")
    record["scores"].append(0)
    with pytest.raises(ValueError, match="seat 3 players but the record has 4 seats|seats"):
        replay_hand(record)
    with pytest.raises(ValueError, match="expected its hands 0, 1, 2"):
        replay_game([r for r in logs["classic"] if r["game"] == 0][1:])


# ---------------------------------------------------------------------------------- scripted


def _scripted(nondealer: str, dealer: str, upcard: str, moves: list[tuple[int, str, str]],
              result: dict[str, Any], scores: list[int], rules: str = "three-handed"
              ) -> dict[str, Any]:
    """A hand record from a fixed deal: dealer seat 0, non-dealer seat 1, sitter seat 2."""
    used = set(parse_cards(f"{nondealer} {dealer} {upcard}"))
    stock = [card_str(s * 16 + r) for s in range(4) for r in range(13) if s * 16 + r not in used]
    three = Rules.preset(rules).players == 3
    return {
        "game": 0, "hand": 0, "rules": rules,
        "seats": ["simple", "greedy-knock", "random"][: 3 if three else 2],
        "dealer": 0, "nondealer": 1, "sitter": 2 if three else None,
        "deal": {"dealer": dealer.split(), "nondealer": nondealer.split(), "upcard": upcard,
                 "stock": stock},
        "moves": [{"seat": s, "move": m, **({"card": c} if c else {})} for s, m, c in moves],
        "result": result, "scores": scores, "game_over": False, "game_winner": None,
    }


FIRST_TURN_GIN = _scripted(
    nondealer="AS 2S 3S 4H 5H 6H 7C 8C 9C KD", dealer="2H 3D 5C JS QH KH 9D 8S 4D 7S",
    upcard="TC",
    moves=[(1, "draw_discard", ""), (1, "knock", ""), (1, "discard", "KD")],
    result={"end": "gin", "knocker": 1,
            "knocker_melds": [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7C", "8C", "9C", "TC"]],
            "knocker_deadwood": 0, "defender_melds": [], "layoffs": [],
            "defender_deadwood": 68, "winner": 1, "points": 68 + 25},
    scores=[0, 93, 0],
)

FIRST_TURN_UNDERCUT = _scripted(
    nondealer="AS 2S 3S 4H 5H 6H 7C 8C 9C KD", dealer="7H 8H TS JS QS TD JD QD 2C 3C",
    upcard="9H",
    moves=[(1, "draw_discard", ""), (1, "knock", ""), (1, "discard", "KD")],
    result={"end": "undercut", "knocker": 1,
            "knocker_melds": [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7C", "8C", "9C"]],
            "knocker_deadwood": 9, "defender_melds": [["TS", "JS", "QS"], ["TD", "JD", "QD"]],
            "layoffs": ["7H", "8H"], "defender_deadwood": 5, "winner": 0,
            "points": 10 + 9 - 5},
    scores=[14, 0, 0],
)


def test_scripted_first_turn_gin() -> None:
    check = replay_hand(FIRST_TURN_GIN)
    assert check.ok, check.differences
    assert check.result is not None and check.result["points"] == 93
    assert check.next_roles == (1, 2, 0)  # the box lost: captain to the box, sitter captain
    text = check.text
    assert "  Captain  AS 2S 3S  4H 5H 6H  KD  7C 8C 9C   (deadwood 10)" in text
    assert "1. Captain (seat 1, greedy-knock) takes the upcard TC" in text
    assert "2. Captain (seat 1, greedy-knock) knocks, holding AS 2S 3S  4H 5H 6H  KD  7C 8C 9C TC" \
        in text
    assert "68 (box's deadwood) + 25 (gin bonus) = 93" in text
    assert "no layoffs against gin" in text
    assert "Next hand: box seat 1, captain seat 2, sitter seat 0." in text


def test_scripted_first_turn_undercut_with_layoffs() -> None:
    check = replay_hand(FIRST_TURN_UNDERCUT)
    assert check.ok, check.differences
    assert check.next_roles == (0, 2, 1)  # the box won: captain and sitter swap
    assert "lays off 7H 8H; deadwood 2C 3C = 5" in check.text
    assert "10 (undercut bonus) + 9 (captain's deadwood) - 5 (own deadwood) = 14" in check.text


def test_scripted_knock_too_high_is_illegal() -> None:
    record = copy.deepcopy(FIRST_TURN_UNDERCUT)
    record["moves"][2]["card"] = "AS"  # knocking and keeping KD leaves 19 > 10
    check = replay_hand(record)
    assert check.differences[0] == (
        "move 3 (seat 1 discard AS) is illegal: after knocking the discard must leave deadwood "
        "within the knock limit (seat 1 must discard)")


def test_scripted_spade_doubling_under_oklahoma() -> None:
    record = copy.deepcopy(FIRST_TURN_GIN)
    record["rules"] = "oklahoma"  # upcard TC: knock limit 10, not a spade: no doubling
    assert replay_hand(record).ok
    assert "knock limit 10 for this hand" in render_hand(record)


# ---------------------------------------------------------------------------------- render


def test_fan_sorts_by_suit_then_rank() -> None:
    assert fan(["KC", "AS", "TD", "2S", "9H", "QC"]) == "AS 2S  9H  TD  QC KC"


def test_render_two_player_and_advisor(logs: dict[str, list[dict[str, Any]]]) -> None:
    record, _ = _find({"eaai": logs["eaai"]}, lambda r: r["hand"] == 0)
    text = render_hand(record)
    assert f"Dealer:           seat {record['dealer']}" in text
    assert "Box" not in text and "Captain" not in text
    record, _ = _find({"advisor": logs["advisor"]}, lambda r: r["hand"] == 0)
    assert "advises the captain, who follows the advice" in render_hand(record)


def test_render_heads_a_hand_with_its_team_policy() -> None:
    """The header names the team policy unless it is the default, captain."""
    lines = {}
    for policy in TEAM_POLICIES:
        record = play_games("simple,random,greedy-knock", Rules(team_policy=policy), games=1,
                            seed=2, log=True).log[0]  # type: ignore[index]
        lines[policy] = render_hand(record).splitlines()[0]
    assert lines["captain"] == ("Game 0, hand 0: three-handed rules (gin bonus 25, undercut "
                                "bonus 10, knock limit 10, target 100)")
    for policy in ("advisor", "consensus"):
        assert lines[policy] == lines["captain"][:-1] + f", team policy {policy})"


def test_deck_of_is_the_deal_order() -> None:
    deck = deck_of(FIRST_TURN_GIN)
    assert len(set(deck.tolist())) == 52
    assert [card_str(int(c)) for c in deck[:3]] == ["2H", "3D", "5C"]
    assert card_str(int(deck[20])) == "TC"
