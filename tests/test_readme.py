"""The README's examples run, so the first page a user reads cannot rot."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from sim.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_examples() -> None:
    failures, tried = doctest.testfile(str(README), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried >= 8 and failures == 0


def test_readme_names_the_two_commands_first() -> None:
    lines = README.read_text().splitlines()
    assert lines[2].strip().startswith("make run") and lines[3].strip().startswith("make test")


@pytest.mark.parametrize("argv", [["strategies"], ["play", "--strategies",
                                  "discard-tracking,greedy-knock,simple", "--games", "5",
                                  "--quiet"]])
def test_readme_commands_run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    assert "greedy-knock" in capsys.readouterr().out
