"""ginbox next to OpenSpiel's ``gin_rummy`` and RLCard's ``gin-rummy``: random-play hands, least
deadwood, and the correctness check of OpenSpiel's 11-card least deadwood by brute force
(the measurements are described in :mod:`benchmarks.peers`)."""

from __future__ import annotations

import datetime
import random
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from benchmarks.peers.common import (
    NOT_INSTALLED,
    SKIPPED,
    import_peer,
    markdown_table,
    table_row,
)
from sim.bench import best_rate
from sim.engine.cards import SUITS, card_str, mask_cards, rank_of, suit_of

#: Melding the most value of all 11 cards (5H-8H and three 7s, 47) leaves 4S 4D 6D 6C: 14 after
#: a 6 goes. Four 7s and three 6s meld one point less but leave 4S 4D 5H 8H: 13 after 8H goes.
TRAP_HAND = "4S 7S 4D 6D 7D 6C 7C 5H 6H 7H 8H"
TRAP_ANSWER = 13

OPENSPIEL_SUITS = "SCDH"  # OpenSpiel's suit order (it prints them lower case: "scdh")
RLCARD_SUITS = "SHDC"

# --------------------------------------------------------------------------------------------
# Card encodings
# --------------------------------------------------------------------------------------------


def to_openspiel(code: int) -> int:
    """OpenSpiel's card index of a ginbox card code."""
    return OPENSPIEL_SUITS.index(SUITS[suit_of(code)]) * 13 + rank_of(code)


def to_rlcard_text(code: int) -> str:
    """RLCard's card text (rank then upper-case suit, as ``card_from_text`` reads it)."""
    return card_str(code)


def openspiel_hands(masks: np.ndarray) -> list[list[int]]:
    """Masks as lists of OpenSpiel card indices."""
    return [[to_openspiel(c) for c in mask_cards(int(m))] for m in masks]




def openspiel_utils(pyspiel: Any) -> Any:
    """OpenSpiel's C++ gin rummy utilities for the standard deck and 10-card hands."""
    return pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)


def openspiel_random_hands(pyspiel: Any, hands: int, seed: int = 0, name: str = "gin_rummy",
                           params: dict[str, Any] | None = None) -> dict[str, float]:
    """Play ``hands`` hands of OpenSpiel game ``name`` (one hand is one episode) with random
    legal actions: its own ``gin_rummy``, or ginbox's registered ``python_ginbox``."""
    game = pyspiel.load_game(name, params or {})
    draws = {pyspiel.gin_rummy.DRAW_UPCARD_ACTION, pyspiel.gin_rummy.DRAW_STOCK_ACTION}
    rng = random.Random(seed)
    actions = turns = 0
    unscored = 0
    t = time.perf_counter()
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                # the deal's outcomes are uniform over the cards left: a plain choice samples them
                action = rng.choice(state.chance_outcomes())[0]
            else:
                action = rng.choice(state.legal_actions())
                turns += action in draws
            state.apply_action(action)
            actions += 1
        if not any(state.returns()):
            unscored += 1
    dt = time.perf_counter() - t
    return {"hands_per_s": hands / dt, "hands": hands, "seconds": dt,
            "actions_per_hand": actions / hands, "turns_per_hand": turns / hands,
            "unscored_share": unscored / hands}


def rlcard_random_hands(rlcard: Any, hands: int, seed: int = 0,
                        env: bool = True) -> dict[str, float]:
    """Play ``hands`` RLCard hands (one hand is one episode) at random.

    ``env``: through the environment with its ``RandomAgent``s, which encodes an observation
    for every step (the way RLCard is used); otherwise on the bare game object, a uniform
    choice among ``judge.get_legal_actions()`` at each step.
    """
    from rlcard.agents import RandomAgent
    from rlcard.games.gin_rummy.utils.action_event import (
        DeclareDeadHandAction,
        DrawCardAction,
        PickUpDiscardAction,
    )

    np.random.seed(seed)  # RandomAgent draws from numpy's global generator
    environment = rlcard.make("gin-rummy", config={"seed": seed})
    environment.set_agents([RandomAgent(num_actions=environment.num_actions)
                            for _ in range(environment.num_players)])
    game = environment.game
    rng = random.Random(seed)
    dead = turns = 0
    t = time.perf_counter()
    for _ in range(hands):
        if env:
            environment.run(is_training=False)
        else:
            game.init_game()
            while not game.is_over():
                game.step(rng.choice(game.judge.get_legal_actions()))
        dead += any(isinstance(a, DeclareDeadHandAction) for a in game.actions)
        turns += sum(isinstance(a, DrawCardAction | PickUpDiscardAction) for a in game.actions)
    dt = time.perf_counter() - t
    return {"hands_per_s": hands / dt, "hands": hands, "seconds": dt,
            "turns_per_hand": turns / hands, "unscored_share": dead / hands}


