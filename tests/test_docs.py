"""docs/rules.md and docs/strategies.md: every example runs, so the docs cannot rot.

* Each ```python block runs on its own, in a fresh namespace and a temporary working directory:
  blocks of ``>>>`` examples through :mod:`doctest` (the outputs shown must be the real ones),
  other blocks through ``exec``. A block whose first line is ``# save as NAME.py`` is a module the
  reader saves: every such block of the page is written to its file first, so other blocks (and
  commands) can import it, and the block itself is tested by importing it (numba's on-disk cache
  needs a real file).
* Each ``$ ginbox ...`` command of a ```console block in strategies.md runs as
  ``python -m sim ...`` next to those files; it must exit 0 and print every output line shown
  (timings aside), and a ``play`` command must name each of its strategies in the summary.
* The option, preset and strategy tables must match the code: every ``Rules`` field with its
  default and range, every preset with what it sets, every registry strategy and parameter with
  its default and range, every View field.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numba
import pytest

from sim.engine.rules import PRESETS, Rules
from sim.engine.view import View
from strategies import builtin, generate, registry
from strategies.registry import ALIASES, BUILTINS, parse_strategies

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("rules.md", "strategies.md")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
SAVE_AS = re.compile(r"\A# save as (\w+)\.py\n")
TIMING = re.compile(r"\d games?/s$")  # "20 games of ..., seed 1: 0.56 s, 36 games/s"


def _text(doc: str) -> str:
    return (ROOT / "docs" / doc).read_text(encoding="utf-8")


def _blocks(doc: str, language: str) -> list[tuple[int, str]]:
    """(line number of the opening fence, body) of every block fenced as ``language``."""
    text = _text(doc)
    return [(text.count("\n", 0, m.start()) + 1, m.group(2))
            for m in FENCE.finditer(text) if m.group(1) == language]


def _modules(doc: str) -> dict[str, str]:
    """Module name -> source of the ``# save as NAME.py`` blocks of a document."""
    out = {}
    for _, code in _blocks(doc, "python"):
        m = SAVE_AS.match(code)
        if m:
            out[m.group(1)] = code
    return out


def _example_params() -> list[object]:
    params = []
    for doc in DOCS:
        for line, code in _blocks(doc, "python"):
            params.append(pytest.param(doc, line, code, id=f"{doc}:{line}"))
    return params


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary working directory on the import path; imported doc modules are forgotten.

    numba caches what the examples compile under the temporary directory too, so test runs
    leave nothing behind in the user's ginbox cache.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba-cache"))
    names = {name for doc in DOCS for name in _modules(doc)}
    for name in names:
        sys.modules.pop(name, None)
    yield tmp_path
    for name in names:
        sys.modules.pop(name, None)


@pytest.mark.parametrize(("doc", "line", "code"), _example_params())
def test_python_example_runs(doc: str, line: int, code: str, workdir: Path) -> None:
    for name, source in _modules(doc).items():
        (workdir / f"{name}.py").write_text(source, encoding="utf-8")
    where = f"docs/{doc}, block at line {line}"
    saved = SAVE_AS.match(code)
    if saved:
        importlib.import_module(saved.group(1))
    elif code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, {"__name__": "__doc_example__"}, where,
                                                   str(ROOT / "docs" / doc), line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        report: list[str] = []
        runner.run(test, out=report.append)
        assert runner.failures == 0, "".join(report)
    else:
        exec(compile(code, where, "exec"), {"__name__": "__doc_example__"})


def _commands(doc: str) -> list[tuple[str, list[str]]]:
    """(command, output lines shown) for every ``$ ginbox`` line of the console blocks."""
    out: list[tuple[str, list[str]]] = []
    for _, body in _blocks(doc, "console"):
        for raw in body.splitlines():
            if raw.startswith("$ "):
                out.append((raw[2:], []))
            elif out:
                out[-1][1].append(raw)
    assert all(cmd.startswith("ginbox ") for cmd, _ in out)
    return out


def test_strategies_md_commands_run(workdir: Path) -> None:
    """The commands of strategies.md, in order, as a user would type them next to mybot.py."""
    modules = _modules("strategies.md")
    assert "mybot" in modules
    for name, source in modules.items():
        (workdir / f"{name}.py").write_text(source, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(workdir), env.get("PYTHONPATH")) if p)
    commands = _commands("strategies.md")
    assert any("mybot:MyBot" in cmd for cmd, _ in commands)
    for cmd, shown in commands:
        argv = [sys.executable, "-m", "sim", *shlex.split(cmd)[1:]]
        done = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, f"$ {cmd}\n{done.stdout}{done.stderr}"
        printed = {" ".join(line.split()) for line in done.stdout.splitlines()}
        for line in shown:
            if line.strip() in ("", "...") or TIMING.search(line.strip()):
                continue
            assert " ".join(line.split()) in printed, f"$ {cmd}\nmissing: {line}\n{done.stdout}"
        if cmd.startswith("ginbox play"):
            words = shlex.split(cmd)
            for spec in parse_strategies(words[words.index("--strategies") + 1]):
                assert spec.text in done.stdout, f"$ {cmd}\n{done.stdout}"


