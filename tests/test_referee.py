"""The test referee (tests/support/referee.py) is independent of the engine, and it fails.

It settles showdowns with the brute-force oracle and works out each hand's knock limit from the
text of docs/rules.md, so a log it accepts is not merely the engine agreeing with itself. Here:
it imports nothing of the engine's rule kernels, its knock limit agrees with the engine's for
every upcard, and it rejects real hand logs whose result was tampered with.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

import pytest
from support.referee import Referee, hand_terms

from sim.engine.cards import DECK, card_str, card_value
from sim.engine.rules import Rules
from sim.play.driver import GameDriver, Seeds

SUPPORT = Path(__file__).parent / "support"


CARDS_AND_RULES = {"sim.engine.cards", "sim.engine.rules"}


@pytest.mark.parametrize(("module", "allowed"), [
    ("oracle.py", {"sim.engine.cards"}),
    ("referee.py", CARDS_AND_RULES),
    ("hollywood.py", {"sim.engine.rules"}),  # the referee's Hollywood score sheet
    # the view's declarations (V_LAYOUT, View), and the game object and step the spy patches
    ("views.py", CARDS_AND_RULES | {"sim.engine.view", "sim.play.loop", "sim.play.state",
                                    "sim.play.step"}),
])
def test_checkers_use_no_engine_rule_kernel(module: str, allowed: set[str]) -> None:
    """Only card parsing and the Rules record come from ``sim``: no rule kernel."""
    tree = ast.parse((SUPPORT / module).read_text(encoding="utf-8"))
    used = {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sim")}
    used |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names if alias.name.startswith("sim")}
    assert used <= allowed, used


@pytest.mark.parametrize("rules", [Rules(), Rules(knock_limit=4), Rules.preset("oklahoma"),
                                   Rules(oklahoma=True), Rules(spade_doubling=True)],
                         ids=["default", "limit4", "oklahoma", "oklahoma-only", "spades-only"])
def test_hand_terms_agree_with_the_engine(rules: Rules) -> None:
    """The referee's (limit, multiplier) equals the engine's for all 52 upcards."""
    for c in DECK:
        limit = rules.hand_knock_limit(card_value(int(c)))
        multiplier = 2 if rules.spade_doubling and card_str(int(c))[1] == "S" else 1
        assert hand_terms(rules, int(c)) == (limit, multiplier), card_str(int(c))


@pytest.mark.parametrize(("upcard", "want"), [("AS", (0, 2)), ("AH", (0, 1)), ("7D", (7, 1)),
                                               ("TS", (10, 2)), ("KC", (10, 1)),
                                               ("2S", (2, 2))])
def test_oklahoma_hand_terms_by_hand(upcard: str, want: tuple[int, int]) -> None:
    """Worked by hand from docs/rules.md: an ace is gin only, a picture card 10, a spade x2."""
    code = [int(c) for c in DECK if card_str(int(c)) == upcard][0]
    assert hand_terms(Rules.preset("oklahoma"), code) == want


@pytest.fixture(scope="module")
def showdowns() -> list[tuple[dict[str, Any], Rules]]:
    """Real logged hands that ended in a knock or gin with layoffs somewhere among them."""
    out = []
    for rules in (Rules(target=200), Rules.preset("oklahoma").replace(target=200)):
        driver = GameDriver(rules, ["greedy-knock"] * 3, Seeds.from_seed(8), log=True)
        _, records = driver.play(0)
        out += [(r, rules) for r in records if r["result"]["knocker"] is not None]
    ends = {r["result"]["end"] for r, _ in out}
    assert {"knock", "gin"} <= ends and any(r["result"]["layoffs"] for r, _ in out)
    return out


def test_untouched_showdowns_pass(showdowns: list[tuple[dict[str, Any], Rules]]) -> None:
    for record, rules in showdowns:
        Referee(record, rules)


def _points(result: dict[str, Any]) -> str:
    result["points"] += 1
    return "showdown result"


def _knocker_deadwood(result: dict[str, Any]) -> str:
    result["knocker_deadwood"] += 1
    return "showdown result"


def _drop_a_knocker_meld(result: dict[str, Any]) -> str:
    result["knocker_melds"] = result["knocker_melds"][1:]
    return "knocker melds .* do not leave deadwood"


def _not_a_meld(result: dict[str, Any]) -> str:
    result["knocker_melds"][0] = result["knocker_melds"][0][:2]
    return "knocker melds .* are not disjoint melds"


def _drop_layoffs(result: dict[str, Any]) -> str:
    result["layoffs"] = []
    return "defender melds .* do not leave deadwood"


TAMPERS = {"points": _points, "knocker-deadwood": _knocker_deadwood,
           "drop-a-knocker-meld": _drop_a_knocker_meld, "not-a-meld": _not_a_meld,
           "drop-layoffs": _drop_layoffs}


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_tampered_showdowns_fail(tamper: str,
                                 showdowns: list[tuple[dict[str, Any], Rules]]) -> None:
    """Every showdown the tamper applies to is rejected, with the reason."""
    tried = 0
    for record, rules in showdowns:
        if tamper == "drop-layoffs" and not record["result"]["layoffs"]:
            continue
        bad = copy.deepcopy(record)
        message = TAMPERS[tamper](bad["result"])
        with pytest.raises(AssertionError, match=message):
            Referee(bad, rules)
        tried += 1
    assert tried > 0
