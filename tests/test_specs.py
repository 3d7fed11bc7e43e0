"""sim.io.specs: the checks the experiment, tuning and league loaders share, and that the three
loaders refuse the same mistakes in the same words."""

from __future__ import annotations

from typing import Any

import pytest

from sim.io.specs import (
    check_int,
    check_keys,
    check_run_name,
    check_text,
    check_unique,
    require_keys,
)
from sim.league import load_league
from sim.runs.experiment import load_experiment
from sim.tune import load_tune


def test_check_int_returns_the_value_or_names_the_field() -> None:
    assert check_int("games", 5, 1, 10) == 5
    with pytest.raises(ValueError, match=r"^games=0 is out of range: expected an integer "
                                         r"1\.\.10,000$"):
        check_int("games", 0, 1, 10_000)
    for bad in (True, 2.0, "3", None):
        with pytest.raises(ValueError, match=rf"^games={bad!r} is not valid: expected an "
                                             r"integer 1\.\.10$"):
            check_int("games", bad, 1, 10)
    with pytest.raises(ValueError, match=r"^seed=-1 is out of range: expected any seed$"):
        check_int("seed", -1, 0, 9, "any seed")


def test_keys_text_names_and_repeats() -> None:
    check_keys({"a": 1}, ("a", "b"), "the file")
    with pytest.raises(ValueError, match=r"^unknown key\(s\) 'c', 'd' in the file: expected "
                                         r"one of a, b$"):
        check_keys({"a": 1, "c": 2, "d": 3}, ("a", "b"), "the file")
    with pytest.raises(ValueError, match=r"^b is missing: a file needs a and b$"):
        require_keys({"a": 1}, ("a", "b"), "a file needs a and b")
    assert check_text("description", "x") == "x"
    with pytest.raises(ValueError, match=r"^description=3 is not valid: expected a string$"):
        check_text("description", 3)
    assert check_run_name("run-1.b") == "run-1.b"
    with pytest.raises(ValueError, match=r"^name='-x' is not valid: expected 1-64 letters"):
        check_run_name("-x")
    check_unique("s", ["a", "B"], str.lower, "why")
    with pytest.raises(ValueError, match=r"^s\[2\]='A' repeats s\[0\]: why$"):
        check_unique("s", ["a", "b", "A"], str.lower, "why")


EXPERIMENT: dict[str, Any] = {"name": "x", "seed": 1, "games": 6,
                              "arms": [{"name": "a", "strategies": ["simple", "simple"],
                                        "rules": "eaai"}]}
TUNE: dict[str, Any] = {"name": "x", "seed": 1, "strategy": "discard-tracking",
                        "field": ["simple"], "rules": "eaai"}
LEAGUE: dict[str, Any] = {"name": "x", "seed": 1, "games": 6, "rules": "eaai",
                          "strategies": ["simple", "random"]}
LOADERS = [(load_experiment, EXPERIMENT, "the experiment"), (load_tune, TUNE, "the tuning file"),
           (load_league, LEAGUE, "the league")]


@pytest.mark.parametrize(("load", "good", "where"), LOADERS,
                         ids=["experiment", "tune", "league"])
def test_the_three_loaders_refuse_alike(load: Any, good: dict[str, Any], where: str) -> None:
    assert load(good).name == "x"
    with pytest.raises(ValueError, match=rf"^unknown key\(s\) 'colour' in {where}: expected "
                                         r"one of name, seed, "):
        load({**good, "colour": 1})
    with pytest.raises(ValueError, match=r"^seed=-1 is out of range: expected an integer "
                                         r"0\.\.2\*\*63-1$"):
        load({**good, "seed": -1})
    with pytest.raises(ValueError, match=r"^seed='1' is not valid: expected an integer "):
        load({**good, "seed": "1"})
    with pytest.raises(ValueError, match=r"^description=3 is not valid: expected a string$"):
        load({**good, "description": 3})
    with pytest.raises(ValueError, match=r"^seed is missing: "):
        load({k: v for k, v in good.items() if k != "seed"})