# ------------------------------------------------------------------------- tables vs code


def _table_rows(doc: str, heading: str) -> dict[str, list[str]]:
    """Rows of the first table after ``heading``: first cell (backticks stripped) -> cells."""
    text = _text(doc)
    start = text.index(heading)
    rows: dict[str, list[str]] = {}
    for raw in text[start:].splitlines()[1:]:
        if raw.startswith("#"):
            break
        if raw.startswith("| `"):
            cells = [c.strip() for c in raw.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells
    return rows


def _default_text(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def test_rules_md_lists_every_field_with_its_default_and_range() -> None:
    rows = _table_rows("rules.md", "## Every option: the `Rules` fields")
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    assert set(rows) == set(fields)
    base = Rules()
    for name, cells in rows.items():
        _, _, default_cell, range_cell, meaning = cells
        assert meaning, name
        value = getattr(base, name)
        assert default_cell.strip("`") == _default_text(value), name
        bounds = re.fullmatch(r"(\d+)\.\.(\d+)", range_cell)
        if range_cell == "2 or 3":
            bounds = re.fullmatch(r"(\d) or (\d)", range_cell)
        if isinstance(value, int) and not isinstance(value, bool):
            # every number has both bounds (no open "n or more"): one step outside is refused
            assert bounds, f"{name}: range {range_cell!r} is not low..high"
        if bounds:  # both ends accepted, one step outside refused
            lo, hi = int(bounds.group(1)), int(bounds.group(2))
            base.replace(**{name: lo})
            base.replace(**{name: hi})
            for bad in (lo - 1, hi + 1, 2**63):
                with pytest.raises(ValueError, match=rf"^{name}=.* is out of range: expected "
                                                     rf"(an integer {lo}\.\.{hi}|2 or 3)$"):
                    base.replace(**{name: bad})


def test_rules_md_lists_every_preset_with_what_it_sets() -> None:
    rows = _table_rows("rules.md", "## Presets")
    assert list(rows) == list(PRESETS)
    base = Rules()
    for name, cells in rows.items():
        preset = Rules.preset(name)
        assert cells[1] == str(preset.players), name
        for field in dataclasses.fields(Rules):
            value = getattr(preset, field.name)
            if field.name != "name" and value != getattr(base, field.name):
                assert f"`{field.name}={value!r}`" in cells[2], (name, field.name)


def test_strategies_md_covers_every_strategy_parameter_and_view_field() -> None:
    text = _text("strategies.md")
    for name in BUILTINS:
        assert f"### `{name}`" in text, name
    for alias, target in ALIASES.items():
        assert f"`{alias}` = `{target}`" in text, alias
    rows = {(cells[0].strip("`"), cells[1].strip("`")): cells
            for cells in _param_rows(text)}
    expected = {(s.name, p.name): p for s in BUILTINS.values() for p in s.params}
    assert set(rows) == set(expected)
    for key, p in expected.items():
        _, _, default_cell, range_cell, meaning = rows[key]
        assert default_cell == ("the knock limit" if p.default is None else str(p.default)), key
        assert range_cell == f"{p.low}..{p.high}", key
        assert meaning, key
    for field in dataclasses.fields(View):
        assert f"| `{field.name}` |" in text, field.name
    strength = text.split("## Evidence of strength", 1)[1]
    for name in BUILTINS:  # the measured table has a row and a column per strategy
        assert f"| **{name}** |" in strength and f"| {name} |" in strength


def _param_rows(text: str) -> list[list[str]]:
    start = text.index("### Parameters")
    end = text.index("## The built-in strategies")
    return [[c.strip() for c in raw.strip().strip("|").split("|")]
            for raw in text[start:end].splitlines() if raw.startswith("| `")]


def test_compiled_recipe_matches_the_code() -> None:
    """The 'adding a built-in' steps name real things with the real shared signature."""
    text = _text("strategies.md")
    assert f"def cautious_decide({', '.join(builtin.SIGNATURE)})" in text
    for info in BUILTINS.values():
        assert tuple(inspect.signature(info.decide.py_func).parameters) == builtin.SIGNATURE
    assert f"`N_PARAMS` = {builtin.N_PARAMS}" in text
    ids = sorted(s.strategy_id for s in BUILTINS.values())
    assert ids == list(range(len(BUILTINS)))
    assert f"the built-ins use 0 to {len(BUILTINS) - 1}" in text
    assert f"strategy_id={len(BUILTINS)}," in text  # the next free id
    for helper in ("in_some_best_meld", "pick_highest", "best_ties", "deadwood_if_taken",
                   "live_cards", "opponent_holds", "meld_potential", "feeds_opponent",
                   "legal_moves", "best_discards", "deadwood_table", "simple_decide"):
        assert f"`{helper}" in text and hasattr(builtin, helper), helper
    assert "python -m strategies.generate" in text and callable(generate.main)
    # the unchanged lines the diff shows around the addition are the real registry table
    source = inspect.getsource(registry)
    context = [line[1:] for _, body in _blocks("strategies.md", "diff")
               for line in body.splitlines() if line.startswith(" ")]
    assert context
    for line in context:
        assert line in source, line