def rlcard_min_deadwood_fn() -> Callable[[list[Any]], int]:
    """RLCard's least deadwood of a 10-card hand, the way its scorer computes it."""
    from rlcard.games.gin_rummy.utils import melding, utils

    def min_deadwood(hand: list[Any]) -> int:
        clusters = melding.get_best_meld_clusters(hand=hand)
        return utils.get_deadwood_count(hand, clusters[0] if clusters else [])

    return min_deadwood


def rlcard_hands(masks: np.ndarray) -> list[list[Any]]:
    """Masks as lists of RLCard ``Card`` objects."""
    from rlcard.games.gin_rummy.utils import utils

    return [[utils.card_from_text(to_rlcard_text(c)) for c in mask_cards(int(m))]
            for m in masks]


# --------------------------------------------------------------------------------------------
# ginbox
# --------------------------------------------------------------------------------------------


def ginbox_random_hands(rules: str, games: int, seed: int = 7) -> dict[str, float]:
    """Hands per second of the ``random`` strategy in every seat, compiled batch kernel."""
    from sim.engine.rules import Rules
    from sim.play.driver import play_games

    seats = ",".join(["random"] * Rules.preset(rules).players)
    play_games(seats, rules=rules, games=2, seed=1)  # warm-up: compile or load the JIT cache
    t = time.perf_counter()
    result = play_games(seats, rules=rules, games=games, seed=seed)
    dt = time.perf_counter() - t
    out = result.outcomes()
    hands = out["hands"]
    return {"hands_per_s": hands / dt, "games_per_s": games / dt, "hands": hands,
            "games": games, "seconds": dt,
            "turns_per_hand": int(result.games["turns"].sum()) / max(hands, 1),
            "unscored_share": (out["draw"] + out["turn_limit"]) / max(hands, 1)}


def meld_rich_masks(n: int, seed: int = 2024) -> np.ndarray:
    """``n`` 11-card hands of overlapping melds (sets crossing runs) topped up at random.

    Each hand grows from one random meld by adding melds through a card it already holds, the
    shape where melding every card first and discarding afterwards goes wrong.
    """
    from sim.engine.cards import DECK
    from sim.engine.melds import CARD_MELD_COUNT, CARD_MELDS, SEARCH_MELDS

    rng = np.random.default_rng(seed)
    out = np.empty(n, np.int64)
    for i in range(n):
        h = int(SEARCH_MELDS[rng.integers(len(SEARCH_MELDS))])
        for _ in range(8):
            if h.bit_count() >= 9:
                break
            cards = mask_cards(h)
            c = cards[rng.integers(len(cards))]
            m = int(CARD_MELDS[c, rng.integers(CARD_MELD_COUNT[c])])
            if (h | int(SEARCH_MELDS[m])).bit_count() <= 11:
                h |= int(SEARCH_MELDS[m])
        while h.bit_count() < 11:
            h |= 1 << int(DECK[rng.integers(52)])
        out[i] = h
    return out


# --------------------------------------------------------------------------------------------
# Brute force (independent of ginbox's meld tables and search)
# --------------------------------------------------------------------------------------------


def _value(card: tuple[int, int]) -> int:
    return min(card[0] + 1, 10)


def brute_min_deadwood(codes: Sequence[int]) -> int:
    """Least deadwood of exactly these cards, by trying every collection of disjoint melds."""
    cards = [(rank_of(c), suit_of(c)) for c in codes]
    have = set(cards)
    melds: list[frozenset[tuple[int, int]]] = []
    for rank in range(13):
        same = [c for c in cards if c[0] == rank]
        for k in range(3, len(same) + 1):
            melds.extend(frozenset(m) for m in combinations(same, k))
    for suit in range(4):
        for low in range(13):
            run = []
            for rank in range(low, 13):
                if (rank, suit) not in have:
                    break
                run.append((rank, suit))
                if len(run) >= 3:
                    melds.append(frozenset(run))
    values = [sum(_value(c) for c in m) for m in melds]
    best = 0

    def search(start: int, used: frozenset[tuple[int, int]], acc: int) -> None:
        nonlocal best
        best = max(best, acc)
        for j in range(start, len(melds)):
            if not used & melds[j]:
                search(j + 1, used | melds[j], acc + values[j])

    search(0, frozenset(), 0)
    return sum(_value(c) for c in cards) - best


