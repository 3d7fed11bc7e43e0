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

import argparse
import ast
import dataclasses
import doctest
import importlib
import inspect
import io
import os
import re
import shlex
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

import numba
import pytest
from support import doc_tables

from sim.analysis.report import REPORT_FILES
from sim.cli import UsageError, build_parser
from sim.cli import main as cli_main
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


def test_strategies_md_covers_every_strategy_alias_and_view_field() -> None:
    text = _text("strategies.md")
    for name in BUILTINS:
        assert f"### `{name}`" in text, name
    for alias, target in ALIASES.items():
        assert f"`{alias}` = `{target}`" in text, alias
    for field in dataclasses.fields(View):
        assert f"| `{field.name}` |" in text, field.name


def test_strategies_md_tables_are_the_generated_ones() -> None:
    """The strategy, parameter and named-set tables are generated from the registry."""
    block = doc_tables.page_block(_text("strategies.md"))
    assert block == doc_tables.tables(), f"docs/strategies.md: regenerate with {doc_tables.COMMAND}"


def test_doc_tables_cover_the_registry() -> None:
    """Every strategy, parameter (default and range) and set of ``describe()`` is a row."""
    generated = doc_tables.tables()
    for info in registry.describe():
        assert f"| `{info['name']}` | " in generated, info["name"]
        for name, p in info["params"].items():
            low, high = p["range"]
            default = "from the rules" if p["default"] is None else str(p["default"])
            assert f"| `{info['name']}` | `{name}` | {default} | {low}..{high} |" in generated
        for set_name in info["sets"]:
            assert f"| `{info['name']}@{set_name}` |" in generated, set_name
    fake = [{"name": "x", "description": "a | b", "sets": {"s": {}},
             "params": {"k": {"default": None, "range": [0, 3], "doc": "one\n two"}}}]
    assert "| `x` | a \\| b |" in doc_tables.tables(fake)
    assert "| `x` | `k` | from the rules | 0..3 | one two |" in doc_tables.tables(fake)
    assert "| `x@s` | every parameter at its default |" in doc_tables.tables(fake)
    with pytest.raises(ValueError, match="regenerate with python tests/support/doc_tables.py"):
        doc_tables.page_block("no tables here")


def test_compiled_recipe_matches_the_code() -> None:
    """The 'adding a built-in' steps (docs/builtins.md) name real things with the real shared
    signature."""
    text = _text("builtins.md")
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
    context = [line[1:] for _, body in _blocks("builtins.md", "diff")
               for line in body.splitlines() if line.startswith(" ")]
    assert context
    for line in context:
        assert line in source, line


# ------------------------------------------------------------- drift between docs and code

PAGES = ("README.md", "CHANGELOG.md", "CONTRIBUTING.md",
         *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "docs").rglob("*.md"))))
SOURCES = [p for d in ("sim", "strategies", "tests", "benchmarks", "experiments", "studies")
           for p in sorted((ROOT / d).rglob("*.py"))]
CODE_SPAN = re.compile(r"`(ginbox [^`]+)`")


