"""docs/api.md and docs/experiments.md: every example and command runs, so the docs cannot rot.

Each page runs as one session, in document order, in an empty temporary working directory
(holding a copy of ``experiments/`` and ``studies/``):

* ```python blocks share one namespace per page, as in an interpreter: blocks of ``>>>``
  examples run through :mod:`doctest` (the outputs shown must be the real ones), other blocks
  through ``exec``; a ```text block directly after a python block is what that block prints.
* A ```toml block whose first line is ``# save as NAME.toml`` is saved to that file when the
  session reaches it; every toml block that is a whole experiment must load.
* Each ``$ ginbox ...`` line of a ```console block runs as ``python -m sim ...``. It must exit
  with 0, or with 2 when the output shown holds a ``ginbox: error:`` line (and then change no
  file), and print every output line shown (the ``in 4.4 s (14 games/s)`` timing aside). A
  command on a shipped experiment (``experiments/*.toml``, ``studies/*/*.toml``) runs with
  ``--games 6`` (and ``--jobs 1`` unless it names a backend) and its results in a scratch
  directory, since the full runs take minutes; the placeholder scheduler
  address ``tcp://scheduler-host:8786`` is replaced by a local Dask cluster's.

Besides, the tables that describe the code must match it: the per-game columns, the experiment
keys (each example in the schema tables must load), the manifest keys, the report files.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import distributed
import pytest

import sim
from sim.analysis.report import REPORT_FILES
from sim.runs.experiment import ARM_KEYS, TOP_KEYS, load_experiment

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
SAVE_AS = re.compile(r"\A# save as ([\w.-]+)\n")
TIMING = re.compile(r" in [\d.,]+ s \([\d.,]+ games/s\)$")
SCHEDULER = "tcp://scheduler-host:8786"
SHIPPED_GAMES = "6"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


class Block:
    """A fenced block: its language, body, the line of its opening fence, and whether a
    python block immediately precedes it (so a text block is that block's output)."""

    def __init__(self, lang: str, body: str, line: int, follows_python: bool) -> None:
        self.lang, self.body, self.line, self.follows_python = lang, body, line, follows_python


def _text(doc: str) -> str:
    return (ROOT / "docs" / doc).read_text(encoding="utf-8")


def _blocks(doc: str) -> list[Block]:
    text = _text(doc)
    out: list[Block] = []
    previous_end, previous_lang = None, None
    for m in FENCE.finditer(text):
        adjacent = previous_end is not None and not text[previous_end:m.start()].strip()
        out.append(Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1,
                         adjacent and previous_lang == "python"))
        previous_end, previous_lang = m.end(), m.group(1)
    return out


def _table(doc: str, heading: str) -> list[list[str]]:
    """Cells of every row of the first table after ``heading`` (header and rule skipped)."""
    text = _text(doc)
    lines = text[text.index(heading):].splitlines()[1:]
    rows, started = [], False
    for raw in lines:
        if raw.startswith("|"):
            started = True
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", raw.strip().strip("|"))]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif started:
            break
    return rows[1:]  # without the header


