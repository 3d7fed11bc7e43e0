"""The README's examples run, so the first page a user reads cannot rot."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


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


QUOTE = re.compile(r"<!-- quote: (\S+) (\S+) -->\n(.*?)<!-- end quote -->", re.S)
FIGURE = re.compile(r"\d+(?:\.\d+)?%")


def _lab_pages_linked(text: str) -> list[str]:
    return [(ROOT / target).read_text(encoding="utf-8")
            for target in re.findall(r"\]\((docs/lab/[^)#\s]+)", text)]


def test_readme_quotes_its_results_from_the_lab_notebook() -> None:
    """The results table is the lab page's block verbatim, and every other figure the README
    quotes (a percentage) appears in a lab page it links to."""
    text = README.read_text(encoding="utf-8")
    quotes = QUOTE.findall(text)
    assert quotes, "the README quotes no lab block"
    for source, name, body in quotes:
        assert source.startswith("docs/lab/"), source
        lab = (ROOT / source).read_text(encoding="utf-8")
        block = lab.split(f"<!-- block: {name} -->\n", 1)[1].split("<!-- end block -->", 1)[0]
        assert body == block, f"README: the {name} table differs from {source}: copy it again"
    prose = QUOTE.sub("", text)
    linked = "\n".join(_lab_pages_linked(prose))
    for figure in FIGURE.findall(prose):
        assert figure in linked, f"README quotes {figure}, which no linked lab page has"
