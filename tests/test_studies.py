"""studies/: one package per strength study, each runnable as ``python -m studies.<study>``,
through ginbox's public API only, with every experiment and tuning file it plays beside it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from sim.play.experiment import load_experiment
from sim.tune import load_tune

ROOT = Path(__file__).resolve().parent.parent
STUDIES = sorted(p.parent for p in (ROOT / "studies").glob("*/__init__.py"))
STUDY_FILES = sorted((ROOT / "studies").glob("*/*.toml"))


def test_the_studies_are_the_ones_expected() -> None:
    assert [p.name for p in STUDIES] == ["gin_bonus", "greedy_take_rule", "hollywood",
                                         "mc_inference", "mc_strength", "oklahoma",
                                         "tuned_sets"]


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
