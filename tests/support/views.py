"""Checks that every view a strategy is shown is right and hygienic.

Each recorded (seat, View) is matched to the true state the referee replays from the hand log:
the right seat was asked, every field is right, and no hidden card (the opponent's unseen cards,
the stock) leaks through any field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from sim.engine.cards import card_str
from sim.engine.melds import min_deadwood_mask
from sim.engine.rules import Rules
from sim.engine.view import View
from support.decks import mask
from support.referee import Point, deadwood_after, referee_game

#: View fields holding one card code (or None).
CARD_FIELDS = ("opponent_declined", "self_declined", "drawn", "taken", "upcard")


def view_cards(view: View) -> set[int]:
    """Every card a view mentions, found generically over all its fields.

    Tuples of ints are card lists; ``deadwood_after`` keys are cards; the scalar card fields are
    listed in ``CARD_FIELDS``. A field added to View later is still scanned if it is a sequence.
    """
    out: set[int] = set()
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if f.name in CARD_FIELDS:
            if value is not None:
                out.add(int(value))
        elif isinstance(value, tuple | list | set | frozenset):
            out.update(int(c) for c in value if isinstance(c, int | np.integer))
        elif isinstance(value, dict):
            out.update(int(c) for c in value)
    return out


def check_view(view: View, pt: Point, rules: Rules, scores: Sequence[int],
               roles: Sequence[int | None]) -> None:
    """The view of hand player ``pt.player`` shows exactly the facts it may see, and no hidden
    card: nothing the opponent holds that he did not take from the pile, no stock card."""
    p, o = pt.player, 1 - pt.player
    hidden = pt.hands[o] - pt.took[o]
    secret = hidden | set(pt.stock)
    leaked = view_cards(view) & secret
    assert not leaked, f"the view shows hidden cards {[card_str(c) for c in leaked]}"
    # No scalar field may carry a hidden hand or the stock as a mask. Masks below 2**16 (spades
    # only) are skipped: they cannot be told apart from counts and scores.
    secret_masks = {m for m in (mask(hidden), mask(pt.stock)) if m >= 1 << 16}
    if hidden:
        secret_masks.add(mask(pt.hands[o]))
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if isinstance(value, int | np.integer) and not isinstance(value, bool):
            assert value not in secret_masks, f"view field {f.name} equals a hidden mask"
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
    }
    got = {k: getattr(view, k) for k in expect}
    assert got == expect, {k: (got[k], expect[k]) for k in expect if got[k] != expect[k]}
    if hasattr(view, "deadwood"):  # own least deadwood before this turn's draw
        before = pt.hands[p] - {pt.drawn}
        assert view.deadwood == min_deadwood_mask(mask(before)), "wrong own deadwood"
    if pt.decision in ("knock", "discard"):
        legal = [c for c in pt.hands[p] if not (rules.forbid_taken_discard and c == pt.taken)]
        want = {c: deadwood_after(pt.hands[p], c) for c in legal}
        assert view.deadwood_after == want
        if pt.knocked:
            assert view.legal_discards == sorted(c for c in legal if want[c] <= pt.knock_limit)
    else:
        assert view.deadwood_after == {}


def check_views(records: Sequence[dict[str, Any]], calls: Sequence[tuple[int, View]],
                rules: Rules, spied: Iterable[int] | None = None) -> int:
    """Match every (seat, View) a strategy was asked about to the true state replayed from the
    log: the right seat decided (the advisor for the captain under ``team_policy='advisor'``),
    nothing else was asked (not the forced draw), and every view is right and hygienic.

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
                check_view(view, pt, rules, scores, roles)
            scores = list(r["scores"])
    assert i == len(calls), f"{len(calls) - i} decisions asked beyond those of the log"
    return i
