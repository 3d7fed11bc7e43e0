"""ginbox next to the peers: OpenSpiel's ``gin_rummy`` and RLCard's ``gin-rummy``.

Run from the repository root::

    python -m benchmarks.peers [--hands N] [--games G] [--deadwood D] [--compare C]
                               [--no-peers] [--write-docs]
    python -m benchmarks.peers --envs [--setup-gin-rummy | --gin-rummy-python PATH]
                               [--env-steps N] [--vector-steps N] [--repeats R] [--write-docs]

On one machine, in one run, it measures

* random-play hands per second: OpenSpiel from Python (uniform random legal actions, chance
  outcomes sampled too), RLCard's environment with its ``RandomAgent``s, and ginbox's compiled
  batch kernel with the ``random`` strategy in every seat, two-player ``eaai`` rules (the closest
  to the peers' rules) and the three-handed default;
* least-deadwood evaluations per second on random 10-card hands: OpenSpiel's C++
  ``GinRummyUtils.min_deadwood`` called from Python, RLCard's ``get_best_meld_clusters`` (pure
  Python), and ginbox's scalar wrapper ``sim.engine.melds.min_deadwood`` and batch kernel
  ``min_deadwood_batch``;
* correctness: on random and meld-rich 11-card hands, how often OpenSpiel's 11-card least
  deadwood (its ``MinDeadwood`` melds all 11 cards first, then throws away the highest deadwood
  card) differs from ginbox's exact ``best_discard``, and who is right by brute force.

``--envs`` measures the learning environments instead (``pip install .[rl]``): ``sim.env``'s
AEC ``raw_env`` and wrapped ``env`` against PettingZoo's ``gin_rummy_v4`` with random legal
actions, one loop for both, and ``sim.env.VectorEnv``'s steps per second. ``gin_rummy_v4``
left PettingZoo after 1.24 and the ``rl`` extra needs a newer PettingZoo, so it runs in its own
interpreter: ``--setup-gin-rummy`` creates one (a venv under ``~/.cache/ginbox`` with
``pettingzoo[classic]==1.24.3``), or ``--gin-rummy-python PATH`` (or the environment variable
``GINBOX_GIN_RUMMY_PYTHON``) names one. The figures go between ``<!-- envs:begin -->`` and
``<!-- envs:end -->`` with ``--write-docs``.

The peers are optional (``pip install .[peers]``); without them their rows say so and ginbox is
still measured. ``--write-docs`` puts the table into ``docs/performance.md`` between the markers
``<!-- peers:begin -->`` and ``<!-- peers:end -->``, leaving the rest of the page as it is.

Card encodings: ginbox codes are ``suit * 16 + rank`` with suits S H D C; OpenSpiel's are
``suit * 13 + rank`` with suits s c d h (its ``kSuitChar`` is ``"scdh"``); RLCard's are
``suit * 13 + rank`` with suits S H D C. Ranks are ace 0 .. king 12 everywhere.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from sim.bench import best_rate
from sim.engine.cards import SUITS, card_str, mask_cards, rank_of, suit_of

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
BEGIN = "<!-- peers:begin -->"
END = "<!-- peers:end -->"
NOT_INSTALLED = "not installed (pip install .[peers])"
SKIPPED = "skipped (--no-peers)"
COLUMNS = ("engine", "metric", "value", "notes")

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


# --------------------------------------------------------------------------------------------
# Peers
# --------------------------------------------------------------------------------------------


def import_peer(name: str) -> Any:
    """The peer's module (``pyspiel`` or ``rlcard``), or None when it cannot be imported."""
    try:
        return importlib.import_module(name)
    except Exception:  # ImportError, or a broken binary wheel
        return None


def peer_version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def openspiel_utils(pyspiel: Any) -> Any:
    """OpenSpiel's C++ gin rummy utilities for the standard deck and 10-card hands."""
    return pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)


def openspiel_random_hands(pyspiel: Any, hands: int, seed: int = 0) -> dict[str, float]:
    """Play ``hands`` OpenSpiel hands (one hand is one episode) with random legal actions."""
    game = pyspiel.load_game("gin_rummy")
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


