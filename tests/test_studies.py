"""studies/: one package per strength study, each runnable as ``python -m studies.<study>``,
through ginbox's public API only, with every experiment and tuning file it plays beside it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim.engine.view import V_HAND, View
from sim.play.driver import play_games
from sim.runs.experiment import load_experiment
from sim.tune import load_tune
from strategies.examples import GreedyKnockPy

ROOT = Path(__file__).resolve().parent.parent
STUDIES = sorted(p.parent for p in (ROOT / "studies").glob("*/__init__.py"))
STUDY_FILES = sorted((ROOT / "studies").glob("*/*.toml"))


def test_every_study_is_a_package_that_says_how_it_runs_and_has_its_lab_page() -> None:
    """Each folder of studies/ is a package (else ``python -m studies.<study>`` cannot find
    it and the tests below never see it), runs one way (a ``__main__``, or experiment and
    tuning files that ginbox plays, its docstring naming each), and is named by a page of
    docs/lab/, where its evidence is."""
    folders = sorted(p for p in (ROOT / "studies").iterdir()
                     if p.is_dir() and p.name != "__pycache__")
    assert folders and [p.name for p in STUDIES] == [p.name for p in folders]
    lab = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "lab").glob("*.md"))
    for study in STUDIES:
        doc = " ".join((ast.get_docstring(ast.parse((study / "__init__.py").read_text()))
                        or "").split())
        files = sorted(study.glob("*.toml"))
        assert (study / "__main__.py").is_file() or files, f"{study.name}: nothing runs"
        if not (study / "__main__.py").is_file():
            for path in files:
                command = "tune" if path.name.startswith("tune_") else "run"
                assert f"ginbox {command} studies/{study.name}/{path.name}" in doc, path
        assert re.search(rf"studies[./]{study.name}\b", lab), f"no lab page names {study.name}"


@pytest.mark.parametrize("study", [p for p in STUDIES if (p / "__main__.py").exists()],
                         ids=lambda p: p.name)
def test_a_study_runs_as_a_module_and_says_how(study: Path) -> None:
    doc = ast.get_docstring(ast.parse((study / "__init__.py").read_text())) or ""
    assert f"python -m studies.{study.name}" in doc
    done = subprocess.run([sys.executable, "-m", f"studies.{study.name}", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m studies.{study.name}")


def test_a_study_without_code_is_played_by_ginbox() -> None:
    """gin_bonus is two files: a tune, then the experiment that plays its result."""
    assert sorted(p.name for p in (ROOT / "studies" / "gin_bonus").iterdir()
                  if p.suffix != ".pyc" and p.name != "__pycache__") == [
        "__init__.py", "gin_bonus_adaptive.toml", "tune_tuned_three_handed_20.toml"]


def _private_imports(path: Path) -> list[str]:
    """Modules or names a file imports that start with an underscore (not public API)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [n for n in names if n.split(".")[0] in ("sim", "strategies")
                  and any(part.startswith("_") and part != "__future__"
                          for part in n.split("."))]
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "studies").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_studies_use_only_public_names(path: Path) -> None:
    assert _private_imports(path) == []


def test_the_private_import_check_can_fail(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from strategies._dispatch import decide\nimport sim.play._x\n"
                     "from sim.engine.hand import _hidden\nfrom sim.engine import hand\n")
    assert _private_imports(probe) == ["strategies._dispatch", "strategies._dispatch.decide",
                                       "sim.play._x", "sim.engine.hand._hidden"]


@pytest.mark.parametrize("path", STUDY_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_study_files_load_and_are_named_after_the_file(path: Path) -> None:
    spec = load_tune(path) if path.name.startswith("tune_") else load_experiment(path)
    assert spec.name == path.stem
    command = "tune" if path.name.startswith("tune_") else "run"
    assert f"# Run: ginbox {command} studies/{path.parent.name}/{path.name}" in path.read_text()


def test_the_tuned_sets_study_holds_the_stages_the_shipped_sets_came_from() -> None:
    """Each shipped set's stages (strategies.tuned names them) and nothing superseded."""
    assert sorted(p.stem for p in (ROOT / "studies" / "tuned_sets").glob("*.toml")) == [
        "tune_tuned_eaai", "tune_tuned_eaai_2", "tune_tuned_eaai_5", "tune_tuned_oklahoma",
        "tune_tuned_three_handed", "tune_tuned_three_handed_2"]


class _HandRecorder(GreedyKnockPy):
    """greedy-knock that notes its hand as dealt and after each of its discards."""

    def __init__(self) -> None:
        super().__init__()
        self.hands: list[list[int]] = []

    def start_hand(self, view: View) -> None:
        self.hands.append([view.hand_mask])

    def discard(self, view: View) -> int:
        card = super().discard(view)
        self.hands[-1].append(view.hand_mask & ~(1 << card))
        return card


def test_mc_inference_reads_the_opponents_true_hand_off_the_log() -> None:
    """At each of seat 0's chosen draws the study's opponent hand is the one the opponent
    itself saw: dealt, or after its latest discard (counted in the log)."""
    from studies.mc_inference import DRAWS, draw_views

    recorder = _HandRecorder()
    log = play_games(["discard-tracking", recorder], rules="eaai", games=3, seed=4,
                     log=True).log
    assert len(log) == len(recorder.hands) and len(log) >= 3
    checked = 0
    for record, hands in zip(log, recorder.hands, strict=True):
        moves = record["moves"]
        expected = []
        for i, move in enumerate(moves):
            forced = i >= 2 and moves[i - 1]["move"] == moves[i - 2]["move"] == "pass"
            if move["seat"] == 0 and move["move"] in DRAWS and not forced:
                discards = sum(m["seat"] == 1 and m["move"] == "discard" for m in moves[:i])
                expected.append(hands[discards])
        got = [(int(view[V_HAND]), truth) for view, truth in draw_views(record, 0)]
        assert [truth for _, truth in got] == expected
        assert all(own & truth == 0 and bin(truth).count("1") == 10 for own, truth in got)
        checked += len(got)
    assert checked > 20