def brute_best_discard(codes: Sequence[int]) -> int:
    """Least deadwood of 11 cards after the best discard, by brute force."""
    return min(brute_min_deadwood([c for c in codes if c != d]) for d in codes)


# --------------------------------------------------------------------------------------------
# The measurements
# --------------------------------------------------------------------------------------------


def _pct(k: int, n: int) -> str:
    return f"{k:,} of {n:,} ({100 * k / max(n, 1):.2f}%)"


def ginbox_rows(games: int, deadwood: int, brute: int,
                batch: int = 400_000) -> list[dict[str, Any]]:
    """ginbox's own rows (no peer needed)."""
    from sim.bench import random_masks
    from sim.engine.melds import (
        best_discard,
        best_discard_batch,
        min_deadwood,
        min_deadwood_batch,
        min_deadwood_mask,
    )

    rows = []
    for rules, label in (("eaai", "2 players, eaai rules"), ("three-handed", "three-handed")):
        r = ginbox_random_hands(rules, games)
        rows.append(table_row("ginbox", f"random-play hands/s ({label})", r["hands_per_s"],
                         f"compiled batch kernel, `random` in every seat; {r['hands']:,} hands "
                         f"in {games:,} games to 100 ({r['seconds']:.2f} s); "
                         f"{r['turns_per_hand']:.0f} turns a hand, "
                         f"{100 * r['unscored_share']:.0f}% of hands reach the wall"))

    m10 = random_masks(deadwood, 10)
    codes10 = [mask_cards(int(m)) for m in m10]
    min_deadwood(codes10[0])
    min_deadwood_batch(m10[:10])
    scalar = best_rate(lambda: [min_deadwood(h) for h in codes10], deadwood)
    rows.append(table_row("ginbox", "least-deadwood evals/s, 10 cards, scalar", scalar,
                     "`sim.engine.melds.min_deadwood(codes)` called once per hand from Python "
                     "(validates the cards, builds the mask)"))
    masks = [int(m) for m in m10]
    per_call = best_rate(lambda: [min_deadwood_mask(m) for m in masks], deadwood)
    rows.append(table_row("ginbox", "least-deadwood evals/s, 10 cards, compiled call", per_call,
                     "`min_deadwood_mask(mask)` called once per hand from Python"))
    big = random_masks(batch, 10)
    batch_rate = best_rate(lambda: min_deadwood_batch(big), len(big))
    rows.append(table_row("ginbox", "least-deadwood evals/s, 10 cards, batch", batch_rate,
                     f"`min_deadwood_batch` over {len(big):,} masks, one core"))
    m11 = random_masks(batch, 11, seed=54321)
    best_discard_batch(m11[:10])
    rows.append(table_row("ginbox", "best-discard evals/s, 11 cards, batch",
                     best_rate(lambda: best_discard_batch(m11), len(m11)),
                     "`best_discard_batch`: exact least deadwood after the best discard"))

    # ginbox against brute force: the trap hand, then a sample of random and meld-rich hands
    trap = best_discard(TRAP_HAND)[1]
    sample = np.concatenate([random_masks(brute, 11, seed=777), meld_rich_masks(brute)])
    _, dws = best_discard_batch(sample)
    wrong = sum(int(d) != brute_best_discard(mask_cards(int(m)))
                for m, d in zip(sample, dws, strict=True))
    rows.append(table_row("ginbox", "11-card least deadwood wrong (brute force)",
                     _pct(wrong, len(sample)),
                     f"{brute:,} random + {brute:,} meld-rich hands; trap hand {TRAP_HAND}: "
                     f"{trap} (exact {TRAP_ANSWER})"))
    return rows


