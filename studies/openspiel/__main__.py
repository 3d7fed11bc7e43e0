"""The commands of :mod:`studies.openspiel` (its docstring says what each measures)."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pyspiel

import sim.openspiel
from sim.io.files import atomic_write_text


def interval(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% interval."""
    values = np.asarray(values, float)
    half = 1.96 * values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return float(values.mean()), float(half)


def summary(points: np.ndarray, extra: dict[str, Any]) -> dict[str, Any]:
    """Points per hand and hand win rate (percent) with 95% intervals."""
    pts, pts_half = interval(points)
    win, win_half = interval(100.0 * (points > 0))
    loss, loss_half = interval(100.0 * (points < 0))
    return {**extra, "hands": len(points), "points_per_hand": pts, "points_half": pts_half,
            "win_pct": win, "win_half": win_half, "loss_pct": loss, "loss_half": loss_half}


def cross(spec: str, hands: int, seed: int, lay_off: bool = True) -> dict[str, Any]:
    game = pyspiel.load_game("gin_rummy")
    points = np.zeros(hands)
    start = time.perf_counter()
    for h in range(hands):
        me = h % 2
        ours = sim.openspiel.bot(spec, game, me, seed=seed + h, lay_off=lay_off)
        theirs = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - me)
        bots = [ours, theirs] if me == 0 else [theirs, ours]
        points[h] = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + h)[me]
    return summary(points, {"command": "cross", "spec": spec, "vs": "openspiel-simple",
                            "lay_off": lay_off,
                            "seconds": time.perf_counter() - start})


def in_ginbox(spec: str, vs: str, hands: int, seed: int) -> dict[str, Any]:
    """The pairing in ginbox's engine: single ``eaai`` hands of ``python_ginbox`` (scores 0,
    as in OpenSpiel's gin), both seats ginbox built-ins, seats swapped every hand."""
    game = pyspiel.load_game(sim.openspiel.GAME_NAME, {"rules": "eaai"})
    points = np.zeros(hands)
    start = time.perf_counter()
    for h in range(hands):
        me = h % 2
        bots = [sim.openspiel.builtin_bot(spec if p == me else vs, game, p, seed=seed + h)
                for p in range(2)]
        points[h] = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + h)[me]
    return summary(points, {"command": "ginbox", "spec": spec, "vs": vs,
                            "seconds": time.perf_counter() - start})


def search(algo: str, rules: str, vs: str, hands: int, sims: int, seed: int) -> dict[str, Any]:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(sim.openspiel.GAME_NAME, {"rules": rules})
    n = game.num_players()
    points = np.zeros(hands)
    decisions = 0
    search_seconds = 0.0
    start = time.perf_counter()
    for h in range(hands):
        me = h % n
        rs = np.random.RandomState(seed + h)
        evaluator = mcts.RandomRolloutEvaluator(1, rs)
        if algo == "ismcts":
            searcher = ismcts.ISMCTSBot(game, evaluator, 2.0, sims, random_state=rs,
                                        allow_inconsistent_action_sets=True)
            searcher.set_resampler(sim.openspiel.resampler(seed + h))
        else:
            searcher = mcts.MCTSBot(game, 2.0, sims, evaluator, random_state=rs, solve=False)
        state = game.new_initial_state()
        others = {p: sim.openspiel.builtin_bot(vs, game, p, seed=seed + h) for p in range(n)
                  if p != me}
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rs.choice(outcomes, p=probs)))
                continue
            player = state.current_player()
            if player == me:
                t = time.perf_counter()
                action = searcher.step(state)
                search_seconds += time.perf_counter() - t
                decisions += 1
            else:
                action = others[player].step(state)
            state.apply_action(action)
        points[h] = state.returns()[me]
    return summary(points, {"command": "search", "algo": algo, "rules": rules, "vs": vs,
                            "sims": sims, "seconds": time.perf_counter() - start,
                            "seconds_per_decision": search_seconds / max(decisions, 1)})


CRASH_PROBE = """
import pyspiel, sim.openspiel
game = pyspiel.load_game("python_ginbox", {{"rules": "eaai"}})
state = game.new_initial_state()
while state.is_chance_node():
    state.apply_action(state.chance_outcomes()[0][0])
evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
bot = {make}
print("action", bot.{method}(state) if "{method}" == "step" else bot.{method}(state)[1])
"""
CRASH_BOTS = {
    "MCTSBot": "pyspiel.MCTSBot(game, evaluator, 2.0, 20, 1000, False, 0, False)",
    "ISMCTSBot": ("pyspiel.ISMCTSBot(0, evaluator, 2.0, 20, -1, "
                  "pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)"),
}


def crash() -> dict[str, Any]:
    found = {}
    for name, make in CRASH_BOTS.items():
        for method in ("step", "step_with_policy"):
            code = CRASH_PROBE.format(make=make, method=method)
            run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 timeout=300)
            tail = (run.stdout + run.stderr).strip().splitlines()[-1:] or [""]
            found[f"{name}.{method}"] = {"returncode": run.returncode, "last_line": tail[0]}
    return {"command": "crash", "open_spiel": pyspiel.__version__
            if hasattr(pyspiel, "__version__") else "2.0.2", "results": found}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.openspiel")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("cross", "ginbox", "search", "crash"):
        p = sub.add_parser(name)
        p.add_argument("--out", required=True)
        if name != "crash":
            p.add_argument("--hands", type=int, default=1000)
            p.add_argument("--seed", type=int, default=0)
        if name in ("cross", "ginbox"):
            p.add_argument("--spec", default="simple")
        if name == "cross":
            p.add_argument("--no-layoffs", action="store_true",
                           help="the ginbox bot never lays off (as OpenSpiel's simple bot)")
        if name in ("ginbox", "search"):
            p.add_argument("--vs", default="simple")
        if name == "search":
            p.add_argument("--algo", choices=("ismcts", "mcts"), default="ismcts")
            p.add_argument("--rules", default="eaai")
            p.add_argument("--sims", type=int, default=100)
    args = parser.parse_args(argv)
    if args.command == "cross":
        result = cross(args.spec, args.hands, args.seed, not args.no_layoffs)
    elif args.command == "ginbox":
        result = in_ginbox(args.spec, args.vs, args.hands, args.seed)
    elif args.command == "search":
        result = search(args.algo, args.rules, args.vs, args.hands, args.sims, args.seed)
    else:
        result = crash()
    line = json.dumps(result)
    atomic_write_text(args.out, line + "\n")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
