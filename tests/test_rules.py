"""Tests for sim.engine.rules: presets, validation, copies, serialisation and the numba array
layout."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.engine import rules as rules_mod
from sim.engine.rules import (
    PRESETS,
    RI_FORBID_TAKEN_DISCARD,
    RI_GAME_BONUS,
    RI_GIN_BONUS,
    RI_HAND_BONUS,
    RI_HOLLYWOOD,
    RI_INITIAL_ROLES,
    RI_KNOCK_LIMIT,
    RI_MAX_TURNS,
    RI_OKLAHOMA,
    RI_PLAYERS,
    RI_SHOWDOWN_EAAI,
    RI_SHUTOUT_BONUS,
    RI_SHUTOUT_DOUBLING,
    RI_SPADE_DOUBLING,
    RI_TARGET,
    RI_TEAM_ADVISOR,
    RI_TEAM_CONSENSUS,
    RI_UNDERCUT_BONUS,
    RI_WALL,
    RULES_ARRAY_LEN,
    Rules,
)

DEFAULTS = {
    "name": "three-handed",
    "players": 3,
    "gin_bonus": 25,
    "undercut_bonus": 10,
    "knock_limit": 10,
    "target": 100,
    "wall": 2,
    "max_turns": 400,
    "forbid_taken_discard": True,
    "oklahoma": False,
    "spade_doubling": False,
    "team_policy": "captain",
    "initial_roles": None,
    "hand_bonus": 0,
    "game_bonus": 0,
    "shutout_bonus": 0,
}

EXPECTED_PRESETS = {
    "three-handed": dict(DEFAULTS),
    "three-handed-20": {**DEFAULTS, "name": "three-handed-20", "gin_bonus": 20},
    "classic": {
        **DEFAULTS,
        "name": "classic",
        "players": 2,
        "gin_bonus": 20,
        "undercut_bonus": 10,
        "hand_bonus": 20,
        "game_bonus": 100,
        "shutout_bonus": 100,
    },
    "eaai": {
        **DEFAULTS,
        "name": "eaai",
        "players": 2,
        "gin_bonus": 25,
        "undercut_bonus": 25,
        "knock_limit": 10,
        "target": 100,
    },
    "oklahoma": {**DEFAULTS, "name": "oklahoma", "oklahoma": True, "spade_doubling": True},
    "hollywood": {
        **DEFAULTS,
        "name": "hollywood",
        "players": 2,
        "gin_bonus": 20,
        "undercut_bonus": 10,
        "hand_bonus": 20,
        "game_bonus": 100,
        "scoring": "hollywood",
        "shutout_doubling": True,
    },
    "three-handed-hollywood": {
        **DEFAULTS,
        "name": "three-handed-hollywood",
        "hand_bonus": 20,
        "game_bonus": 100,
        "scoring": "hollywood",
        "shutout_doubling": True,
    },
}
#: Fields added later, which ``to_dict`` writes only when they differ from these defaults.
LATER_DEFAULTS = {"scoring": "standard", "shutout_doubling": False, "showdown": "exact"}


# ---------------------------------------------------------------------- defaults and presets


def test_defaults_are_the_three_handed_preset() -> None:
    assert Rules().to_dict() == DEFAULTS
    assert Rules() == Rules.preset("three-handed")


def test_field_order_is_stable() -> None:
    assert [f.name for f in dataclasses.fields(Rules)] == [*DEFAULTS, *LATER_DEFAULTS]


def test_every_preset_is_named_once_canonically_and_differs_from_the_others() -> None:
    """What holds for any preset, present or added: the default comes first; each name is the
    spelling ``Rules.preset`` normalises to, listed once; each names a different set of rules
    (two presets playing the same game would split results that belong together); and every
    preset whose exact fields are pinned above is still there (a user's files name them)."""
    assert PRESETS[0] == Rules().name
    assert len(set(PRESETS)) == len(PRESETS)
    games = set()
    for name in PRESETS:
        rules = Rules.preset(name)
        assert name == name.strip().lower().replace("_", "-") == rules.name
        assert Rules.preset(name.upper().replace("-", "_")) == rules
        games.add(json.dumps({**rules.to_dict(), "name": None}, sort_keys=True))
    assert len(games) == len(PRESETS)
    assert set(EXPECTED_PRESETS) <= set(PRESETS)


@pytest.mark.parametrize("name", list(EXPECTED_PRESETS))
def test_preset_field_values(name: str) -> None:
    rules = Rules.preset(name)
    assert rules.to_dict() == EXPECTED_PRESETS[name]
    assert rules.name == name


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("THREE-HANDED", "three-handed"),
        ("three_handed_20", "three-handed-20"),
        ("Three_Handed-20", "three-handed-20"),
        ("Classic", "classic"),
        ("EAAI", "eaai"),
        (" oklahoma ", "oklahoma"),
    ],
)
def test_preset_names_are_forgiving(spelling: str, name: str) -> None:
    assert Rules.preset(spelling) == Rules.preset(name)
    assert Rules.preset(spelling).name == name


