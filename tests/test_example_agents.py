"""The example outside players in examples/ (Python, Node.js, C) play whole games through
``agent:PATH`` without a fault, two-handed and three-handed with the advisor."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sim.engine.rules import Rules
from sim.play.driver import play_games
from strategies.outside import close_programs

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _program(language: str, tmp_path: Path) -> str:
    if language == "python":
        return str(EXAMPLES / "agent.py")
    if language == "node":
        assert shutil.which("node"), "the Node example's test needs node: apt-get install nodejs"
        return str(EXAMPLES / "agent.js")
    compiler = shutil.which("cc") or shutil.which("gcc")
    assert compiler, "the C example's test needs a C compiler: apt-get install gcc"
    binary = tmp_path / "agent"
    subprocess.run([compiler, "-O2", "-Wall", "-Werror", "-o", str(binary),
                    str(EXAMPLES / "agent.c")], check=True)
    return str(binary)


@pytest.mark.parametrize("language", ["python", "node", "c"])
def test_an_example_plays_without_a_fault(language: str, tmp_path: Path) -> None:
    path = _program(language, tmp_path)
    try:
        two = play_games([f"agent:{path}", "simple"], "eaai", games=2, seed=1, log=True)
        three = play_games([f"agent:{path}", "simple", "greedy-knock"],
                           Rules.resolve("three-handed", {"team_policy": "advisor"}),
                           games=1, seed=2, log=True)
    finally:
        close_programs()
    for result in (two, three):
        assert "forfeits" not in result.summary()
        assert result.log and not any("ended_by" in r for r in result.log)
        assert sum(r["game_over"] for r in result.log) == result.n_games
