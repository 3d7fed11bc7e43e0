"""The notebooks under notebooks/: each runs top to bottom from a fresh kernel, and is committed
without outputs.

* Each notebook runs with its default parameters in a temporary copy of the repository layout
  (``notebooks/``, ``experiments/``, ``studies/`` and an empty ``results/``), executed by the
  command notebooks/README.md gives (``jupyter nbconvert --to notebook --execute ...``), run as
  it says, from the root of that copy with this environment's ``bin`` first on the PATH. Every
  cell must run without an error, and afterwards nothing may have changed outside
  ``results/``: the notebooks read the shipped experiments and write only their own results
  directories, never the checkout's.
* The kernel the notebooks name, ``python3``, is this interpreter (a kernelspec written to a
  temporary ``JUPYTER_PATH``), so the notebooks import the ginbox under test whatever kernels
  the machine has installed.
* The files as committed carry no outputs, execution counts or widget state, start with a
  parameter cell, and name their results directories under ``results/``.

The notebooks are designed to run in under a minute each on 2 cores with numba's compiled code
cached (06, which trains a policy, reads ``GINBOX_NOTEBOOK_SMOKE``, set here, and runs a tiny
budget instead); the ceiling asserted here is looser, since the first run after an engine change
compiles for half a minute or more, but it still catches a default parameter left at full size.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from ipykernel.kernelspec import write_kernel_spec

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
EXPECTED = ("01_quickstart.ipynb", "02_gin_bonus_20_vs_25.ipynb", "03_box_retention.ipynb",
            "04_write_a_strategy.ipynb", "05_why_mc.ipynb", "06_train_a_policy.ipynb",
            "07_decision_review.ipynb")
KERNEL = "python3"  # what the notebooks name, and Jupyter's own Python kernel
#: Set for the notebooks' kernels: a notebook whose defaults take minutes (06 trains a policy)
#: reads it and shrinks its budget to seconds.
SMOKE = "GINBOX_NOTEBOOK_SMOKE"
TIMEOUT = 900  # seconds per notebook: a guard against a hung kernel, not a speed test
#: The command notebooks/README.md gives to execute a notebook, with the notebook it names.
EXECUTE = re.compile(r"^ {4}(jupyter nbconvert .*--execute .*)$", re.M)
OUT = re.compile(r"""\bout\s*=\s*["']([^"']+)["']|Path\(\s*["']([^"']+)["']\s*\)""")


def _notebooks() -> list[str]:
    return sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def test_the_expected_notebooks_are_there() -> None:
    assert set(EXPECTED) <= set(_notebooks())


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JUPYTER_PATH directory holding a kernelspec that runs this interpreter."""
    base = tmp_path_factory.mktemp("jupyter")
    write_kernel_spec(base / "kernels" / KERNEL, overrides={"display_name": "ginbox under test"})
    return base


def _snapshot(root: Path) -> dict[str, str]:
    """Relative path -> content hash of every file outside results/."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == "results" or not path.is_file():
            continue
        out[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def layout(tmp_path: Path, kernel_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A repository layout to run notebooks in, with an isolated Jupyter and IPython setup."""
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments")
    shutil.copytree(ROOT / "studies", tmp_path / "studies",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(NOTEBOOKS, tmp_path / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    (tmp_path / "results").mkdir()
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path.parent / f"{tmp_path.name}-ipython"))
    monkeypatch.setenv(SMOKE, "1")
    yield tmp_path


def documented_command(name: str) -> list[str]:
    """notebooks/README.md's command to execute a notebook, for notebook ``name``."""
    found = EXECUTE.findall((NOTEBOOKS / "README.md").read_text(encoding="utf-8"))
    assert len(found) == 1, "notebooks/README.md gives no one nbconvert command"
    argv = shlex.split(found[0])
    shown = [a for a in argv if a.startswith("notebooks/") and a.endswith(".ipynb")]
    assert len(shown) == 1, found[0]
    return [f"notebooks/{name}" if a == shown[0] else a for a in argv]


@pytest.mark.parametrize("name", _notebooks())
def test_notebook_runs_top_to_bottom(name: str, layout: Path) -> None:
    before = _snapshot(layout)
    argv = documented_command(name)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(argv, cwd=layout, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]  # the failing cell and its traceback
    assert _snapshot(layout) == before, f"{name} changed files outside results/"
    executed = [p for p in (layout / "results").rglob("*.ipynb")]
    assert len(executed) == 1, done.stderr[-3000:]
    nb = nbformat.read(executed[0], as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code), "a cell did not run"
    errors = [o for cell in code for o in cell.outputs if o.get("output_type") == "error"]
    assert not errors
    written = [p for p in (layout / "results").rglob("*") if p.is_file() and p != executed[0]]
    assert written, f"{name} wrote nothing under results/"


@pytest.mark.parametrize("name", _notebooks())
def test_notebook_is_committed_clean(name: str) -> None:
    path = NOTEBOOKS / name
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert "widgets" not in nb.metadata, f"{name}: widget state is committed"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", name
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code, name
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.get("outputs") == [], f"{name}: cell {i} has outputs"
            assert cell.get("execution_count") is None, f"{name}: cell {i} has a count"
        assert "execution" not in cell.get("metadata", {}), f"{name}: cell {i} has timings"
    first = code[0]
    assert "parameters" in first.metadata.get("tags", []), f"{name}: no parameter cell first"
    assert re.search(r"^GAMES = ", first.source, re.M), f"{name}: no GAMES parameter"
    source = "\n".join(cell.source for cell in code)
    places = [a or b for a, b in OUT.findall(source)]
    assert places, f"{name}: no results directory named"
    for place in places:
        assert place.startswith("results/") and ".." not in place, (name, place)
