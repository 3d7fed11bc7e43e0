"""The architecture holds: layered folders, one-way imports, no cycles, modules of one idea.

The import graph is read from the source with :mod:`ast` (imports inside functions count too),
so a late import cannot hide a cycle or a layer crossed the wrong way.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from support.layout import LAYERS, documented_layers

import sim

ROOT = Path(__file__).resolve().parent.parent

MAX_LINES = 650

#: The four short modules at the top of ``sim``: a public contract that stays put, each
#: re-exporting exactly these names from the engine.
PUBLIC_CONTRACT: dict[str, tuple[str, ...]] = {
    "sim.cards": ("card_str", "parse_cards"), "sim.melds": ("best_discard", "min_deadwood"),
    "sim.showdown": ("settle",), "sim.rules": ("Rules",)}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted([*ROOT.glob("sim/**/*.py"), *ROOT.glob("strategies/**/*.py")]):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules a file imports, at any depth of its code."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {name for name in out if name in modules and name not in ("sim", "strategies")}


def _layer(module: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if module == layer or module.startswith(layer + "."):
            return i
    return None


def test_every_module_sits_in_a_layer() -> None:
    loose = [m for m in _modules() if _layer(m) is None and m not in (
        "sim", "strategies", "sim.__main__", *PUBLIC_CONTRACT)]
    assert loose == []


def test_imports_go_one_way() -> None:
    modules = _modules()
    upward = [(m, t) for m, path in modules.items() for t in _imports(path, modules)
              if _layer(m) is not None and _layer(t) is not None and _layer(t) > _layer(m)]
    assert upward == []


def test_no_import_cycles() -> None:
    modules = _modules()
    graph = {m: _imports(p, modules) - {m} for m, p in modules.items()}
    assert "sim.engine.melds" in graph["sim.engine.hand"]  # the graph is read, not empty
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_modules_stay_small() -> None:
    """The cap holds for the package and for the speed work and studies beside it."""
    paths = [*_modules().values(), *ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("studies/**/*.py")]
    assert len(paths) > len(_modules())
    lines = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in paths}
    assert {m: n for m, n in lines.items() if n > MAX_LINES} == {}


MAX_FUNCTION_LINES = 100


def test_functions_stay_short() -> None:
    """No function of the package, the benchmarks or the studies is longer than a screenful
    and a half: a longer one is several ideas that want names."""
    paths = [*_modules().values(), *ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("studies/**/*.py")]
    long = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = length
    assert long == {}


def test_every_type_ignore_names_its_error_and_its_reason() -> None:
    """A ``# type: ignore[code]`` says why: a comment after it or on the line above."""
    bare = []
    for path in _modules().values():
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if "# type: ignore" not in line:
                continue
            after = line.split("# type: ignore", 1)[1]
            coded = after.startswith("[") and "]" in after
            reason = "#" in after.split("]", 1)[-1] or lines[i - 1].strip().startswith("#")
            if not (coded and reason):
                bare.append(f"{path.relative_to(ROOT)}:{i + 1}")
    assert bare == []


@pytest.mark.parametrize("name", sorted(PUBLIC_CONTRACT))
def test_the_public_contract_modules_re_export_the_engine(name: str) -> None:
    """``sim.melds.min_deadwood`` is ``sim.engine.melds.min_deadwood``: the same objects, from
    a real module that holds nothing else."""
    module = importlib.import_module(name)
    engine = importlib.import_module(name.replace("sim.", "sim.engine.", 1))
    assert tuple(sorted(module.__all__)) == PUBLIC_CONTRACT[name]
    assert all(getattr(module, attr) is getattr(engine, attr) for attr in module.__all__)
    path = ROOT / (name.replace(".", "/") + ".py")
    assert _imports(path, _modules()) == {engine.__name__}


@pytest.mark.parametrize("old", ["sim.driver", "sim.hand", "sim.play.runner", "sim.env.table",
                                 "sim.records.files", "sim.cli.table"])
def test_moved_modules_import_only_from_their_home(old: str) -> None:
    """No import hook keeps an earlier path alive."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    assert not hasattr(sim, "DEPRECATED_PATHS") and not hasattr(sim, "MOVED_MODULES")


def test_the_game_loop_imports_nothing_of_the_experiment_machinery() -> None:
    modules = _modules()
    loop = {m: _imports(p, modules) for m, p in modules.items() if m.startswith("sim.play")}
    assert loop and not any(t.startswith("sim.runs") for ts in loop.values() for t in ts)


def test_the_engine_imports_nothing_above_it() -> None:
    modules = _modules()
    engine = {m: _imports(p, modules) for m, p in modules.items() if m.startswith("sim.engine")}
    assert all(t.startswith("sim.engine") for targets in engine.values() for t in targets)


def test_the_package_docstring_lists_every_layer_in_order() -> None:
    assert documented_layers(sim.__doc__ or "") == list(LAYERS)


def test_documented_layers_reads_list_items_and_table_rows() -> None:
    text = ("* :mod:`sim.io`: files\n  continues :mod:`sim.cli`\n- `strategies` beside\n"
            "| `sim/engine/` | `cards` |\n| `sim/play/driver.py` |\n| layer | modules |\n")
    assert documented_layers(text) == ["sim.io", "strategies", "sim.engine", "sim.play"]


def test_the_architecture_page_lists_every_layer_in_order() -> None:
    """docs/architecture.md's layer table is the layer list, lowest first."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert documented_layers(text) == list(LAYERS)


def test_one_class_per_name() -> None:
    """No two classes of the package share a name (a traceback or a doc names one class)."""
    seen: dict[str, list[str]] = {}
    for module, path in _modules().items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                seen.setdefault(node.name, []).append(module)
    assert {name: where for name, where in seen.items() if len(where) > 1} == {}


MAX_POSITIONAL = 8

def _positional_counts(source: str) -> dict[str, int]:
    """Each function's positional parameters (positional-only and regular, a method's
    ``self``/``cls`` not counted), by qualified name (``Class.method``, ``outer.inner``)."""
    counts: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                params = [*child.args.posonlyargs, *child.args.args]
                bound = isinstance(node, ast.ClassDef) and bool(params) \
                    and params[0].arg in ("self", "cls")
                counts[prefix + child.name] = len(params) - bound
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return counts


def test_positional_counts_read_methods_nested_functions_and_keyword_only() -> None:
    """The scan counts what a caller may pass by position, and nothing else."""
    source = ("def f(a, b, /, c, *args, d, **kw):\n    def g(x, y=1): pass\n"
              "class C:\n    def m(self, a): pass\n    @classmethod\n    def k(cls): pass\n"
              "def self_free(self, x): pass\n")
    assert _positional_counts(source) == {"f": 3, "f.g": 2, "C.m": 1, "C.k": 0,
                                          "self_free": 2}


def test_no_function_takes_more_than_8_positional_parameters() -> None:
    """Past eight, positional arguments are passed in the wrong order unseen: options go by
    keyword (``*``) and parameters that travel together go in a record."""
    counts = {f"{path.relative_to(ROOT)}:{name}": n for path in _modules().values()
              for name, n in _positional_counts(path.read_text()).items()}
    assert {where: n for where, n in counts.items() if n > MAX_POSITIONAL} == {}