def openspiel_rows(pyspiel: Any, hands: int, deadwood: int,
                   compare: int) -> list[dict[str, Any]]:
    """OpenSpiel's rows: random play, least deadwood, and the 11-card correctness check."""
    from sim.bench import random_masks
    from sim.engine.melds import best_discard_batch, hand_mask, min_deadwood_batch

    u = openspiel_utils(pyspiel)
    rows = []
    openspiel_random_hands(pyspiel, 5)  # warm-up
    r = openspiel_random_hands(pyspiel, hands)
    rows.append(table_row("OpenSpiel", "random-play hands/s (2 players)", r["hands_per_s"],
                     f"`pyspiel.load_game('gin_rummy')` from Python, random legal actions and "
                     f"chance outcomes; {hands:,} one-hand episodes ({r['seconds']:.1f} s), "
                     f"{r['actions_per_hand']:.0f} actions and {r['turns_per_hand']:.0f} turns "
                     f"a hand; {100 * r['unscored_share']:.0f}% of hands score nothing"))
    rows += python_ginbox_rows(pyspiel, max(hands // 10, 20))

    m10 = random_masks(deadwood, 10)
    h10 = openspiel_hands(m10)
    rate = best_rate(lambda: [u.min_deadwood(h) for h in h10], deadwood)
    theirs = np.array([u.min_deadwood(h) for h in h10])
    agree = int((theirs == min_deadwood_batch(m10)).sum())
    rows.append(table_row("OpenSpiel", "least-deadwood evals/s, 10 cards", rate,
                     "C++ `GinRummyUtils.min_deadwood` called once per hand from Python; "
                     f"agrees with ginbox on {_pct(agree, deadwood)} hands"))
    m11 = random_masks(deadwood, 11, seed=54321)
    h11 = openspiel_hands(m11)
    rows.append(table_row("OpenSpiel", "best-discard evals/s, 11 cards",
                     best_rate(lambda: [u.min_deadwood(h) for h in h11], deadwood),
                     "`min_deadwood` on 11 cards (melds first, then drops the highest "
                     "deadwood card: not exact, see below)"))

    # correctness: OpenSpiel's 11-card answer against ginbox's exact one, brute force as judge
    parts = []
    trap_os = u.min_deadwood([to_openspiel(c) for c in mask_cards(hand_mask(TRAP_HAND))])
    for label, masks in (("random", random_masks(compare, 11, seed=2468)),
                         ("meld-rich", meld_rich_masks(compare))):
        theirs = np.array([u.min_deadwood(h) for h in openspiel_hands(masks)])
        _, ours = best_discard_batch(masks)
        differ = np.flatnonzero(theirs != ours)
        ginbox_right = os_right = 0
        for i in differ:
            truth = brute_best_discard(mask_cards(int(masks[i])))
            ginbox_right += int(ours[i] == truth)
            os_right += int(theirs[i] == truth)
        parts.append((label, len(masks), len(differ), ginbox_right, os_right))
    wrong = ", ".join(f"{_pct(d, n)} {label}" for label, n, d, _, _ in parts)
    judged = "; ".join(
        f"{label}: brute force sides with ginbox on {g:,} of {d:,}, with OpenSpiel on {o:,}"
        for label, _, d, g, o in parts)
    rows.append(table_row("OpenSpiel", "11-card least deadwood wrong", wrong,
                     f"against ginbox's exact `best_discard`; {judged}; trap hand "
                     f"{TRAP_HAND}: OpenSpiel {trap_os}, exact {TRAP_ANSWER}"))
    return rows


def python_ginbox_rows(pyspiel: Any, hands: int) -> list[dict[str, Any]]:
    """ginbox's games through OpenSpiel's API (``sim.openspiel``'s ``python_ginbox``, a Python
    game stepped by the engine's kernels), the same loop as OpenSpiel's own gin above."""
    import sim.openspiel  # noqa: F401  (registers python_ginbox)

    rows = []
    for rules in ("eaai", "three-handed"):
        params = {"rules": rules}
        openspiel_random_hands(pyspiel, 3, name="python_ginbox", params=params)  # warm-up
        r = openspiel_random_hands(pyspiel, hands, name="python_ginbox", params=params)
        players = 2 if rules == "eaai" else 3
        rows.append(table_row(
            "OpenSpiel", f"python_ginbox random-play hands/s ({rules})", r["hands_per_s"],
            f"`pyspiel.load_game('python_ginbox', {{'rules': '{rules}'}})` ({players} players) "
            f"through OpenSpiel's Python API, the loop of the row above; {hands:,} one-hand "
            f"episodes ({r['seconds']:.1f} s), {r['actions_per_hand']:.0f} actions a hand "
            f"(53 of them chance: the seating and the deck)"))
    return rows


def rlcard_rows(rlcard: Any, hands: int, deadwood: int) -> list[dict[str, Any]]:
    """RLCard's rows: random play and least deadwood."""
    from sim.bench import random_masks
    from sim.engine.melds import min_deadwood_batch

    rows = []
    rlcard_random_hands(rlcard, 3)  # warm-up
    r = rlcard_random_hands(rlcard, hands)
    rows.append(table_row("RLCard", "random-play hands/s (2 players)", r["hands_per_s"],
                     f"`rlcard.make('gin-rummy')`, `RandomAgent` in both seats, `env.run`; "
                     f"{hands:,} one-hand episodes ({r['seconds']:.1f} s); "
                     f"{r['turns_per_hand']:.0f} turns a hand, "
                     f"{100 * r['unscored_share']:.0f}% of hands declared dead"))
    rlcard_random_hands(rlcard, 3, env=False)
    r = rlcard_random_hands(rlcard, hands, env=False)
    rows.append(table_row("RLCard", "random-play hands/s (2 players), bare game", r["hands_per_s"],
                     "no environment: a uniform choice among `game.judge.get_legal_actions()` "
                     f"and `game.step`, no observations encoded; {hands:,} hands "
                     f"({r['seconds']:.1f} s); {r['turns_per_hand']:.0f} turns a hand, "
                     f"{100 * r['unscored_share']:.0f}% declared dead"))
    fn = rlcard_min_deadwood_fn()
    m10 = random_masks(deadwood, 10)
    h10 = rlcard_hands(m10)
    rate = best_rate(lambda: [fn(h) for h in h10], deadwood)
    agree = int((np.array([fn(h) for h in h10]) == min_deadwood_batch(m10)).sum())
    rows.append(table_row("RLCard", "least-deadwood evals/s, 10 cards", rate,
                     "pure Python `melding.get_best_meld_clusters` + `get_deadwood_count`, "
                     f"as its scorer does; agrees with ginbox on {_pct(agree, deadwood)} hands"))
    return rows


def unavailable_rows(engine: str, why: str) -> list[dict[str, Any]]:
    metrics = ["random-play hands/s (2 players)", "least-deadwood evals/s, 10 cards"]
    if engine == "OpenSpiel":
        metrics.append("11-card least deadwood wrong")
    return [table_row(engine, m, None, why) for m in metrics]


def run(hands: int = 2000, games: int = 2000, deadwood: int = 20_000, compare: int = 100_000,
        brute: int = 300, batch: int = 400_000, peers: bool = True) -> list[dict[str, Any]]:
    """Every row of the table, ginbox first."""
    rows = ginbox_rows(games, deadwood, brute, batch)
    pyspiel = import_peer("pyspiel") if peers else None
    if pyspiel is not None:
        rows += openspiel_rows(pyspiel, hands, deadwood, compare)
    else:
        rows += unavailable_rows("OpenSpiel", NOT_INSTALLED if peers else SKIPPED)
    rl = import_peer("rlcard") if peers else None
    if rl is not None:
        rows += rlcard_rows(rl, hands, deadwood)
    else:
        rows += unavailable_rows("RLCard", NOT_INSTALLED if peers else SKIPPED)
    return rows



def section(rows: Sequence[dict[str, Any]], command: str, seconds: float, where: str) -> str:
    """The Markdown written between the markers."""
    day = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    return "\n".join([
        "### ginbox next to OpenSpiel and RLCard",
        "",
        f"Measured {day} on {where}.",
        f"Command: `{command}` ({seconds:.0f} s wall). Every rate is one core, after warm-up.",
        "",
        markdown_table(rows),
        "",
        "A random-play hand is one hand dealt and played to its end (OpenSpiel and RLCard play "
        "one hand per episode; ginbox plays whole games to 100 and counts their hands). Random "
        "play rarely knocks, so most hands of every engine run to the wall. The peers are "
        "driven from Python, as their users drive them; ginbox's figures are its compiled path. "
        "OpenSpiel's 11-card least deadwood melds all 11 cards for the most value and only then "
        "drops the highest unmelded card, so it misses hands where breaking a meld is better.",
    ])
