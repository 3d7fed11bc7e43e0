"""``python -m benchmarks.loop_check``: the one game loop's speed and what it plays, for two
checkouts compared in turn.

Every player of games drives the same compiled loop (``sim.play.loop``), so a change to it is
checked two ways, from each checkout in turn (``PYTHONPATH=<checkout> python -m
benchmarks.loop_check``):

* ``speed``: CPU seconds (``time.process_time``: what other work on a shared machine disturbs
  least), fastest of ``--repeat`` runs, of the batch loop (``greedy-knock`` three-handed and
  ``simple`` two-handed, hands a CPU second), ``mc`` and ``net`` against ``simple`` (games a
  CPU second);
* ``digest``: a hash of what every driver of the loop produced on fixed seeds: the batch
  loop's game rows, both recorders of ``ginbox train`` (the expert's self-play and the
  belief's games), the ceiling study's clairvoyant seat and the leaf evaluator's positions.
  Two checkouts that print the same digests play and record the same games.

    python -m benchmarks.loop_check speed --repeat 5
    python -m benchmarks.loop_check digest
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

import numpy as np


def _hash(*arrays: np.ndarray) -> str:
    digest = hashlib.sha256()
    for a in arrays:
        digest.update(np.ascontiguousarray(a).tobytes())
    return digest.hexdigest()[:16]


def _cpu_rate(lineup: str, rules: str, games: int, repeat: int, per: str) -> float:
    """Hands (``per="hands"``) or games a CPU second, fastest of ``repeat`` runs."""
    from sim.play.driver import play_games

    play_games(lineup, rules=rules, games=2, seed=1)  # compile or load the cache first
    best, count = float("inf"), games
    for _ in range(repeat):
        start = time.process_time()
        result = play_games(lineup, rules=rules, games=games, seed=7)
        best = min(best, time.process_time() - start)
        if per == "hands":
            assert result.games is not None
            count = int(result.games["hands"].sum())
    return count / best


def speed(repeat: int) -> dict[str, float]:
    """The loop's throughput, per CPU second."""
    return {
        "greedy_hands_per_cpu_s": _cpu_rate("greedy-knock,greedy-knock,greedy-knock",
                                            "three-handed", 20000, repeat, "hands"),
        "simple_hands_per_cpu_s": _cpu_rate("simple,simple", "eaai", 20000, repeat, "hands"),
        "mc_games_per_cpu_s": _cpu_rate("mc,simple", "eaai", 30, max(1, repeat // 2), "games"),
        "net_games_per_cpu_s": _cpu_rate("net,simple", "eaai", 600, repeat, "games"),
    }


def digest() -> dict[str, str]:
    """Hashes of what each driver of the loop produced on fixed seeds."""
    from sim.engine.rules import Rules
    from sim.learn.belief_data import play_chunk
    from sim.learn.selfplay import record_games
    from sim.play.driver import Seeds, play_games
    from strategies.net import NET_WEIGHTS
    from strategies.registry import parse_strategy
    from studies.ceiling import parse_player, seat_rows
    from studies.mc_eval import self_play_positions

    seeds = Seeds.from_seed(7)
    out: dict[str, str] = {}
    for table in ("eaai", "three-handed"):
        rules = Rules.preset(table)
        lineup = ",".join(["tuned", "discard-tracking", "simple"][:rules.players])
        games = play_games(lineup, rules=rules, games=300, seed=7).games
        assert games is not None
        out[f"batch {table}"] = _hash(games.to_numpy(np.int64))
        params = parse_strategy("mc:samples=4").params_array()
        views, meta, cands, values, kept = record_games(rules.to_array(), params, NET_WEIGHTS,
                                                        seeds.deck, seeds.strategy, 3, 2)
        out[f"self-play {table}"] = _hash(views, meta, cands, values, np.array([kept]))
        shard = play_chunk(7, table, 0, 1, 3, ("simple", "tuned", "mc:samples=4"), 3)
        out[f"belief {table}"] = _hash(shard.views, shard.hands, shard.meta)
        rows = self_play_positions(rules.to_array(), rules.players, rules.target, 60,
                                   np.uint64(12345), True)
        out[f"evaluator {table}"] = _hash(rows)
    for player in ("clairvoyant:samples=4", "clairvoyant-hand:samples=4"):
        counts = np.zeros(3, np.int64)
        rows = list(seat_rows(parse_player(player), Rules.preset("eaai"), ["simple"], 1, 4,
                              seeds, counts))
        out[f"ceiling {player}"] = _hash(*rows, counts)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loop_check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("speed", "digest"))
    parser.add_argument("--repeat", type=int, default=5, help="runs of each speed figure")
    args = parser.parse_args(argv)
    print(json.dumps(speed(args.repeat) if args.what == "speed" else digest()))


if __name__ == "__main__":
    main()