def _row(engine: str, metric: str, value: Any, notes: str) -> dict[str, Any]:
    return {"engine": engine, "metric": metric, "value": value, "notes": notes}


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
        rows.append(_row("ginbox", f"random-play hands/s ({label})", r["hands_per_s"],
                         f"compiled batch kernel, `random` in every seat; {r['hands']:,} hands "
                         f"in {games:,} games to 100 ({r['seconds']:.2f} s); "
                         f"{r['turns_per_hand']:.0f} turns a hand, "
                         f"{100 * r['unscored_share']:.0f}% of hands reach the wall"))

    m10 = random_masks(deadwood, 10)
    codes10 = [mask_cards(int(m)) for m in m10]
    min_deadwood(codes10[0])
    min_deadwood_batch(m10[:10])
    scalar = best_rate(lambda: [min_deadwood(h) for h in codes10], deadwood)
    rows.append(_row("ginbox", "least-deadwood evals/s, 10 cards, scalar", scalar,
                     "`sim.engine.melds.min_deadwood(codes)` called once per hand from Python "
                     "(validates the cards, builds the mask)"))
    masks = [int(m) for m in m10]
    per_call = best_rate(lambda: [min_deadwood_mask(m) for m in masks], deadwood)
    rows.append(_row("ginbox", "least-deadwood evals/s, 10 cards, compiled call", per_call,
                     "`min_deadwood_mask(mask)` called once per hand from Python"))
    big = random_masks(batch, 10)
    batch_rate = best_rate(lambda: min_deadwood_batch(big), len(big))
    rows.append(_row("ginbox", "least-deadwood evals/s, 10 cards, batch", batch_rate,
                     f"`min_deadwood_batch` over {len(big):,} masks, one core"))
    m11 = random_masks(batch, 11, seed=54321)
    best_discard_batch(m11[:10])
    rows.append(_row("ginbox", "best-discard evals/s, 11 cards, batch",
                     best_rate(lambda: best_discard_batch(m11), len(m11)),
                     "`best_discard_batch`: exact least deadwood after the best discard"))

    # ginbox against brute force: the trap hand, then a sample of random and meld-rich hands
    trap = best_discard(TRAP_HAND)[1]
    sample = np.concatenate([random_masks(brute, 11, seed=777), meld_rich_masks(brute)])
    _, dws = best_discard_batch(sample)
    wrong = sum(int(d) != brute_best_discard(mask_cards(int(m)))
                for m, d in zip(sample, dws, strict=True))
    rows.append(_row("ginbox", "11-card least deadwood wrong (brute force)",
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
    rows.append(_row("OpenSpiel", "random-play hands/s (2 players)", r["hands_per_s"],
                     f"`pyspiel.load_game('gin_rummy')` from Python, random legal actions and "
                     f"chance outcomes; {hands:,} one-hand episodes ({r['seconds']:.1f} s), "
                     f"{r['actions_per_hand']:.0f} actions and {r['turns_per_hand']:.0f} turns "
                     f"a hand; {100 * r['unscored_share']:.0f}% of hands score nothing"))

    m10 = random_masks(deadwood, 10)
    h10 = openspiel_hands(m10)
    rate = best_rate(lambda: [u.min_deadwood(h) for h in h10], deadwood)
    theirs = np.array([u.min_deadwood(h) for h in h10])
    agree = int((theirs == min_deadwood_batch(m10)).sum())
    rows.append(_row("OpenSpiel", "least-deadwood evals/s, 10 cards", rate,
                     "C++ `GinRummyUtils.min_deadwood` called once per hand from Python; "
                     f"agrees with ginbox on {_pct(agree, deadwood)} hands"))
    m11 = random_masks(deadwood, 11, seed=54321)
    h11 = openspiel_hands(m11)
    rows.append(_row("OpenSpiel", "best-discard evals/s, 11 cards",
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
    rows.append(_row("OpenSpiel", "11-card least deadwood wrong", wrong,
                     f"against ginbox's exact `best_discard`; {judged}; trap hand "
                     f"{TRAP_HAND}: OpenSpiel {trap_os}, exact {TRAP_ANSWER}"))
    return rows


def rlcard_rows(rlcard: Any, hands: int, deadwood: int) -> list[dict[str, Any]]:
    """RLCard's rows: random play and least deadwood."""
    from sim.bench import random_masks
    from sim.engine.melds import min_deadwood_batch

    rows = []
    rlcard_random_hands(rlcard, 3)  # warm-up
    r = rlcard_random_hands(rlcard, hands)
    rows.append(_row("RLCard", "random-play hands/s (2 players)", r["hands_per_s"],
                     f"`rlcard.make('gin-rummy')`, `RandomAgent` in both seats, `env.run`; "
                     f"{hands:,} one-hand episodes ({r['seconds']:.1f} s); "
                     f"{r['turns_per_hand']:.0f} turns a hand, "
                     f"{100 * r['unscored_share']:.0f}% of hands declared dead"))
    rlcard_random_hands(rlcard, 3, env=False)
    r = rlcard_random_hands(rlcard, hands, env=False)
    rows.append(_row("RLCard", "random-play hands/s (2 players), bare game", r["hands_per_s"],
                     "no environment: a uniform choice among `game.judge.get_legal_actions()` "
                     f"and `game.step`, no observations encoded; {hands:,} hands "
                     f"({r['seconds']:.1f} s); {r['turns_per_hand']:.0f} turns a hand, "
                     f"{100 * r['unscored_share']:.0f}% declared dead"))
    fn = rlcard_min_deadwood_fn()
    m10 = random_masks(deadwood, 10)
    h10 = rlcard_hands(m10)
    rate = best_rate(lambda: [fn(h) for h in h10], deadwood)
    agree = int((np.array([fn(h) for h in h10]) == min_deadwood_batch(m10)).sum())
    rows.append(_row("RLCard", "least-deadwood evals/s, 10 cards", rate,
                     "pure Python `melding.get_best_meld_clusters` + `get_deadwood_count`, "
                     f"as its scorer does; agrees with ginbox on {_pct(agree, deadwood)} hands"))
    return rows


def unavailable_rows(engine: str, why: str) -> list[dict[str, Any]]:
    metrics = ["random-play hands/s (2 players)", "least-deadwood evals/s, 10 cards"]
    if engine == "OpenSpiel":
        metrics.append("11-card least deadwood wrong")
    return [_row(engine, m, None, why) for m in metrics]


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


# --------------------------------------------------------------------------------------------
# Learning environments: sim.env next to PettingZoo's gin_rummy_v4
# --------------------------------------------------------------------------------------------

#: PettingZoo's ``gin_rummy_v4`` left PettingZoo after 1.24; the comparison runs it in its own
#: interpreter, since the ``rl`` extra needs a newer PettingZoo.
GIN_RUMMY_REQUIREMENT = "pettingzoo[classic]==1.24.3"
GIN_RUMMY_VENV = Path.home() / ".cache" / "ginbox" / "pettingzoo-1.24.3"
ENVS_BEGIN = "<!-- envs:begin -->"
ENVS_END = "<!-- envs:end -->"

#: The one loop both AEC environments are stepped with (run here and, as text, in the other
#: interpreter): random legal actions from the mask, chosen in Python, the way a user's
#: training loop drives an AEC environment. Returns (steps, CPU seconds, episodes).
AEC_LOOP = """
import time
import numpy as np

def aec_random_steps(make, steps, seed=0):
    env = make()
    rng = np.random.default_rng(seed)
    done = episodes = 0
    env.reset(seed=seed)
    start = time.process_time()
    while done < steps:
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rng.random() * len(legal))])
                done += 1
            env.step(action)
        episodes += 1
        env.reset()
    return done, time.process_time() - start, episodes
"""

GIN_RUMMY_SCRIPT = AEC_LOOP + """
import json, sys, warnings
warnings.filterwarnings("ignore")
from pettingzoo.classic import gin_rummy_v4
import pettingzoo
steps = int(sys.argv[1])
aec_random_steps(gin_rummy_v4.raw_env, 200)  # warm-up
out = {"version": pettingzoo.__version__}
for name, make in (("raw_env", gin_rummy_v4.raw_env), ("env", gin_rummy_v4.env)):
    out[name] = aec_random_steps(make, steps)
print(json.dumps(out))
"""


def gin_rummy_python(given: str | None) -> str | None:
    """The interpreter that has ``gin_rummy_v4``: ``--gin-rummy-python``, else
    ``$GINBOX_GIN_RUMMY_PYTHON``, else the venv ``--setup-gin-rummy`` makes; None if none."""
    for candidate in (given, os.environ.get("GINBOX_GIN_RUMMY_PYTHON"),
                      str(GIN_RUMMY_VENV / "bin" / "python")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def setup_gin_rummy(venv: Path = GIN_RUMMY_VENV) -> str:
    """Create a venv holding PettingZoo 1.24.3 with its classic games (and RLCard under them)."""
    import subprocess

    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", GIN_RUMMY_REQUIREMENT],
                   check=True)
    return python


def gin_rummy_steps(python: str, steps: int) -> dict[str, Any]:
    """Run the loop on ``gin_rummy_v4`` in ``python``: {"version", "raw_env", "env"}."""
    import json
    import subprocess

    done = subprocess.run([python, "-c", GIN_RUMMY_SCRIPT, str(steps)], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def ginbox_aec_steps(steps: int) -> dict[str, tuple[int, float, int]]:
    """The same loop on ``sim.env.raw_env`` and ``sim.env.env`` (eaai rules, whole games)."""
    import sim.env

    namespace: dict[str, Any] = {}
    exec(AEC_LOOP, namespace)
    loop = namespace["aec_random_steps"]
    loop(lambda: sim.env.raw_env(rules="eaai"), 200)  # compiles, or loads the cache
    return {"raw_env": loop(lambda: sim.env.raw_env(rules="eaai"), steps),
            "env": loop(lambda: sim.env.env(rules="eaai"), steps)}


def vector_steps(steps: int, num_envs: int, rules: str, opponents: str,
                 seed: int = 0) -> tuple[int, float, int]:
    """(learner steps, CPU seconds, episodes) of ``sim.env.VectorEnv`` with random legal
    actions drawn from the masks in numpy (observations encoded and copied out)."""
    from sim.env.vector import VectorEnv, random_actions

    env = VectorEnv(num_envs, rules=rules, opponents=opponents)
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    for _ in range(20):  # warm-up (compiles, or loads the cache)
        obs, _, _, _, infos = env.step(random_actions(infos["action_mask"], rng))
    calls = max(1, steps // num_envs)
    episodes = 0
    start = time.process_time()
    for _ in range(calls):
        obs, _, terminations, _, infos = env.step(random_actions(infos["action_mask"], rng))
        episodes += int(terminations.sum())
    return calls * num_envs, time.process_time() - start, episodes


def _rate(run: tuple[int, float, int]) -> float:
    return run[0] / run[1]


def _spread(rates: Sequence[float]) -> str:
    return f"median of {len(rates)} runs; range {min(rates):,.0f}-{max(rates):,.0f}"


def env_rows(aec_steps: int = 20_000, vector_total: int = 2_000_000, num_envs: int = 512,
             repeats: int = 3, python: str | None = None) -> list[dict[str, Any]]:
    """The environment rows: each measurement ``repeats`` times, the engines in turn, CPU time
    of this process (or of the peer's) only; the median is shown."""
    ours: dict[str, list[float]] = {"raw_env": [], "env": []}
    theirs: dict[str, list[float]] = {"raw_env": [], "env": []}
    vectors: dict[str, list[float]] = {"eaai/random": [], "three-handed/simple": []}
    version = None
    for _ in range(repeats):
        if python is not None:
            peer = gin_rummy_steps(python, aec_steps)
            version = peer["version"]
            for key in theirs:
                theirs[key].append(_rate(peer[key]))
        mine = ginbox_aec_steps(aec_steps)
        for key in ours:
            ours[key].append(_rate(mine[key]))
        for key in vectors:
            rules, opponents = key.split("/")
            vectors[key].append(_rate(vector_steps(vector_total, num_envs, rules, opponents)))
    med = {k: float(np.median(v)) for k, v in {**{f"ours {k}": v for k, v in ours.items()},
                                               **{f"theirs {k}": v for k, v in theirs.items()
                                                  if v},
                                               **vectors}.items()}
    rows = [
        _row("ginbox", "AEC steps/s, sim.env.raw_env", med["ours raw_env"],
             f"eaai rules, whole games; random legal actions chosen in Python; "
             f"{_spread(ours['raw_env'])}"),
        _row("ginbox", "AEC steps/s, sim.env.env (wrapped)", med["ours env"],
             f"with PettingZoo's TerminateIllegal, AssertOutOfBounds and OrderEnforcing "
             f"wrappers; {_spread(ours['env'])}"),
        _row("ginbox", "VectorEnv steps/s, eaai, random opponent", med["eaai/random"],
             f"{num_envs} games per step call, observations encoded and copied out, random "
             f"legal actions drawn from the masks in numpy; {_spread(vectors['eaai/random'])}"),
        _row("ginbox", "VectorEnv steps/s, three-handed, 2 simple opponents",
             med["three-handed/simple"],
             f"as above; the opponents' moves (and hands the learner sits out) run inside the "
             f"compiled step; {_spread(vectors['three-handed/simple'])}"),
    ]
    if python is None:
        why = (f"no interpreter with {GIN_RUMMY_REQUIREMENT}: --setup-gin-rummy or "
               "--gin-rummy-python PATH")
        rows += [_row("PettingZoo gin_rummy_v4", m, None, why)
                 for m in ("AEC steps/s, raw_env", "AEC steps/s, env (wrapped)")]
        return rows
    peer_raw, peer_env = med["theirs raw_env"], med["theirs env"]
    rows += [
        _row("PettingZoo gin_rummy_v4", "AEC steps/s, raw_env", peer_raw,
             f"PettingZoo {version} (RLCard underneath), the same loop in its own interpreter; "
             f"{_spread(theirs['raw_env'])}"),
        _row("PettingZoo gin_rummy_v4", "AEC steps/s, env (wrapped)", peer_env,
             f"its classic wrappers; {_spread(theirs['env'])}"),
        _row("ratio", "sim.env.raw_env / gin_rummy_v4 raw_env", med["ours raw_env"] / peer_raw,
             "goal: at least 10"),
        _row("ratio", "sim.env.env / gin_rummy_v4 env", med["ours env"] / peer_env,
             "both wrapped"),
        _row("ratio", "VectorEnv (eaai, random) / gin_rummy_v4 raw_env",
             med["eaai/random"] / peer_raw, "goal: over 100 (and 1,000,000 steps/s)"),
    ]
    return rows


def env_section(rows: Sequence[dict[str, Any]], command: str, seconds: float,
                where: str) -> str:
    """The Markdown written between the environment markers."""
    day = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    return "\n".join([
        "### The learning environments next to PettingZoo's gin_rummy_v4",
        "",
        f"Measured {day} on {where}.",
        f"Command: `{command}` ({seconds:.0f} s wall). Rates are steps per CPU second of one "
        "core (`time.process_time`), so other work on this shared machine slows the wall clock "
        "more than these figures; each is the median of repeated runs taken in turn.",
        "",
        markdown_table(rows),
        "",
        "A step is one decision of the agent to move (AEC) or of each game's learner (vector). "
        "gin_rummy_v4 plays one hand per episode and ginbox's environments whole games to "
        "100; with random play most hands of both run to the wall. The AEC loop, the same "
        "text for both, picks a random legal action in Python from the observation's mask.",
    ])


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def format_value(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float | int):
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"
    return str(value)


def machine() -> str:
    """One line: what the figures were measured on."""
    import numba

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            names = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        if names:
            model = names[0]
    except OSError:
        pass
    versions = [f"numpy {np.__version__}", f"numba {numba.__version__}"]
    for dist in ("open_spiel", "rlcard"):
        versions.append(f"{dist} {peer_version(dist) or 'not installed'}")
    return (f"{os.cpu_count()} CPUs ({model}), {platform.platform()}, "
            f"Python {platform.python_version()}, {', '.join(versions)}")


def load_average() -> str:
    """The 1/5/15-minute load averages: other work on the machine skews every rate."""
    return "/".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [r["engine"], r["metric"], format_value(r["value"]), r["notes"]]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


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


def write_docs(text: str, path: Path = DOC, begin: str = BEGIN, end: str = END,
               heading: str = "## Against the peers") -> None:
    """Put ``text`` between the markers of ``path`` (created if missing), atomically."""
    block = f"{begin}\n{text}\n{end}"
    if path.exists():
        old = path.read_text(encoding="utf-8")
        start, stop = old.find(begin), old.find(end)
        if start >= 0 and stop > start:
            new = old[:start] + block + old[stop + len(end):]
        else:
            new = old.rstrip("\n") + f"\n\n{heading}\n\n" + block + "\n"
    else:
        new = ("# Performance\n\n"
               "How fast ginbox is, how it was measured, and how it compares with the engines "
               "people know. `ginbox bench` measures ginbox alone; the comparison below comes "
               "from `python -m benchmarks.peers --write-docs` (peers: `pip install .[peers]`)."
               "\n\n## Against the peers\n\n" + block + "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="python -m benchmarks.peers", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=2000,
                   help="random-play hands for each peer (default 2000; they are slow)")
    p.add_argument("--games", type=int, default=2000,
                   help="ginbox random-play games per rules preset (default 2000)")
    p.add_argument("--deadwood", type=int, default=20_000,
                   help="10-card hands for the per-call least-deadwood rates (default 20000)")
    p.add_argument("--compare", type=int, default=100_000,
                   help="random and meld-rich 11-card hands each for the OpenSpiel check")
    p.add_argument("--brute", type=int, default=300,
                   help="random and meld-rich hands each to check ginbox by brute force")
    p.add_argument("--batch", type=int, default=400_000,
                   help="masks for ginbox's batch kernels (default 400000)")
    p.add_argument("--no-peers", action="store_true", help="measure ginbox only")
    p.add_argument("--envs", action="store_true",
                   help="measure only the learning environments (sim.env) next to PettingZoo's "
                   "gin_rummy_v4")
    p.add_argument("--env-steps", type=int, default=20_000,
                   help="AEC steps per environment and run (default 20000)")
    p.add_argument("--vector-steps", type=int, default=2_000_000,
                   help="VectorEnv steps per run (default 2000000)")
    p.add_argument("--num-envs", type=int, default=512, help="VectorEnv games (default 512)")
    p.add_argument("--repeats", type=int, default=3,
                   help="runs of each environment measurement (default 3; the median is shown)")
    p.add_argument("--gin-rummy-python", metavar="PATH",
                   help=f"an interpreter with {GIN_RUMMY_REQUIREMENT} (default: "
                   f"$GINBOX_GIN_RUMMY_PYTHON, else {GIN_RUMMY_VENV}/bin/python)")
    p.add_argument("--setup-gin-rummy", action="store_true",
                   help=f"first create {GIN_RUMMY_VENV} with {GIN_RUMMY_REQUIREMENT}")
    p.add_argument("--write-docs", action="store_true",
                   help=f"write the table into {DOC.relative_to(ROOT)}")
    args = p.parse_args(argv)
    where = machine()
    load = load_average()
    t = time.perf_counter()
    if args.envs:
        if args.setup_gin_rummy:
            setup_gin_rummy()
        python = gin_rummy_python(args.gin_rummy_python)
        rows = env_rows(args.env_steps, args.vector_steps, args.num_envs, args.repeats, python)
        command = " ".join(["python -m benchmarks.peers", *argv])
        where += f"; load average {load} at the start, {load_average()} at the end"
        text = env_section(rows, command, time.perf_counter() - t, where)
        print(text)
        if args.write_docs:
            write_docs(text, begin=ENVS_BEGIN, end=ENVS_END,
                       heading="## The learning environments against gin_rummy_v4")
            print(f"\nwritten to {DOC}")
        return 0
    rows = run(hands=args.hands, games=args.games, deadwood=args.deadwood,
               compare=args.compare, brute=args.brute, batch=args.batch,
               peers=not args.no_peers)
    seconds = time.perf_counter() - t
    command = " ".join(["python -m benchmarks.peers", *argv])
    where += f"; load average {load} at the start, {load_average()} at the end"
    text = section(rows, command, seconds, where)
    print(text)
    if args.write_docs:
        write_docs(text)
        print(f"\nwritten to {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