def _page(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def _ginbox_lines(page: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """(full commands with the output shown after each, synopses and code spans) of a page.

    Full commands: ``$ ginbox ...`` of console blocks (each segment of ``;``, ``|`` and ``&&``
    that starts with ginbox), and ``ginbox ...`` lines of other code (indented or fenced),
    unless they show ``[optional]`` parts or ``A|B`` choices: those are synopses, like the
    backticked ``ginbox ...`` spans of the prose.
    """
    text = _page(page)
    full: list[tuple[str, list[str]]] = []
    partial = [m.group(1) for m in CODE_SPAN.finditer(text)]
    console = {text.count("\n", 0, m.start()) + 1 + i
               for m in FENCE.finditer(text) if m.group(1) == "console"
               for i in range(1, m.group(2).count("\n") + 1)}
    in_code = False
    for number, raw in enumerate(text.splitlines(), 1):
        if raw.startswith("```"):
            in_code = not in_code
            continue
        if number in console:
            if raw.startswith("$ "):
                for segment in re.split(r"\s*(?:;|\|\||\||&&)\s*", raw[2:]):
                    if segment.startswith("ginbox"):
                        full.append((segment, []))
            elif full and full[-1][1] is not None:
                full[-1][1].append(raw)
            continue
        line = raw.strip()
        if (in_code or raw.startswith("    ")) and line.startswith("ginbox "):
            command = line.split("  #", 1)[0].strip()
            if "[" in command or re.search(r"\w\|\w", command):
                partial.append(command)
            else:
                full.append((command, []))
    return full, partial


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_ginbox_command_in_the_docs_parses() -> None:
    """Each full command parses with the real parser, unless the output shown is the parser's
    own one-line refusal; each synopsis names a real subcommand and only its real options."""
    parser = build_parser()
    subs = _subparsers()
    checked = 0
    for page in PAGES:
        full, partial = _ginbox_lines(page)
        for command, shown in full:
            argv = shlex.split(command, comments=True)[1:]
            try:
                parser.parse_args(argv)
            except UsageError as exc:
                assert f"ginbox: error: {exc}" in shown, f"{page}: $ {command}: {exc}"
            except SystemExit as exc:  # --help and --version print and exit 0
                assert exc.code == 0, f"{page}: $ {command}"
            checked += 1
        for command in partial:
            words = command.replace("[", " ").replace("]", " ").split()
            if len(words) < 2 or words[1].startswith("-"):
                continue
            assert words[1] in subs, f"{page}: `{command}`: no subcommand {words[1]!r}"
            known = {o for a in subs[words[1]]._actions for o in a.option_strings}
            for word in words[2:]:
                option = word.split("=", 1)[0]
                if option.startswith("--"):
                    assert option in known, f"{page}: `{command}`: {option} is not an option"
    assert checked >= 40


def test_cli_md_table_lists_every_subcommand() -> None:
    rows = _table_rows("cli.md", "# The `ginbox` command")
    assert sorted(r.removeprefix("ginbox ") for r in rows) == sorted(_subparsers())
    text = _page("docs/cli.md")
    for name in _subparsers():
        assert f"## `ginbox {name}`" in text or name in ("run", "report"), name
    for name in ("run", "report"):  # documented with the experiments
        assert "experiments.md" in rows[f"ginbox {name}"][1], name


def _makefile_run() -> str:
    recipe = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    command = recipe.strip().splitlines()[-1].strip()
    return re.sub(r"^\$\(BIN\)/", "", command)


def test_what_make_run_runs_is_what_the_docs_say() -> None:
    command = _makefile_run()
    assert command == "ginbox run experiments/quick.toml --force"
    stem = Path(shlex.split(command)[2]).stem
    claims = []
    for path in [*(ROOT / p for p in PAGES), *SOURCES]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"`+make run`+ runs|make run\s+#", line):
                claims.append((path, number, line))
                assert stem in line, f"{path}:{number}: {line.strip()} (make run: {command})"
    assert len(claims) >= 3
    assert f"`{command}`" in _page("docs/cli.md")


MD_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
MD_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*\.md\b")


def _written_by_ginbox(name: str) -> bool:
    """Report files the runner writes (``results/quick/report.md``), not files of the repo."""
    from sim.league.output import FILES as LEAGUE_FILES
    from sim.league.play import LEAGUE_FILE

    return (name.startswith("results/") or Path(name).name in REPORT_FILES
            or Path(name).name in (*LEAGUE_FILES, LEAGUE_FILE))


def _prose(path: Path) -> str:
    """A page whole; of a Python file only its docstrings and comments (code may name
    made-up files as test data)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text
    parts = [ast.get_docstring(node) or "" for node in ast.walk(ast.parse(text))
             if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                           | ast.AsyncFunctionDef)]
    parts += [tok.string for tok in tokenize.generate_tokens(io.StringIO(text).readline)
              if tok.type == tokenize.COMMENT]
    return "\n".join(parts)


def test_no_doc_or_docstring_names_a_missing_file() -> None:
    """Markdown links resolve, and every ``*.md`` a page, docstring or comment names exists."""
    for page in PAGES:
        text = _page(page)
        base = (ROOT / page).parent
        for target in MD_LINK.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (base / target).exists(), f"{page}: link to missing {target}"
    named = 0
    for path in [*(ROOT / p for p in PAGES), *SOURCES]:
        for name in MD_NAME.findall(_prose(path)):
            named += 1
            if _written_by_ginbox(name):
                continue
            candidates = [ROOT / name, ROOT / "docs" / name, path.parent / name]
            assert any(c.exists() for c in candidates), f"{path}: names missing {name}"
    assert named >= 50


REPO_PATH = re.compile(r"\b((?:experiments|studies|benchmarks)/[A-Za-z0-9_./-]*[A-Za-z0-9_])")


def test_no_page_source_or_file_names_a_missing_study_or_experiment() -> None:
    """Every ``experiments/...``, ``studies/...`` and ``benchmarks/...`` path that a page, a
    module, an experiment or tuning file or a notebook names exists (globs aside): files
    that move cannot leave their old paths behind."""
    texts = [*(ROOT / p for p in PAGES), *SOURCES,
             *sorted(ROOT.glob("experiments/*.toml")), *sorted(ROOT.glob("studies/*/*.toml")),
             *sorted(ROOT.glob("notebooks/*.ipynb"))]
    missing, named = [], 0
    for path in texts:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in REPO_PATH.findall(line):
                if "*" in name or "<" in name:
                    continue
                named += 1
                if not (ROOT / name).exists():
                    missing.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert missing == []
    assert named >= 50


def test_dask_worker_commands_are_single_threaded() -> None:
    """The runner's workers play one chunk at a time: ``dask worker`` needs ``--nthreads 1``."""
    found = 0
    for page in PAGES:
        for line in _page(page).splitlines():
            for command in re.findall(r"dask worker [^`#\n]*", line):
                found += 1
                assert "--nthreads 1" in command, f"{page}: {line.strip()}"
    assert found >= 2


def test_partial_run_message_gives_the_cli_answer(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``ginbox report`` on an interrupted run says which command finishes it, not a Python
    keyword argument."""
    from sim.runs.runner import run_experiment

    out = tmp_path / "partial"
    spec = {"name": "partial", "seed": 1, "games": 2, "chunk_size": 1,
            "arms": [{"name": "a", "strategies": ["simple", "simple", "simple"]}]}
    run_experiment(spec, out=out, jobs=1, quiet=True)
    next(out.glob("arm=0/*.parquet")).unlink()
    assert cli_main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ginbox: error: the run in ")
    assert f"ginbox run FILE --out {out} --resume" in err
    assert "allow_partial" not in err


QUOTE = re.compile(r"<!-- quote: (\S+) (\S+) -->\n(.*?)<!-- end quote -->", re.S)
LAB_BLOCK = re.compile(r"<!-- block: (\S+) -->\n(.*?)<!-- end block -->", re.S)


def test_quoted_figures_are_the_lab_notebooks() -> None:
    """A block a page quotes from a lab page is that page's marked block, verbatim."""
    quoted = 0
    for page in PAGES:
        for source, name, body in QUOTE.findall(_page(page)):
            assert source.startswith("docs/lab/"), f"{page}: quotes {source}"
            blocks = dict(LAB_BLOCK.findall(_page(source)))
            assert name in blocks, f"{page}: {source} has no block {name}"
            assert body == blocks[name], f"{page}: block {name} differs from {source}: copy it"
            quoted += 1
    assert quoted >= 3


def test_the_lab_notebook_indexes_every_study() -> None:
    """Every study page is dated, listed in the index, and says how to reproduce it."""
    lab = ROOT / "docs" / "lab"
    index = (lab / "README.md").read_text(encoding="utf-8")
    studies = sorted(p for p in lab.glob("*.md") if p.name != "README.md")
    assert studies
    for path in studies:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md", path.name), path.name
        assert f"]({path.name})" in index, f"docs/lab/README.md does not list {path.name}"
        text = path.read_text(encoding="utf-8")
        assert f"Run {path.name[:10]} " in text, f"{path.name}: the date line differs from its name"
        for heading in ("## Question", "## Reproduce", "## Result", "## Tried, not adopted"):
            assert heading in text, f"{path.name}: no {heading}"


def test_reference_pages_describe_today() -> None:
    """The reference pages carry no history: no releases, no tracker references."""
    history = re.compile(r"last release|release before|issue \d+|the issue|\(issue|"
                         r"was \w+ before|since replaced|the earlier defaults", re.I)
    for page in PAGES:
        if page.startswith("docs/lab/") or page == "CHANGELOG.md":
            continue
        for number, line in enumerate(_page(page).splitlines(), 1):
            assert not history.search(line), f"{page}:{number}: {line.strip()}"