def _codes(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


# ------------------------------------------------------------------------------ the session


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty working directory (with experiments/ and studies/) as the current directory."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(ROOT / "experiments", work / "experiments")
    shutil.copytree(ROOT / "studies", work / "studies",
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(work)
    yield work


class Session:
    """Runs a page's blocks in order in one namespace and one working directory."""

    def __init__(self, doc: str, work: Path, scratch: Path) -> None:
        self.doc, self.work, self.scratch = doc, work, scratch
        self.globs: dict[str, Any] = {"__name__": "__doc_example__"}
        self.printed = ""
        self._cluster: Any = None
        self._runs = 0

    def where(self, block: Block) -> str:
        return f"docs/{self.doc}, block at line {block.line}"

    def run(self) -> None:
        try:
            for block in _blocks(self.doc):
                if block.lang == "python":
                    self.python(block)
                elif block.lang == "text" and block.follows_python:
                    self.compare_printed(block)
                elif block.lang == "toml":
                    self.toml(block)
                elif block.lang == "console":
                    self.console(block)
        finally:
            if self._cluster is not None:
                self._cluster.close()

    def python(self, block: Block) -> None:
        where = self.where(block)
        if block.body.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(block.body, self.globs, where,
                                                       str(ROOT / "docs" / self.doc),
                                                       block.line)
            runner = doctest.DocTestRunner(optionflags=FLAGS)
            report: list[str] = []
            runner.run(test, out=report.append, clear_globs=False)
            self.globs = test.globs
            assert runner.failures == 0, "".join(report)
            self.printed = ""
        else:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block.body, where, "exec"), self.globs)
            self.printed = out.getvalue()

    def compare_printed(self, block: Block) -> None:
        def norm(text: str) -> list[str]:
            return [" ".join(line.split()) for line in text.strip().splitlines()]

        assert norm(self.printed) == norm(block.body), (
            f"{self.where(block)}: the python block before it printed\n{self.printed}")

    def toml(self, block: Block) -> None:
        saved = SAVE_AS.match(block.body)
        data = tomllib.loads(block.body)
        if "arms" in data:  # a whole experiment: it must load
            try:
                load_experiment(data)
            except ValueError as exc:
                if not (saved and saved.group(1).startswith("bad")):
                    raise AssertionError(f"{self.where(block)}: {exc}") from None
            else:
                assert not (saved and saved.group(1).startswith("bad")), self.where(block)
        if saved:
            (self.work / saved.group(1)).write_text(block.body, encoding="utf-8")

    def scheduler(self) -> str:
        if self._cluster is None:
            self._cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1,
                                                     processes=True, dashboard_address=None)
        return str(self._cluster.scheduler_address)

    def console(self, block: Block) -> None:
        commands: list[tuple[str, list[str]]] = []
        for raw in block.body.splitlines():
            if raw.startswith("$ "):
                commands.append((raw[2:], []))
            else:
                assert commands, f"{self.where(block)}: output before any command"
                commands[-1][1].append(raw)
        for command, shown in commands:
            self.command(block, command, shown)

    def command(self, block: Block, command: str, shown: list[str]) -> None:
        words = shlex.split(command)
        assert words[0] == "ginbox", f"{self.where(block)}: {command}"
        args = words[1:]
        if SCHEDULER in args:
            args[args.index(SCHEDULER)] = self.scheduler()
        shipped = [a for a in args if a.startswith(("experiments/", "studies/"))
                   and a.endswith(".toml")]
        if shipped:
            assert not shown, f"{command}: a full-size run's output cannot be checked"
            self._runs += 1
            out = self.scratch / f"{Path(shipped[0]).stem}-{self._runs}"
            args += ["--games", SHIPPED_GAMES, "--quiet", "--out", str(out)]
            if "--jobs" not in args and "--backend" not in args:
                args += ["--jobs", "1"]  # in-process: no worker start-up for a tiny run
        failing = any(line.startswith("ginbox: error:") for line in shown)
        before = _snapshot(self.work) if failing else None
        done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=self.work,
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                  p for p in (str(self.work), os.environ.get("PYTHONPATH"))
                                  if p)})
        printed = done.stdout + done.stderr
        expected = 2 if failing else 0
        assert done.returncode == expected, (
            f"{self.where(block)}\n$ {command}\nexit {done.returncode}, expected {expected}\n"
            f"{printed}")
        if before is not None:
            assert _snapshot(self.work) == before, f"$ {command} changed files"
        lines = {_norm(line) for line in printed.splitlines()}
        for line in shown:
            if line.strip() in ("", "..."):
                continue
            assert _norm(line) in lines, (
                f"{self.where(block)}\n$ {command}\nmissing: {line}\n{printed}")


def _norm(line: str) -> str:
    return TIMING.sub("", " ".join(line.split()))


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


# ---------------------------------------------------------------------------------- api.md


def test_api_md_examples_run(workdir: Path, tmp_path: Path) -> None:
    Session("api.md", workdir, tmp_path / "scratch").run()


def test_architecture_md_recipes_run(workdir: Path, tmp_path: Path) -> None:
    """The recipes of docs/architecture.md (a front end, a preset, a strategy) run as shown."""
    Session("architecture.md", workdir, tmp_path / "scratch").run()