@pytest.mark.parametrize("bad", ["foo", "", "three handed", "gin"])
def test_unknown_preset(bad: str) -> None:
    msg = (
        f"unknown rules preset '{bad}': expected one of "
        "three-handed, three-handed-20, classic, eaai, oklahoma, hollywood, "
        "three-handed-hollywood"
    )
    with pytest.raises(ValueError) as exc:
        Rules.preset(bad)
    assert str(exc.value) == msg


def test_unknown_preset_non_string() -> None:
    with pytest.raises(ValueError, match="unknown rules preset 3"):
        Rules.preset(3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- validation


def test_knock_limit_message_exact() -> None:
    with pytest.raises(ValueError) as exc:
        Rules(knock_limit=11)
    assert str(exc.value) == "knock_limit=11 is out of range: expected an integer 0..10"


OUT_OF_RANGE = [
    ("players", 1, r"players=1 is out of range: expected 2 or 3"),
    ("players", 4, r"players=4 is out of range: expected 2 or 3"),
    ("gin_bonus", -1, r"gin_bonus=-1 is out of range: expected an integer 0\.\.1000"),
    ("undercut_bonus", -5, r"undercut_bonus=-5 is out of range: expected an integer 0\.\.1000"),
    ("knock_limit", -1, r"knock_limit=-1 is out of range: expected an integer 0\.\.10"),
    ("knock_limit", 11, r"knock_limit=11 is out of range: expected an integer 0\.\.10"),
    ("target", 0, r"target=0 is out of range: expected an integer 1\.\.10000"),
    ("target", -100, r"target=-100 is out of range: expected an integer 1\.\.10000"),
    ("wall", -1, r"wall=-1 is out of range: expected an integer 0\.\.29"),
    ("wall", 30, r"wall=30 is out of range: expected an integer 0\.\.29"),
    ("max_turns", 0, r"max_turns=0 is out of range: expected an integer 1\.\.10000"),
    ("hand_bonus", -1, r"hand_bonus=-1 is out of range: expected an integer 0\.\.1000"),
    ("game_bonus", -1, r"game_bonus=-1 is out of range: expected an integer 0\.\.1000"),
    ("shutout_bonus", -1, r"shutout_bonus=-1 is out of range: expected an integer 0\.\.1000"),
]


@pytest.mark.parametrize(("field", "value", "pattern"), OUT_OF_RANGE)
def test_out_of_range(field: str, value: int, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        Rules(**{field: value})


INT_FIELDS = [
    "players",
    "gin_bonus",
    "undercut_bonus",
    "knock_limit",
    "target",
    "wall",
    "max_turns",
    "hand_bonus",
    "game_bonus",
    "shutout_bonus",
]


@pytest.mark.parametrize("field", INT_FIELDS)
@pytest.mark.parametrize("value", [True, False, 2.0, "2", None])
def test_int_fields_reject_wrong_types(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf"^{field}={value!r} is not valid: expected "):
        Rules(**{field: value})


BOOL_FIELDS = ["forbid_taken_discard", "oklahoma", "spade_doubling"]


@pytest.mark.parametrize("field", BOOL_FIELDS)
@pytest.mark.parametrize("value", [0, 1, "yes", "true", None])
def test_bool_fields_reject_wrong_types(field: str, value: object) -> None:
    pattern = rf"^{field}={value!r} is not valid: expected true or false$"
    with pytest.raises(ValueError, match=pattern):
        Rules(**{field: value})


@pytest.mark.parametrize("value", ["boss", "Captain", "", 1, None])
def test_team_policy_rejects_unknown(value: object) -> None:
    pattern = rf"^team_policy={value!r} is not valid: expected one of captain, advisor, consensus$"
    with pytest.raises(ValueError, match=pattern):
        Rules(team_policy=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["", "   ", 3, None])
def test_name_must_be_non_empty_string(value: object) -> None:
    with pytest.raises(ValueError, match=r"^name=.* is not valid: expected a non-empty string$"):
        Rules(name=value)  # type: ignore[arg-type]


def test_name_is_free_text() -> None:
    assert Rules(name="my variant 2").name == "my variant 2"


@pytest.mark.parametrize(
    ("players", "roles"),
    [
        (3, (0, 1)),  # wrong length
        (3, (0, 1, 2, 3)),
        (3, (0, 1, 1)),  # not a permutation
        (3, (1, 2, 3)),
        (3, (0, -1, 2)),
        (2, (0, 1, 2)),
        (2, (1, 1)),
        (2, (0,)),
        (3, ()),
        (3, (0, True, 2)),  # bool is not a seat
        (3, (0.0, 1, 2)),
        (3, "012"),
        (3, {0, 1, 2}),
        (3, 0),
    ],
)
def test_bad_initial_roles(players: int, roles: object) -> None:
    pattern = (
        rf"^initial_roles=.* is not valid: expected None or a permutation of .*players={players}$"
    )
    with pytest.raises(ValueError, match=pattern):
        Rules(players=players, initial_roles=roles)  # type: ignore[arg-type]


def test_bad_initial_roles_message_explains_meaning() -> None:
    with pytest.raises(ValueError) as exc:
        Rules(initial_roles=(0, 0, 1))
    assert str(exc.value) == (
        "initial_roles=(0, 0, 1) is not valid: expected None or a permutation of (0, 1, 2) "
        "giving the seats (box, captain, sitter) for players=3"
    )
    with pytest.raises(ValueError, match=r"\(dealer, non-dealer\) for players=2"):
        Rules(players=2, initial_roles=(0, 2))


def test_initial_roles_list_is_normalised_to_tuple() -> None:
    rules = Rules(initial_roles=[2, 0, 1])
    assert rules.initial_roles == (2, 0, 1)
    assert isinstance(rules.initial_roles, tuple)
    assert rules == Rules(initial_roles=(2, 0, 1))
    assert hash(rules) == hash(Rules(initial_roles=(2, 0, 1)))
    assert Rules(players=2, initial_roles=[1, 0]).initial_roles == (1, 0)


def test_numpy_scalars_are_normalised() -> None:
    rules = Rules(
        knock_limit=np.int64(7), oklahoma=np.bool_(True), initial_roles=list(np.arange(3)[::-1])
    )
    assert rules.knock_limit == 7 and type(rules.knock_limit) is int
    assert rules.oklahoma is True
    assert rules.initial_roles == (2, 1, 0)
    json.dumps(rules.to_dict())


def test_boundary_values_are_accepted() -> None:
    rules = Rules(
        players=2,
        gin_bonus=0,
        undercut_bonus=0,
        knock_limit=0,
        target=1,
        wall=29,
        max_turns=1,
    )
    assert (rules.knock_limit, rules.wall, rules.target, rules.max_turns) == (0, 29, 1, 1)
    assert Rules(wall=0).wall == 0
    assert Rules(team_policy="advisor").team_policy == "advisor"
    consensus = Rules(team_policy="consensus").to_array()
    assert (consensus[RI_TEAM_ADVISOR], consensus[RI_TEAM_CONSENSUS]) == (0, 1)


def test_advisor_needs_three_players() -> None:
    with pytest.raises(ValueError, match=r"^team_policy='advisor' needs players=3"):
        Rules(players=2, team_policy="advisor")


# ---------------------------------------------------------------------- immutability


def test_frozen() -> None:
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.knock_limit = 5  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        rules.extra = 1  # type: ignore[attr-defined]
    assert rules.knock_limit == 10


def test_hashable_and_equal_by_value() -> None:
    assert {Rules(), Rules.preset("three-handed"), Rules(gin_bonus=20)} == {
        Rules(),
        Rules(gin_bonus=20),
    }


# ---------------------------------------------------------------------- replace


def test_replace_returns_validated_copy() -> None:
    base = Rules()
    changed = base.replace(gin_bonus=20, name="three-handed-20")
    assert changed == Rules.preset("three-handed-20")
    assert base.gin_bonus == 25
    assert base.replace() == base


def test_replace_validates_values() -> None:
    with pytest.raises(ValueError, match=r"^knock_limit=11 is out of range"):
        Rules().replace(knock_limit=11)
    # players and initial_roles are checked together
    with pytest.raises(ValueError, match=r"^initial_roles=\(0, 1, 2\) is not valid"):
        Rules(initial_roles=(0, 1, 2)).replace(players=2)


def test_replace_unknown_field() -> None:
    with pytest.raises(ValueError) as exc:
        Rules().replace(gin=20)
    assert str(exc.value) == (
        "gin is not a rules field: expected one of name, players, gin_bonus, undercut_bonus, "
        "knock_limit, target, wall, max_turns, forbid_taken_discard, oklahoma, spade_doubling, "
        "team_policy, initial_roles, hand_bonus, game_bonus, shutout_bonus, scoring, "
        "shutout_doubling, showdown"
    )


# ---------------------------------------------------------------------- to_dict / from_dict


@pytest.mark.parametrize("name", PRESETS)
def test_dict_round_trip_presets(name: str) -> None:
    rules = Rules.preset(name)
    d = rules.to_dict()
    assert Rules.from_dict(d) == rules
    assert Rules.from_dict(json.loads(json.dumps(d))) == rules


def test_to_dict_initial_roles_is_list() -> None:
    d = Rules(initial_roles=(1, 2, 0)).to_dict()
    assert d["initial_roles"] == [1, 2, 0]
    assert Rules.from_dict(d).initial_roles == (1, 2, 0)
    assert Rules().to_dict()["initial_roles"] is None


def test_from_dict_preset_is_base() -> None:
    rules = Rules.from_dict({"preset": "classic", "target": 250})
    assert rules == Rules.preset("classic").replace(target=250)
    assert rules.players == 2 and rules.hand_bonus == 20
    assert Rules.from_dict({"preset": "EAAI"}) == Rules.preset("eaai")
    assert Rules.from_dict({}) == Rules()
    assert Rules.from_dict({"knock_limit": 7}) == Rules(knock_limit=7)


def test_from_dict_does_not_modify_input() -> None:
    d = {"preset": "oklahoma", "wall": 0}
    Rules.from_dict(d)
    assert d == {"preset": "oklahoma", "wall": 0}


def test_from_dict_unknown_keys() -> None:
    pattern = r"^gin is not a rules field: expected one of name, players, "
    with pytest.raises(ValueError, match=pattern):
        Rules.from_dict({"gin": 20, "knock": 5, "target": 50})


def test_from_dict_bad_preset_and_values() -> None:
    with pytest.raises(ValueError, match=r"^unknown rules preset 'foo'"):
        Rules.from_dict({"preset": "foo"})
    with pytest.raises(ValueError, match=r"^target=0 is out of range"):
        Rules.from_dict({"preset": "classic", "target": 0})


def test_from_dict_not_a_mapping() -> None:
    with pytest.raises(ValueError, match="rules must be a mapping"):
        Rules.from_dict([("gin_bonus", 20)])  # type: ignore[arg-type]


# ---------------------------------------------------------------------- the one resolver


def test_resolve_is_a_preset_with_overrides() -> None:
    assert Rules.resolve() == Rules()
    assert Rules.resolve("EAAI") == Rules.preset("eaai")
    assert Rules.resolve("classic", {"target": 250}) == Rules.preset("classic").replace(target=250)
    base = Rules.preset("oklahoma")
    assert Rules.resolve(base, {}) is base and Rules.resolve(base) is base
    assert Rules.resolve(None, {"team_policy": "advisor"}).team_policy == "advisor"


@pytest.mark.parametrize(("preset", "overrides", "where", "message"), [
    ("texas", None, "", "unknown rules preset 'texas': expected one of three-handed, "
     "three-handed-20, classic, eaai, oklahoma, hollywood, three-handed-hollywood"),
    ("eaai", {"gin": 20}, "--set ", "--set gin is not a rules field: expected one of name, "
     "players, gin_bonus, "),
    ("eaai", {"gin_bonus": -1}, "overrides.", "overrides.gin_bonus=-1 is out of range: "
     "expected an integer 0..1000"),
    ("eaai", {"team_policy": "advisor"}, "", "team_policy='advisor' needs players=3"),
    ("eaai", [("gin_bonus", 1)], "", "overrides=[('gin_bonus', 1)] is not valid: expected a "
     "table of rules fields"),
])
def test_resolve_gives_one_line_naming_the_field(preset: str, overrides: object, where: str,
                                                 message: str) -> None:
    with pytest.raises(ValueError) as exc:
        Rules.resolve(preset, overrides, where=where)  # type: ignore[arg-type]
    assert str(exc.value).startswith(message) and "\n" not in str(exc.value)


def test_resolve_refuses_initial_roles_only_when_told_why() -> None:
    assert Rules.resolve("eaai", {"initial_roles": [1, 0]}).initial_roles == (1, 0)
    with pytest.raises(ValueError) as exc:
        Rules.resolve("eaai", {"initial_roles": [1, 0]}, where="--set ", roles="use a seating")
    assert str(exc.value) == "--set initial_roles is not accepted: use a seating"
    with pytest.raises(ValueError, match="^colour is not a rules field") as exc:
        Rules.resolve("eaai", {"colour": 1}, roles="use a seating")
    assert "initial_roles" not in str(exc.value)  # not offered where it is refused


def test_presets_are_the_keys_of_one_table() -> None:
    assert PRESETS == tuple(rules_mod._PRESET_OVERRIDES)
    assert [Rules.preset(p).name for p in PRESETS] == list(PRESETS)


@given(st.integers(min_value=0, max_value=10))
def test_any_valid_knock_limit_round_trips(k: int) -> None:
    rules = Rules(knock_limit=k)
    assert rules.knock_limit == k
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules().replace(knock_limit=k) == rules
    assert rules.to_array()[RI_KNOCK_LIMIT] == k
    assert rules.hand_knock_limit(7) == k


@given(st.integers().filter(lambda k: not 0 <= k <= 10))
def test_any_invalid_knock_limit_is_rejected(k: int) -> None:
    with pytest.raises(ValueError, match=rf"^knock_limit={k} is out of range"):
        Rules(knock_limit=k)


@given(
    players=st.sampled_from([2, 3]),
    gin=st.integers(0, 1000),
    undercut=st.integers(0, 1000),
    target=st.integers(1, 10_000),
    wall=st.integers(0, 29),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
    policy=st.sampled_from(["captain", "advisor"]),
    bonuses=st.tuples(st.integers(0, 500), st.integers(0, 500), st.integers(0, 500)),
    data=st.data(),
)
def test_any_valid_rules_round_trip(
    players: int,
    gin: int,
    undercut: int,
    target: int,
    wall: int,
    flags: tuple[bool, bool, bool],
    policy: str,
    bonuses: tuple[int, int, int],
    data: st.DataObject,
) -> None:
    roles = data.draw(st.none() | st.permutations(list(range(players))).map(tuple))
    rules = Rules(
        players=players,
        gin_bonus=gin,
        undercut_bonus=undercut,
        target=target,
        wall=wall,
        forbid_taken_discard=flags[0],
        oklahoma=flags[1],
        spade_doubling=flags[2],
        team_policy=policy if players == 3 else "captain",
        initial_roles=roles,
        hand_bonus=bonuses[0],
        game_bonus=bonuses[1],
        shutout_bonus=bonuses[2],
    )
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert Rules().replace(**{k: v for k, v in rules.to_dict().items()}) == rules
    arr = rules.to_array()
    assert arr[RI_PLAYERS] == players
    assert arr[RI_TEAM_ADVISOR] == (policy == "advisor" and players == 3)
    expected_roles = [-1, -1, -1] if roles is None else list(roles) + [-1] * (3 - players)
    assert arr[RI_INITIAL_ROLES : RI_INITIAL_ROLES + 3].tolist() == expected_roles


# ---------------------------------------------------------------------- hand_knock_limit


@pytest.mark.parametrize(
    ("oklahoma", "knock_limit", "upcard_value", "expected"),
    [
        (False, 10, 1, 10),  # ace
        (False, 10, 5, 10),
        (False, 10, 10, 10),  # king
        (False, 7, 1, 7),
        (False, 7, 5, 7),
        (False, 7, 10, 7),
        (True, 10, 1, 0),  # ace: gin only
        (True, 10, 5, 5),
        (True, 10, 10, 10),  # king (face card value 10)
        (True, 10, 2, 2),
        (True, 10, 9, 9),
    ],
)
def test_hand_knock_limit(
    oklahoma: bool, knock_limit: int, upcard_value: int, expected: int
) -> None:
    rules = Rules(oklahoma=oklahoma, knock_limit=knock_limit)
    assert rules.hand_knock_limit(upcard_value) == expected


def test_hand_knock_limit_oklahoma_preset() -> None:
    rules = Rules.preset("oklahoma")
    assert [rules.hand_knock_limit(v) for v in range(1, 11)] == [0, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert rules.hand_knock_limit(np.int64(4)) == 4
    assert type(rules.hand_knock_limit(np.int64(4))) is int


@pytest.mark.parametrize("value", [0, 11, 13, -1])
def test_hand_knock_limit_out_of_range(value: int) -> None:
    pattern = rf"^upcard_value={value} is out of range: expected an integer 1\.\.10$"
    with pytest.raises(ValueError, match=pattern):
        Rules().hand_knock_limit(value)


@pytest.mark.parametrize("value", [True, 5.0, "5", None])
def test_hand_knock_limit_wrong_type(value: object) -> None:
    pattern = r"^upcard_value=.* is not valid: expected an integer 1\.\.10$"
    with pytest.raises(ValueError, match=pattern):
        Rules().hand_knock_limit(value)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- to_array


def test_array_index_constants() -> None:
    assert (
        RI_PLAYERS,
        RI_GIN_BONUS,
        RI_UNDERCUT_BONUS,
        RI_KNOCK_LIMIT,
        RI_TARGET,
        RI_WALL,
        RI_MAX_TURNS,
        RI_FORBID_TAKEN_DISCARD,
        RI_OKLAHOMA,
        RI_SPADE_DOUBLING,
        RI_TEAM_ADVISOR,
        RI_HAND_BONUS,
        RI_GAME_BONUS,
        RI_SHUTOUT_BONUS,
        RI_INITIAL_ROLES,
        RI_HOLLYWOOD,
        RI_SHUTOUT_DOUBLING,
        RI_TEAM_CONSENSUS,
        RI_SHOWDOWN_EAAI,
        RULES_ARRAY_LEN,
    ) == tuple(range(15)) + (17, 18, 19, 20, 21)


def test_to_array_defaults() -> None:
    arr = Rules().to_array()
    assert arr.dtype == np.int64
    assert arr.shape == (RULES_ARRAY_LEN,)
    assert arr.tolist() == [3, 25, 10, 10, 100, 2, 400, 1, 0, 0, 0, 0, 0, 0, -1, -1, -1,
                            0, 0, 0, 0]


def test_to_array_classic() -> None:
    arr = Rules.preset("classic").to_array()
    assert arr.tolist() == [2, 20, 10, 10, 100, 2, 400, 1, 0, 0, 0, 20, 100, 100, -1, -1,
                            -1, 0, 0, 0, 0]


def test_to_array_every_slot() -> None:
    rules = Rules(
        players=3,
        gin_bonus=31,
        undercut_bonus=17,
        knock_limit=6,
        target=250,
        wall=4,
        max_turns=999,
        forbid_taken_discard=False,
        oklahoma=True,
        spade_doubling=True,
        team_policy="advisor",
        initial_roles=(2, 0, 1),
        hand_bonus=20,
        game_bonus=100,
        shutout_bonus=50,
        scoring="hollywood",
        shutout_doubling=True,
        showdown="eaai",
    )
    arr = rules.to_array()
    assert arr[RI_PLAYERS] == 3
    assert arr[RI_GIN_BONUS] == 31
    assert arr[RI_UNDERCUT_BONUS] == 17
    assert arr[RI_KNOCK_LIMIT] == 6
    assert arr[RI_TARGET] == 250
    assert arr[RI_WALL] == 4
    assert arr[RI_MAX_TURNS] == 999
    assert arr[RI_FORBID_TAKEN_DISCARD] == 0
    assert arr[RI_OKLAHOMA] == 1
    assert arr[RI_SPADE_DOUBLING] == 1
    assert arr[RI_TEAM_ADVISOR] == 1
    assert arr[RI_HAND_BONUS] == 20
    assert arr[RI_GAME_BONUS] == 100
    assert arr[RI_SHUTOUT_BONUS] == 50
    assert arr[RI_INITIAL_ROLES : RI_INITIAL_ROLES + 3].tolist() == [2, 0, 1]
    assert arr[RI_HOLLYWOOD] == 1
    assert arr[RI_SHUTOUT_DOUBLING] == 1
    assert arr[RI_TEAM_CONSENSUS] == 0  # advisor here; consensus has its own test
    assert arr[RI_SHOWDOWN_EAAI] == 1


def test_to_array_two_player_roles() -> None:
    arr = Rules(players=2, initial_roles=(1, 0)).to_array()
    assert arr[RI_INITIAL_ROLES : RI_INITIAL_ROLES + 3].tolist() == [1, 0, -1]


def test_to_array_is_a_fresh_copy() -> None:
    rules = Rules()
    arr = rules.to_array()
    arr[RI_KNOCK_LIMIT] = 0
    assert rules.to_array()[RI_KNOCK_LIMIT] == 10


def test_module_exports_documented_in_docstring() -> None:
    doc = rules_mod.__doc__ or ""
    for name in dir(rules_mod):
        if name.startswith("RI_"):
            assert f"``{name}``" in doc
    assert Rules.__doc__ is not None
    for f in dataclasses.fields(Rules):
        assert f"``{f.name}``" in Rules.__doc__


# ---------------------------------------------------------------------- upper bounds

#: Every integer field with its accepted range: each has an upper bound, so no value can make a
#: game endless (``target``), overflow the int64 scores (the bonuses) or the rules array.
RANGES = {
    "players": (2, 3),
    "gin_bonus": (0, 1000),
    "undercut_bonus": (0, 1000),
    "knock_limit": (0, 10),
    "target": (1, 10_000),
    "wall": (0, 29),
    "max_turns": (1, 10_000),
    "hand_bonus": (0, 1000),
    "game_bonus": (0, 1000),
    "shutout_bonus": (0, 1000),
}


def test_every_int_field_has_a_documented_range() -> None:
    assert sorted(RANGES) == sorted(INT_FIELDS)
    assert {name: (lo, hi) for name, lo, hi, _ in rules_mod.INT_RANGES} == RANGES


@pytest.mark.parametrize("field", sorted(RANGES))
@pytest.mark.parametrize("excess", [1, 2**63 - 1, 2**63, 10**30])
def test_int_fields_refuse_values_above_their_range(field: str, excess: int) -> None:
    lo, hi = RANGES[field]
    bad = hi + 1 if excess == 1 else excess
    accepted = "2 or 3" if field == "players" else f"an integer {lo}..{hi}"
    with pytest.raises(ValueError) as exc:
        Rules(**{field: bad})
    assert str(exc.value) == f"{field}={bad} is out of range: expected {accepted}"
    assert getattr(Rules(**{field: hi}), field) == hi
    with pytest.raises(ValueError, match=rf"^{field}="):
        Rules.from_dict({field: bad})


def test_numpy_int64_extremes_are_refused_not_wrapped() -> None:
    with pytest.raises(ValueError, match=r"^gin_bonus=9223372036854775807 is out of range"):
        Rules(gin_bonus=np.int64(2**63 - 1))
