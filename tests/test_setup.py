"""The set-up the README gives works as it says on a fresh machine: ``make run`` makes an
environment where every command the README shows runs, ``make test`` installs what its tests
need (Chromium and its driver, from the system's packages), CI runs nothing but ``make test``,
and the extras hold what their commands need."""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from test_docs import _ginbox_lines

from sim.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXTRAS: dict[str, list[str]] = tomllib.loads(
    (ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
MAKE = shutil.which("make") or "make"  # the README's commands are make's: no make, a failure


#: The environment of a make of its own: not a sub-make of the ``make test`` running the suite.
ALONE = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def _dry_run(target: str, tmp_path: Path) -> list[str]:
    """The commands ``make TARGET`` runs on a fresh clone (an environment not made yet)."""
    done = subprocess.run([MAKE, "-n", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT, env=ALONE,
                          capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def _installed_extras(lines: list[str]) -> set[str]:
    extras: set[str] = set()
    for line in lines:
        for found in re.findall(r"pip install .*-e \"?\.\[([\w,-]+)\]", line):
            extras.update(found.split(","))
    return extras


def _extra_packages(extra: str) -> set[str]:
    return {Requirement(r).name for r in EXTRAS[extra]}


# ---------------------------------------------------------------- the README's commands


def test_make_run_installs_every_extra_a_readme_command_needs(tmp_path: Path) -> None:
    """A command that needs an extra says so (``needs the web extra``); each one the README
    shows runs in the environment ``make run`` makes, unless its line says what to add."""
    installed = _installed_extras(_dry_run("install", tmp_path))
    needed = {}
    full, _ = _ginbox_lines("README.md")
    assert len(full) >= 10
    for command, _ in full:
        name = command.split()[1]
        for extra in re.findall(r"needs the (\w+) extra", inspect.getsource(COMMANDS[name])):
            needed[name] = extra
            line = next(line for line in README.splitlines() if command in line)
            assert extra in installed or f"ginbox[{extra}]" in line, (command, extra)
    assert needed, "no README command needs an extra: the check above checked nothing"


def test_the_readme_says_how_to_reach_ginbox_before_its_first_command() -> None:
    """``make run`` puts ``ginbox`` in .venv, not on the PATH: the README says so before any
    ``ginbox`` line, and shows the demo, the first look."""
    lines = README.splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip().startswith("ginbox "))
    before = "\n".join(lines[:first + 1])
    assert "source .venv/bin/activate" in before and ".venv/bin/ginbox" in before
    assert lines[first].split("#")[0].strip() == "ginbox demo"


def test_the_readme_says_how_long_make_test_and_the_first_compile_take() -> None:
    """Each figure with the conditions it was measured in: the cores and how busy they were."""
    setup = " ".join(README.split("\n## ", 1)[0].split())
    assert re.search(r"`make test` from a fresh clone .*? took \d+ min \d+ s on 2 cores at "
                     r"(a load average of [\d.]+ at the start|load averages [\d.]+ to [\d.]+)",
                     setup)
    assert re.search(r"compiles the engine, .*?\d+ s on an idle 2-core machine, and \d+ "
                     r"minutes measured with the two cores shared .*?load average", setup)
    assert "apt-get" in setup and "chromium" in setup.lower()


# ------------------------------------------------------------------ make test and CI


def test_ci_runs_nothing_but_make_test() -> None:
    """CI runs what the README tells a user to run, so a green CI means `make test` passes."""
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert lines == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "make test"]


def test_make_test_sets_up_chromium_before_the_suite(tmp_path: Path) -> None:
    lines = _dry_run("test", tmp_path)
    suite = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    before = "\n".join(lines[:suite])
    assert "apt-get" in before and "install -y --no-install-recommends chromium chromium-driver" \
        in before
    assert "-n 2" in lines[suite] and "pytest-xdist" in str(EXTRAS["dev"])
    assert {"dev", "web"} <= _installed_extras(lines)


def test_make_test_runs_lint_and_typecheck_first_and_format_fixes(tmp_path: Path) -> None:
    """`make lint`, `make typecheck` and `make format` are the commands CONTRIBUTING.md names;
    `make test` runs the first two before the suite, and `make lint` lints the page's script."""
    linted = "sim strategies tests experiments benchmarks studies examples"
    lines = _dry_run("test", tmp_path)
    suite = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    assert lines[suite - 2].endswith(f"/ruff check {linted}") and lines[suite - 1].endswith("/mypy")
    lint = _dry_run("lint", tmp_path)
    assert lint[-1].endswith(f"/ruff check {linted}")
    assert any(line.endswith("eslint sim/table/static") for line in lint)
    assert _dry_run("typecheck", tmp_path)[-1].endswith("/mypy")
    assert _dry_run("format", tmp_path)[-1].endswith(f"/ruff check --fix {linted}")
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert all(f"`make {t}`" in contributing for t in ("test", "lint", "typecheck", "format"))


def _fake_tools(tmp_path: Path, uid: int, have: tuple[str, ...] = (),
                apt_fails: bool = False) -> tuple[dict[str, str], Path]:
    """A PATH of stand-ins (and of the few real tools the recipe uses besides): ``id`` says
    ``uid``, ``sudo`` and ``apt-get`` note their arguments in a file, and ``have`` are the
    browser programs already installed."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    scripts = {
        "id": f"echo {uid}",
        "sudo": f'echo "sudo $*" >> {calls}; exec "$@"',
        "apt-get": f'echo "apt-get $*" >> {calls}; exit {1 if apt_fails else 0}',
        "env": 'while [ "${1#*=}" != "$1" ]; do export "$1"; shift; done; exec "$@"',
        **{name: "exit 0" for name in have},
    }
    for name, body in scripts.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    for name in ("mktemp", "cat", "rm"):  # the real ones
        (bin_dir / name).symlink_to(shutil.which(name) or f"/bin/{name}")
    return {**ALONE, "PATH": str(bin_dir)}, calls


def _make_browser(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAKE, "-s", "browser"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("uid", [0, 1000], ids=["root", "user"])
def test_make_installs_chromium_and_its_driver_when_missing(tmp_path: Path, uid: int) -> None:
    """Root runs apt-get; anyone else through sudo (which keeps no environment: the
    non-interactive setting goes through env)."""
    env, calls = _fake_tools(tmp_path, uid)
    done = _make_browser(env)
    assert done.returncode == 0, done.stderr
    apt = "apt-get -qq -o DPkg::Lock::Timeout=300"
    install = f"{apt} install -y --no-install-recommends chromium chromium-driver"
    expected = {"root": [f"{apt} update", install],
                "user": [f"sudo {apt} update", f"{apt} update",
                         f"sudo env DEBIAN_FRONTEND=noninteractive {install}", install]}
    assert calls.read_text().splitlines() == expected["user" if uid else "root"]
    assert "installing chromium and chromium-driver" in done.stdout


def test_make_leaves_an_installed_chromium_alone(tmp_path: Path) -> None:
    env, calls = _fake_tools(tmp_path, 0, have=("chromium", "chromedriver"))
    done = _make_browser(env)
    assert (done.returncode, done.stdout, calls.exists()) == (0, "", False)


def test_a_failed_chromium_install_says_how_and_lets_the_suite_run(tmp_path: Path) -> None:
    env, _ = _fake_tools(tmp_path, 0, have=("chromium",), apt_fails=True)
    done = _make_browser(env)
    assert done.returncode == 0
    assert "run: sudo apt-get install chromium chromium-driver" in done.stdout


def test_make_test_lints_the_page_script_before_the_suite(tmp_path: Path) -> None:
    """ESLint, as package-lock.json pins it, checks the web table's script in make test."""
    done = subprocess.run([MAKE, "-n", "-W", "package-lock.json", "test",
                           f"VENV={tmp_path / 'venv'}"], cwd=ROOT, env=ALONE,
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    suite = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    npm = next(i for i, line in enumerate(lines) if line.startswith("npm ci "))
    lint = lines.index("npx --no-install eslint sim/table/static")
    assert npm < lint < suite
    assert "install -y --no-install-recommends nodejs npm" in "\n".join(lines[:npm])
    assert (ROOT / "eslint.config.mjs").is_file()


def test_make_installs_node_when_missing_and_leaves_it_alone_else(tmp_path: Path) -> None:
    for place in ("bare", "have"):
        (tmp_path / place).mkdir()
    env, calls = _fake_tools(tmp_path / "bare", 0)
    done = subprocess.run([MAKE, "-s", "node"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    apt = "apt-get -qq -o DPkg::Lock::Timeout=300"
    assert done.returncode == 0, done.stderr
    assert calls.read_text().splitlines() == [
        f"{apt} update", f"{apt} install -y --no-install-recommends nodejs npm"]
    env, calls = _fake_tools(tmp_path / "have", 0, have=("node", "npm"))
    done = subprocess.run([MAKE, "-s", "node"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout, calls.exists()) == (0, "", False)


# ---------------------------------------------------------------------------- the extras


def test_starlette_is_one_whose_test_client_takes_httpx2() -> None:
    """Starlette's test client takes httpx2 from 1.2 on (before, httpx, which no extra
    installs): every extra that installs Starlette admits no earlier release."""
    pins = [Requirement(r) for extra in EXTRAS.values() for r in extra
            if Requirement(r).name == "starlette"]
    assert len(pins) == 2
    for pin in pins:
        assert Version("1.1.0") not in pin.specifier and Version("1.2.0") in pin.specifier


def test_the_notebooks_extra_opens_and_executes_the_notebooks(tmp_path: Path) -> None:
    """``make notebooks`` installs JupyterLab and nbconvert, the kernel and what the notebooks
    import beyond the base install (the environments of sim.env), then starts JupyterLab."""
    assert {"jupyterlab", "nbconvert", "ipykernel"} | _extra_packages("rl") <= _extra_packages(
        "notebooks")
    lines = _dry_run("notebooks", tmp_path)
    assert "notebooks" in _installed_extras(lines)
    assert lines[-1].endswith("/jupyter lab --notebook-dir=notebooks")
    guide = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    assert "make notebooks" in guide and "pip install -e '.[notebooks]'" in guide
    assert "make notebooks" in README and "notebooks/README.md" in README
