"""``python -m benchmarks.record_costs``: the Python-level cost of reading the engine's arrays.

The functions outside compiled code that read or fill the engine's arrays field by field (a
view turned into a ``View`` and back, a hand's log result, a logged hand replayed) are timed
on the positions of one ``eaai`` game (seed 3, the caller's seat playing its first legal move
against ``simple``), and that whole game played by a ``GameState`` that a listener watches
(every move stepped in Python, the hand state read by name at each). Each figure is CPU
microseconds a call (``time.process_time``, so other work on a shared machine counts less),
the mean of ``--repeats`` timed batches with its 95% interval. Run it on two commits to
compare them:

    python -m benchmarks.record_costs --repeats 20
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any

from sim.engine.view import View
from sim.env.encoding import view_array
from sim.play.state import GameListener, GameState
from sim.records.log import hand_result
from sim.records.replay import replay_hand


def timed(call: Callable[[], Any], number: int, repeats: int) -> dict[str, float]:
    """Mean CPU microseconds a call over ``repeats`` batches of ``number``, with its 95%
    interval (normal approximation over the batches)."""
    runs = [t / number * 1e6 for t in timeit.Timer(call, timer=time.process_time).repeat(
        repeat=repeats, number=number)]
    mean = statistics.fmean(runs)
    half = 1.96 * statistics.stdev(runs) / len(runs) ** 0.5
    return {"us": round(mean, 2), "low": round(mean - half, 2), "high": round(mean + half, 2)}


def watched_game() -> tuple[int, ...]:
    """The benchmark's game played move by move with a listener: its final scores."""
    state = GameState("eaai", [None, "simple"], seed=3, listener=GameListener())
    while state.waiting:
        state.play(state.legal_moves()[0])
    return state.scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    state = GameState("eaai", [None, "simple"], seed=3)
    positions = []
    while state.waiting:
        positions.append((state.view_array.copy(), state.bufs.pile.copy()))
        state.play(state.legal_moves()[0])
    view, pile = positions[len(positions) // 2]
    python_view = View.from_arrays(view, pile)
    hs, record = state.bufs.hs, state.records[0]
    watched_game()  # its first call loads the stepped path's compiled code
    calls: dict[str, tuple[Callable[[], Any], int]] = {
        "View.from_arrays": (lambda: View.from_arrays(view, pile), 500),
        "View.to_array": (python_view.to_array, 2000),
        "view_array": (lambda: view_array(python_view), 2000),
        "hand_result": (lambda: hand_result(hs, [0, 1]), 1000),
        "replay_hand": (lambda: replay_hand(record), 50),
        "GameState.game_over": (lambda: state.game_over, 5000),
        "GameState.scores": (lambda: state.scores, 5000),
        "watched_game": (watched_game, 5),
    }
    print(json.dumps({name: timed(call, number, args.repeats)
                      for name, (call, number) in calls.items()}))


if __name__ == "__main__":
    main()
