"""Tests for sim.runs.experiment: the TOML schema, sweeps, defaults and one-line validation
errors."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest

from sim.engine.rules import Rules
from sim.runs.experiment import (
    DEFAULT_CHUNK_SIZE,
    ArmSpec,
    ExperimentSpec,
    load_experiment,
)

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"

BASE: dict[str, Any] = {
    "name": "t",
    "seed": 7,
    "games": 12,
    "arms": [{"name": "a", "strategies": ["greedy-knock", "simple", "random"]}],
}


def with_changes(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def with_arm(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data["arms"][0].update(changes)
    return data


# ------------------------------------------------------------------------------ loading


# league_*.toml, tune_*.toml and train_*.toml are league, tuning and training files
# (docs/league.md, docs/tuning.md, docs/learning.md)
SHIPPED = sorted(p for p in EXPERIMENTS.glob("*.toml")
                 if not p.name.startswith(("league_", "tune_", "train_")))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_experiments_load_and_round_trip(path: Path) -> None:
    spec = load_experiment(path)
    assert spec.name == path.stem
    assert load_experiment(spec.to_dict()) == spec
    for arm in spec.arms:
        assert arm.resolved_rules.players == len(arm.strategies)


def test_shipped_experiment_shapes() -> None:
    names = {p.stem for p in EXPERIMENTS.glob("*.toml")}
    assert names >= {"quick", "round_robin", "box_retention", "gin_bonus", "knock_sweep"}
    sweep = load_experiment(EXPERIMENTS / "knock_sweep.toml")
    assert [a.name for a in sweep.arms] == [f"knock_at={k}" for k in range(11)]
    assert [a.strategies[0] for a in sweep.arms] == [f"greedy-knock:knock_at={k}"
                                                     for k in range(11)]
    assert all(a.strategies[1:] == ("greedy-knock", "greedy-knock") for a in sweep.arms)
    gin = load_experiment(EXPERIMENTS / "gin_bonus.toml")
    assert [a.resolved_rules.gin_bonus for a in gin.arms] == [25, 20]
    assert gin.arms[0].strategies == gin.arms[1].strategies
    for spec in map(load_experiment, SHIPPED):  # rotation exactly balanced: n! seatings
        period = math.lcm(*(math.factorial(len(a.strategies)) for a in spec.arms))
        assert spec.games % period == 0, spec.name


def test_minimal_spec_defaults() -> None:
    spec = load_experiment(BASE)
    assert spec.chunk_size == DEFAULT_CHUNK_SIZE
    arm = spec.arms[0]
    assert arm.rules == "three-handed" and arm.seating == "rotate" and arm.rotate
    assert arm.resolved_rules == Rules()
    assert spec.total_games == 12 and spec.chunks_per_arm == 1


def test_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text(
        'name = "e"\nseed = 3\ngames = 100\nchunk_size = 30\n'
        '[[arms]]\nname = "x"\nrules = "THREE_HANDED_20"\n'
        'overrides = { knock_limit = 7, spade_doubling = true }\n'
        'strategies = "greedy-knock:knock_at=5,simple,random"\nseating = [2, 0, 1]\n'
    )
    spec = load_experiment(path)
    assert spec.chunks_per_arm == 4
    arm = spec.arms[0]
    assert arm.rules == "three-handed-20"
    assert arm.strategies == ("greedy-knock:knock_at=5", "simple", "random")
    assert arm.seating == (2, 0, 1) and not arm.rotate
    assert arm.resolved_rules == Rules.preset("three-handed-20").replace(
        knock_limit=7, spade_doubling=True, initial_roles=(2, 0, 1))


def test_sweep_cartesian_product_and_typed_values() -> None:
    data = with_arm(name="g{g}-{who}", strategies=["{who}", "simple", "simple"],
                    overrides={"gin_bonus": "{g}", "name": "bonus {g}"},
                    sweep={"g": [20, 25], "who": ["random", "greedy-knock:knock_at=3"]})
    spec = load_experiment(data)
    assert [a.name for a in spec.arms] == ["g20-random", "g20-greedy-knock:knock_at=3",
                                           "g25-random", "g25-greedy-knock:knock_at=3"]
    assert [a.resolved_rules.gin_bonus for a in spec.arms] == [20, 20, 25, 25]
    assert spec.arms[0].overrides == {"gin_bonus": 20, "name": "bonus 20"}
    assert spec.arms[3].strategies[0] == "greedy-knock:knock_at=3"


def test_defaults_are_merged_and_arms_win() -> None:
    data = with_changes(
        defaults={"rules": "three-handed-20", "overrides": {"target": 50, "wall": 4},
                  "seating": "random", "strategies": ["simple"] * 3},
        arms=[{"name": "d"},
              {"name": "e", "overrides": {"wall": 0}, "strategies": ["random"] * 3,
               "seating": [0, 1, 2]}],
    )
    d, e = load_experiment(data).arms
    assert d.resolved_rules == Rules.preset("three-handed-20").replace(target=50, wall=4)
    assert d.seating == "random" and d.strategies == ("simple",) * 3
    assert e.resolved_rules.target == 50 and e.resolved_rules.wall == 0
    assert e.seating == (0, 1, 2) and e.strategies == ("random",) * 3


def test_two_player_arm() -> None:
    spec = load_experiment(with_arm(rules="classic", strategies=["simple", "random"],
                                    seating=[1, 0]))
    assert spec.arms[0].resolved_rules.players == 2
    assert spec.arms[0].resolved_rules.initial_roles == (1, 0)


def test_python_construction_validates() -> None:
    arm = ArmSpec("a", ["random", "random", "random"])
    assert arm.strategies == ("random",) * 3
    spec = ExperimentSpec("x", 1, 10, [arm])
    assert spec.arms == (arm,)
    assert spec.replace(games=20).games == 20
    with pytest.raises(ValueError, match=r"^games=0 is out of range"):
        spec.replace(games=0)
    with pytest.raises(ValueError, match="unknown experiment field"):
        spec.replace(gamez=3)
    with pytest.raises(ValueError, match=r"^strategies\[1\]='nope'"):
        ArmSpec("a", ["random", "nope", "random"])


# ------------------------------------------------------------------------------ errors

ERRORS = [
    (with_changes(gamez=3), r"unknown key\(s\) 'gamez' in the experiment: expected one of"),
    (with_arm(strategy=["random"]), r"unknown key\(s\) 'strategy' in arms\[0\]"),
    (with_changes(defaults={"name": "x"}), r"unknown key\(s\) 'name' in defaults"),
    ({k: v for k, v in BASE.items() if k != "seed"}, r"^seed is missing"),
    (with_changes(games=0),
     r"^games=0 is out of range: expected an integer 1\.\.1,000,000,000 \(games per arm\)$"),
    (with_changes(games="many"),
     r"^games='many' is not valid: expected an integer 1\.\.1,000,000,000"),
    (with_changes(games=True), r"^games=True is not valid"),
    (with_changes(seed=-1),
     r"^seed=-1 is out of range: expected an integer 0\.\.2\*\*63-1$"),
    (with_changes(chunk_size=0), r"^chunk_size=0 is out of range: expected an integer 1\.\."),
    (with_changes(name="../evil"), r"^name='../evil' is not valid: expected 1-64 letters"),
    (with_changes(name=""), r"^name='' is not valid"),
    (with_changes(arms=[]), r"^arms=\[\] is not valid: expected at least one"),
    (with_changes(description=3), r"^description=3 is not valid"),
    (with_arm(strategies=["random", "greedyy", "simple"]),
     r"^arms\[0\]\.strategies\[1\]='greedyy': unknown strategy 'greedyy': expected one of random"),
    (with_arm(strategies=["greedy-knock:knock_at=11", "simple", "random"]),
     r"^arms\[0\]\.strategies\[0\]=.*knock_at=11 is out of range: expected 0\.\.10"),
    (with_arm(strategies=["random", "simple"]),
     r"^arms\[0\]\.strategies=.* has 2 seats: three-handed rules with players=3 expect 3"),
    (with_arm(strategies=[]), r"^arms\[0\]\.strategies=\[\] is not valid"),
    (with_arm(strategies=[1, 2, 3]), r"^arms\[0\]\.strategies\[0\]=1 is not valid"),
    (with_arm(rules="four-handed"),
     r"^arms\[0\]\.rules: unknown rules preset 'four-handed': expected one of three-handed"),
    (with_arm(overrides={"gin_bonus": -1}),
     r"^arms\[0\]\.overrides\.gin_bonus=-1 is out of range: expected an integer 0\.\.1000"),
    (with_arm(overrides={"knock_limit": 11}), r"^arms\[0\]\.overrides\.knock_limit=11"),
    (with_arm(overrides={"gin_bonnus": 20}),
     r"^arms\[0\]\.overrides\.gin_bonnus is not a rules field: expected one of name"),
    (with_arm(overrides={"initial_roles": [0, 1, 2]}),
     r"^arms\[0\]\.overrides\.initial_roles is not accepted: set the arm's seating"),
    (with_arm(overrides=[1]), r"^arms\[0\]\.overrides=\[1\] is not valid"),
    (with_arm(seating="rotated"),
     r"^arms\[0\]\.seating='rotated' is not valid: expected 'rotate', 'random' or a list"),
    (with_arm(seating=[0, 1, 1]), r"^arms\[0\]\.seating=\[0, 1, 1\] is not valid: expected"),
    (with_arm(seating=[0, 1]), r"^arms\[0\]\.seating=\[0, 1\] is not valid"),
    (with_arm(name=""), r"^arms\[0\]\.name='' is not valid"),
    (with_changes(arms=[BASE["arms"][0], BASE["arms"][0]]),
     r"^arms\[1\]\.name='a' is not valid: it repeats arms\[0\]"),
    (with_changes(arms=[{"strategies": ["random"] * 3}]), r"^arms\[0\]\.name is missing"),
    (with_changes(arms=[{"name": "x"}]), r"^arms\[0\]\.strategies is missing"),
    (with_changes(arms=["x"]), r"^arms\[0\]='x' is not valid: expected a table"),
    (with_arm(sweep={"k": []}), r"^arms\[0\]\.sweep\.k=\[\] is not valid: expected a non-empty"),
    (with_arm(sweep=[1]), r"^arms\[0\]\.sweep=\[1\] is not valid"),
    (with_arm(name="k{k}", sweep={"k": [1, 2]}, strategies=["{j}", "random", "random"]),
     r"^arms\[0\]\.strategies\[0\]='\{j\}' uses placeholder \{j\}, which is not a sweep key"),
    (with_arm(name="same", sweep={"k": [1, 2]}),
     r"^arms\[1\]\.name='same' is not valid: it repeats arms\[0\]"),
    (with_arm(name="k{k}", strategies=["greedy-knock:knock_at={k}", "simple", "random"],
              sweep={"k": [9, 10, 11]}),
     r"^arms\[0\]\(k=11\)\.strategies\[0\]=.*out of range"),
]


@pytest.mark.parametrize(("data", "message"), ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_validation_errors_name_the_field(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        load_experiment(data)
    assert "\n" not in str(info.value)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nseed = \n')
    with pytest.raises(ValueError, match=r"bad\.toml: malformed TOML: "):
        load_experiment(bad)
    with pytest.raises(ValueError, match=r"cannot read experiment file .*missing\.toml"):
        load_experiment(tmp_path / "missing.toml")
    typo = tmp_path / "typo.toml"
    typo.write_text('name = "x"\nseed = 1\ngames = 10\n[[arms]]\nname = "a"\n'
                    'strategies = ["random", "random", "random"]\nseating = "fixed"\n')
    with pytest.raises(ValueError, match=r"typo\.toml: arms\[0\]\.seating='fixed'"):
        load_experiment(typo)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="not a UTF-8 text file"):
        load_experiment(binary)
    with pytest.raises(ValueError, match="expected a TOML file path"):
        load_experiment(42)  # type: ignore[arg-type]


# ------------------------------------------------------------------- upper bounds


@pytest.mark.parametrize(("data", "message"), [
    (with_arm(overrides={"target": 2**63 - 1}),
     "arms[0].overrides.target=9223372036854775807 is out of range: expected an integer "
     "1..10000"),
    (with_arm(overrides={"gin_bonus": 2**63}),
     "arms[0].overrides.gin_bonus=9223372036854775808 is out of range: expected an integer "
     "0..1000"),
    (with_changes(seed=2**63),
     "seed=9223372036854775808 is out of range: expected an integer 0..2**63-1"),
    (with_changes(games=10**9 + 1),
     "games=1000000001 is out of range: expected an integer 1..1,000,000,000 (games per arm)"),
    (with_changes(chunk_size=10**6 + 1),
     "chunk_size=1000001 is out of range: expected an integer 1..1,000,000"),
])
def test_numbers_have_upper_bounds(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as exc:
        load_experiment(data)
    assert str(exc.value) == message


def test_huge_override_in_a_toml_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text('name = "e"\nseed = 1\ngames = 6\n[[arms]]\nname = "a"\n'
                    'strategies = ["simple", "simple", "simple"]\n'
                    'overrides = { target = 9223372036854775807 }\n')
    with pytest.raises(ValueError) as exc:
        load_experiment(path)
    assert str(exc.value) == (f"{path}: arms[0].overrides.target=9223372036854775807 is out of "
                              "range: expected an integer 1..10000")
    assert load_experiment({**BASE, "seed": 2**63 - 1, "games": 10**9,
                            "chunk_size": 10**6}).games == 10**9


# ------------------------------------------------------------------------- bounded plans


def test_too_many_chunks_is_refused_in_one_line() -> None:
    """A billion games in small chunks would plan 5e5 chunk objects and list each in the
    manifest: the experiment is refused, naming the bound and what to change, before anything
    is planned (a trillion is refused earlier by the bound on games)."""
    from sim.runs.experiment import MAX_CHUNKS

    big = with_changes(games=1_000_000_000)
    with pytest.raises(ValueError, match=r"^games=1000000000 in chunks of 2000 makes "
                                         r"500,000 chunks \(1 arm\): at most 100,000 "
                                         r"chunks in all; raise chunk_size \(up to "
                                         r"1,000,000\) or lower games$"):
        load_experiment(big)
    assert MAX_CHUNKS == 100_000
    spec = load_experiment(with_changes(games=MAX_CHUNKS * 2000))  # exactly at the bound
    assert spec.chunks_per_arm == MAX_CHUNKS
    with pytest.raises(ValueError, match=r"makes 100,001 chunks"):
        spec.replace(games=MAX_CHUNKS * 2000 + 1)
    two_arms = with_changes(games=MAX_CHUNKS * 1000 + 1000)
    two_arms["arms"] = [dict(BASE["arms"][0]), {**BASE["arms"][0], "name": "b"}]
    with pytest.raises(ValueError, match=r"makes 100,002 chunks \(2 arms\)"):
        load_experiment(two_arms)
