"""Checks that every view a strategy is shown is right and hygienic.

Each recorded view is matched to the true state the referee replays from the hand log in plain
Python (``support.referee``): the right seat was asked, and **every** field, of the Python
``View`` as of the compiled view array (``V_*``, what the built-in strategies read), equals the
value computed here from that replayed state, with deadwood from the brute-force oracle. A
field added to either later fails the check until it is given an expected value here. No
hidden card (the opponent's unseen cards, the stock) may appear in any card or mask field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from sim.engine.cards import card_str, mask_cards
from sim.engine.rules import Rules
from sim.engine.view import V_LAYOUT, View
from support.decks import mask
from support.hollywood import HollywoodSheet
from support.oracle import min_deadwood_of_mask
from support.referee import Point, deadwood_after, referee_game

#: View fields holding one card code (or None).
CARD_FIELDS = ("opponent_declined", "self_declined", "drawn", "taken", "upcard", "forbidden")
#: Decision names in the order of the engine's DEC_* codes (docs/strategies.md).
DECISIONS = ("offer", "draw", "knock", "discard")
#: View-array fields holding a mask of cards, and one card (or -1).
ARRAY_MASKS = ("HAND", "OPP_TOOK", "OPP_DISCARDED", "SELF_TOOK", "SELF_DISCARDED", "PILE_MASK")
ARRAY_CARDS = ("TOP", "OPP_DECLINED", "SELF_DECLINED", "DRAWN", "TAKEN", "UPCARD", "FORBIDDEN")
#: View fields that are tuples of numbers but not cards (Hollywood's per-game facts).
NOT_CARDS = ("game_scores", "opponent_game_scores", "other_game_scores", "games_open")
#: Every slot of the view array by name: ``V_NAME``, and ``V_NAME+k`` for slot k > 0 of a
#: piece with several (the three Hollywood games).
OFFSET = {name + ("" if k == 0 else f"+{k}"): at + k
          for name, at in zip(V_LAYOUT.names, V_LAYOUT.offsets, strict=True)
          for k in range(V_LAYOUT.size(name))}


def view_cards(view: View) -> set[int]:
    """Every card a view mentions, found generically over all its fields.

    Tuples of ints are card lists; ``deadwood_after`` keys are cards; the scalar card fields are
    listed in ``CARD_FIELDS``. A field added to View later is still scanned if it is a sequence.
    """
    out: set[int] = set()
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if f.name in NOT_CARDS:
            continue
        if f.name in CARD_FIELDS:
            if value is not None:
                out.add(int(value))
        elif isinstance(value, tuple | list | set | frozenset):
            out.update(int(c) for c in value if isinstance(c, int | np.integer))
        elif isinstance(value, dict):
            out.update(int(c) for c in value)
    return out


def _or_none(card: int | None) -> int:
    return -1 if card is None else card


def own_deadwood(pt: Point) -> int:
    """The mover's least deadwood before this turn's draw (the oracle's, of his 10 cards)."""
    return min_deadwood_of_mask(mask(pt.hands[pt.player] - {pt.drawn}))


def forbidden_card(pt: Point, rules: Rules) -> int | None:
    """The card the mover may not discard now: the one just taken from the pile, if the rule
    is on."""
    return pt.taken if rules.forbid_taken_discard else None


def secret_cards(pt: Point) -> set[int]:
    """What the mover may not know: the opponent's cards not taken from the pile, the stock."""
    o = 1 - pt.player
    return (set(pt.hands[o]) - set(pt.took[o])) | set(pt.stock)


def hollywood_view(sheet: HollywoodSheet | None, pt: Point,
                   roles: Sequence[int | None]) -> dict[str, Any]:
    """The View's Hollywood fields: from the referee's sheet, or empty under standard scoring."""
    if sheet is None:
        return {"hollywood": False, "game_scores": (), "opponent_game_scores": (),
                "other_game_scores": (), "games_open": (), "games_opened": 0,
                "opponent_games_opened": 0, "other_games_opened": 0}
    return sheet.view_fields(roles[pt.player], roles[1 - pt.player],  # type: ignore[arg-type]
                             roles[2])


def _no_endings(rules: Rules) -> list[tuple[int, int, int]]:
    return [(0, 0, 0)] * rules.players


def ended(endings: list[tuple[int, int, int]], result: Mapping[str, Any]) -> None:
    """Count a hand's knock or gin into ``endings`` (by seat), from its logged result."""
    seat = result["knocker"]
    if seat is None or result["end"] not in ("knock", "gin", "undercut"):
        return
    knocks, gins, most = endings[seat]
    if result["end"] == "gin":
        endings[seat] = (knocks, gins + 1, most)
    else:
        endings[seat] = (knocks + 1, gins, max(most, result["knocker_deadwood"]))


def check_view(view: View, pt: Point, rules: Rules, scores: Sequence[int],
               roles: Sequence[int | None], sheet: HollywoodSheet | None = None,
               endings: Sequence[tuple[int, int, int]] | None = None) -> None:
    """The view of hand player ``pt.player`` shows exactly the facts it may see, and no hidden
    card: nothing the opponent holds that he did not take from the pile, no stock card.
    ``endings``: each seat's (knocks, gins, most deadwood knocked with) before the hand."""
    endings = _no_endings(rules) if endings is None else endings
    p, o = pt.player, 1 - pt.player
    leaked = view_cards(view) & secret_cards(pt)
    assert not leaked, f"the view shows hidden cards {[card_str(c) for c in leaked]}"
    if pt.decision in ("knock", "discard"):
        legal = [c for c in pt.hands[p] if c != forbidden_card(pt, rules)]
        after = {c: deadwood_after(pt.hands[p], c) for c in legal}
    else:
        after = {}
    expect = {
        "decision": pt.decision,
        "hand": tuple(sorted(pt.hands[p])),
        "role": ("dealer", "nondealer")[p],
        "stock_count": len(pt.stock),
        "turn": pt.turn,
        "discard_pile": pt.pile,
        "opponent_took": tuple(sorted(pt.took[o])),
        "opponent_discarded": tuple(sorted(pt.discarded[o])),
        "opponent_declined": pt.declined[o],
        "self_declined": pt.declined[p],
        "self_took": tuple(sorted(pt.took[p])),
        "self_discarded": tuple(sorted(pt.discarded[p])),
        "drawn": pt.drawn,
        "taken": pt.taken,
        "knock_limit": pt.knock_limit,
        "upcard": pt.upcard,
        "knocked": pt.knocked,
        "score": scores[roles[p]],
        "opponent_score": scores[roles[o]],
        "other_score": scores[roles[2]] if rules.players == 3 else 0,
        "target": rules.target,
        "wall": rules.wall,
        "gin_bonus": rules.gin_bonus,
        "undercut_bonus": rules.undercut_bonus,
        "deadwood": own_deadwood(pt),
        "deadwood_after": after,
        "forbidden": forbidden_card(pt, rules),
        **hollywood_view(sheet, pt, roles),
        "players": rules.players,
        "opponent_knocks": endings[roles[o]][0],
        "opponent_gins": endings[roles[o]][1],
        "opponent_knock_deadwood": endings[roles[o]][2],
    }
    fields = {f.name for f in dataclasses.fields(view)} - {"rng"}
    assert fields == set(expect), f"View fields without an expected value: {fields - set(expect)}"
    got = {k: getattr(view, k) for k in expect}
    assert got == expect, {k: (got[k], expect[k]) for k in expect if got[k] != expect[k]}
    want_legal = sorted(c for c in after if not pt.knocked or after[c] <= pt.knock_limit)
    assert view.legal_discards == want_legal


def expected_view_array(pt: Point, rules: Rules, scores: Sequence[int],
                        roles: Sequence[int | None], sheet: HollywoodSheet | None = None,
                        endings: Sequence[tuple[int, int, int]] | None = None) -> dict[str, int]:
    """Every field of the compiled view array (by ``V_`` name) as the rules and the replayed
    state give it."""
    endings = _no_endings(rules) if endings is None else endings
    p, o = pt.player, 1 - pt.player
    hw = hollywood_view(sheet, pt, roles)
    three = {"GAME_SCORE_SELF": "game_scores", "GAME_SCORE_OPP": "opponent_game_scores",
             "GAME_SCORE_OTHER": "other_game_scores", "GAME_OPEN": "games_open"}
    hollywood = {f"V_{name}{'' if k == 0 else '+' + str(k)}":
                 int(hw[key][k]) if hw["hollywood"] else 0
                 for name, key in three.items() for k in range(3)}
    hollywood.update({"V_HOLLYWOOD": int(hw["hollywood"]),
                      "V_OPENED_SELF": hw["games_opened"],
                      "V_OPENED_OPP": hw["opponent_games_opened"],
                      "V_OPENED_OTHER": hw["other_games_opened"]})
    return hollywood | {
        "V_HAND": mask(pt.hands[p]),
        "V_ROLE": p,
        "V_DECISION": DECISIONS.index(pt.decision),
        "V_STOCK": len(pt.stock),
        "V_TURN": pt.turn,
        "V_PILE_LEN": len(pt.pile),
        "V_TOP": pt.pile[-1] if pt.pile else -1,
        "V_OPP_TOOK": mask(pt.took[o]),
        "V_OPP_DISCARDED": mask(pt.discarded[o]),
        "V_OPP_DECLINED": _or_none(pt.declined[o]),
        "V_SELF_DECLINED": _or_none(pt.declined[p]),
        "V_SELF_TOOK": mask(pt.took[p]),
        "V_DRAWN": _or_none(pt.drawn),
        "V_TAKEN": _or_none(pt.taken),
        "V_KNOCK_LIMIT": pt.knock_limit,
        "V_UPCARD": pt.upcard,
        "V_SCORE_SELF": scores[roles[p]],
        "V_SCORE_OPP": scores[roles[o]],
        "V_SCORE_OTHER": scores[roles[2]] if rules.players == 3 else 0,
        "V_TARGET": rules.target,
        "V_WALL": rules.wall,
        "V_GIN_BONUS": rules.gin_bonus,
        "V_UNDERCUT_BONUS": rules.undercut_bonus,
        "V_SELF_DISCARDED": mask(pt.discarded[p]),
        "V_KNOCKED": int(pt.knocked),
        "V_DEADWOOD": own_deadwood(pt),
        "V_FORBIDDEN": _or_none(forbidden_card(pt, rules)),
        "V_PILE_MASK": mask(pt.pile),
        "V_PLAYERS": rules.players,
        "V_OPP_KNOCKS": endings[roles[o]][0],
        "V_OPP_GINS": endings[roles[o]][1],
        "V_OPP_KNOCK_DEADWOOD": endings[roles[o]][2],
    }


def check_view_array(view: np.ndarray, pt: Point, rules: Rules, scores: Sequence[int],
                     roles: Sequence[int | None], sheet: HollywoodSheet | None = None,
                     endings: Sequence[tuple[int, int, int]] | None = None) -> None:
    """Every field of a compiled view array equals its expected value, and no card or mask
    field names a hidden card."""
    expect = expected_view_array(pt, rules, scores, roles, sheet, endings)
    assert set(expect) == set(OFFSET), (
        f"view-array fields without an expected value: {set(OFFSET) - set(expect)}")
    assert view.shape == (V_LAYOUT.length,), f"view array of shape {view.shape}"
    got = {name: int(view[OFFSET[name]]) for name in expect}
    assert got == expect, {k: (got[k], expect[k]) for k in expect if got[k] != expect[k]}
    secret = secret_cards(pt)
    for name in ARRAY_MASKS:
        shown = set(mask_cards(got["V_" + name])) & secret
        assert not shown, f"V_{name} shows hidden cards {[card_str(c) for c in shown]}"
    for name in ARRAY_CARDS:
        assert got["V_" + name] not in secret, f"V_{name} is a hidden card"


class ArraySpy:
    """Records the view array every compiled strategy of a ``GameDriver`` is handed.

    Install with :meth:`install` (a monkeypatch of the step's ``decide``): each call appends
    ``(seat, copy of the view array)`` to ``calls``, which may be shared with
    ``SpyStrategy`` seats so the calls stay in the order of the game. Pass :meth:`on_decision`
    as the driver's ``on_decision`` so the seat is known: the game reports each decision
    before the step asks the built-in, which names the seat of the call that follows.
    """

    def __init__(self, calls: list[tuple[int, Any]]) -> None:
        self.calls = calls
        self.seat: int | None = None  # the seat of the decision reported last

    def on_decision(self, seat: int, hand_player: int, decision: int, advised: bool) -> None:
        self.seat = seat

    def wrap(self, decide: Callable[..., int]) -> Callable[..., int]:
        """``decide`` that first records the view array it is given, with its seat."""
        def spied(strategy_id: int, decision: int, params: np.ndarray, view: np.ndarray,
                  *rest: Any) -> int:
            assert self.seat is not None, "pass ArraySpy.on_decision to the GameDriver"
            self.calls.append((self.seat, view.copy()))
            self.seat = None
            return decide(strategy_id, decision, params, view, *rest)
        return spied

    def install(self, monkeypatch: Any) -> None:
        """Spy on the compiled strategies of every ``GameDriver`` until the test ends."""
        import sim.play.step as step_mod
        python_step(monkeypatch)
        monkeypatch.setattr(step_mod, "decide", self.wrap(step_mod.decide))


def python_step(monkeypatch: Any) -> None:
    """Make every ``GameState`` (so ``GameDriver``) run the seat step
    (``sim.play.step.seat_move``, and the hand loop over it, ``sim.play.loop.play_hand``) as
    Python, so the engine pieces and the dispatcher it calls can be spied on or broken by
    monkeypatching ``sim.play.step`` (the compiled step has them built in)."""
    import sim.play.loop as loop_mod
    import sim.play.state as state_mod
    import sim.play.step as step_mod
    seat_move = getattr(step_mod.seat_move, "py_func", step_mod.seat_move)  # once per test
    monkeypatch.setattr(step_mod, "seat_move", seat_move)
    monkeypatch.setattr(state_mod, "seat_move", seat_move)
    monkeypatch.setattr(loop_mod, "seat_move", seat_move)
    monkeypatch.setattr(state_mod, "play_hand", getattr(loop_mod.play_hand, "py_func",
                                                        loop_mod.play_hand))


def check_views(records: Sequence[dict[str, Any]],
                calls: Sequence[tuple[int, View | np.ndarray]],
                rules: Rules, spied: Iterable[int] | None = None) -> int:
    """Match every (seat, View or view array) a strategy was asked about to the true state
    replayed from the log: the right seat decided (the advisor for the captain under
    ``team_policy='advisor'``), nothing else was asked (not the forced draw), and every view is
    right and hygienic.

    ``spied`` lists the seats whose views were recorded (default: all). Returns the number of
    views checked.
    """
    spied_seats = set(range(rules.players)) if spied is None else set(spied)
    games: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        games.setdefault(r["game"], []).append(r)
    i = 0
    for recs in games.values():
        scores = [0] * rules.players
        endings = _no_endings(rules)
        for ref in referee_game(recs, rules):
            r = ref.rec
            roles = (r["dealer"], r["nondealer"], r["sitter"])
            for pt in ref.points:
                advised = rules.team_policy == "advisor" and rules.players == 3
                decider = roles[2] if advised and pt.player == 1 else roles[pt.player]
                if decider not in spied_seats:
                    continue
                assert i < len(calls), "fewer decisions were asked than the log implies"
                seat, view = calls[i]
                i += 1
                assert seat == decider, (
                    f"game {r['game']} hand {r['hand']}: seat {seat} was asked {pt.decision} "
                    f"for hand player {pt.player}, expected seat {decider}"
                )
                sheet = ref.sheet_before
                shown = scores if sheet is None else sheet.first_open_scores()
                if isinstance(view, View):
                    check_view(view, pt, rules, shown, roles, sheet, endings)
                else:
                    check_view_array(view, pt, rules, shown, roles, sheet, endings)
            scores = list(r["scores"])
            ended(endings, r["result"])
    assert i == len(calls), f"{len(calls) - i} decisions asked beyond those of the log"
    return i