def test_api_md_lists_every_game_column() -> None:
    rows = _table("api.md", "The columns of `games`")
    documented = set()
    for cells in rows:
        for name in _codes(cells[0]):
            expanded = [name]
            if "<b><c>" in name:
                expanded = [name.replace("<b><c>", f"{b}{c}") for b in range(3) for c in range(3)]
            elif "<s>" in name:
                expanded = [name.replace("<s>", str(s)) for s in range(3)]
            documented.update(expanded)
    columns = set(sim.play_games("simple,simple,simple", games=1).games.columns)
    assert documented == columns, (sorted(columns - documented), sorted(documented - columns))


def test_api_md_names_the_public_api() -> None:
    text = _text("api.md")
    for cells in _table("api.md", "## Importing"):
        name = _codes(cells[0])[0]
        assert name.startswith("sim.") and callable(getattr(sim, name[4:])), name
    from sim.analysis import plots, report

    def documented(name: str) -> bool:
        return re.search(rf"`(?:[\w.]+\.)?{name}\(", text) is not None

    for name in plots.__all__:
        assert documented(name), name
    for name in ("report", "win_rates", "seat_win_rates", "box_retention", "box_runs",
                 "hand_outcomes", "paired_difference", "gin_bonus_study", "knock_sweep",
                 "knock_sweep_summary", "wilson"):
        assert hasattr(report, name) and documented(name), name


# --------------------------------------------------------------------------- experiments.md


def test_experiments_md_examples_and_commands_run(workdir: Path, tmp_path: Path) -> None:
    Session("experiments.md", workdir, tmp_path / "scratch").run()
    manifest = json.loads((workdir / "results" / "tiny" / "manifest.json").read_text())
    documented = {name for cells in _table("experiments.md", "### The manifest")
                  for name in _codes(cells[0])}
    assert documented == set(manifest), (sorted(set(manifest) - documented),
                                          sorted(documented - set(manifest)))


BASE_ARM = {"name": "a", "strategies": ["simple", "simple", "simple"]}


@pytest.mark.parametrize(("heading", "keys"), [("### Top-level keys", TOP_KEYS),
                                               ("### Arm keys", ARM_KEYS)])
def test_experiments_md_schema_tables(heading: str, keys: tuple[str, ...]) -> None:
    rows = _table("experiments.md", heading)
    assert [_codes(cells[0])[0] for cells in rows] == list(keys)
    for cells in rows:
        key, example = _codes(cells[0])[0], cells[-1]
        statements = _codes(example)
        assert statements and any(s.startswith(f"{key} =") for s in statements), key
        values: dict[str, Any] = {}
        for statement in statements:
            values.update(tomllib.loads(statement))
        if heading.startswith("### Top"):
            data = {"name": "x", "seed": 1, "games": 6, "arms": [dict(BASE_ARM)], **values}
        else:
            data = {"name": "x", "seed": 1, "games": 6, "arms": [{**BASE_ARM, **values}]}
        load_experiment(data)  # raises ValueError naming the field if the example is wrong


def test_experiments_md_describes_the_shipped_experiments_and_the_report() -> None:
    text = _text("experiments.md")
    # the full runs' tables are in the lab notebook, one page per study
    found = (ROOT / "docs" / "lab" / "2026-11-30-shipped-experiments.md").read_text()
    for name in ("quick", "box_retention", "gin_bonus", "knock_sweep"):
        assert f"### {name} (" in found and f"ginbox run experiments/{name}.toml" in found
    # league, tuning and training files: docs/league.md, tuning.md, learning.md
    shipped = sorted(p.name for p in (ROOT / "experiments").glob("*.toml")
                     if not p.name.startswith(("league_", "tune_", "train_")))
    listed = [_codes(cells[0])[0] for cells in _table("experiments.md", "## The shipped")]
    assert sorted(listed) == shipped
    for name in shipped:
        assert f"$ ginbox run experiments/{name}\n" in text, name
        load_experiment(ROOT / "experiments" / name)
    files = {name for cells in _table("experiments.md", "## The report")
             for name in _codes(cells[0])}
    assert files == set(REPORT_FILES)
    options = [_codes(cells[0])[0].split()[0]
               for cells in _table("experiments.md", "## Running: `ginbox run`")]
    assert options == ["--games", "--seed", "--jobs", "--backend", "--scheduler",
                       "--if-cluster-lost", "--out",
                       "--resume", "--force", "--break-lock", "--quiet", "--log"]
    commands = " ".join(b.body for b in _blocks("experiments.md") if b.lang == "console")
    for option in options:
        assert f" {option}" in commands, f"no command shows {option}"
