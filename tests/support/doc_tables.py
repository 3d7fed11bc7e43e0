"""The built-ins' tables of docs/strategies.md, generated from the registry.

The strategy, parameter and named-set tables are written from
:func:`strategies.registry.describe` between two marker lines, so the page cannot drift from
the code: ``tests/test_docs.py`` fails when the page's block differs from what this module
generates. It lives with the test support, not in the package: it is a tool for the docs'
authors, and ``ginbox strategies`` already prints the same facts for users.

Regenerate after changing a built-in's parameters or sets::

    python tests/support/doc_tables.py --write
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
PAGE = ROOT / "docs" / "strategies.md"
COMMAND = "python tests/support/doc_tables.py --write"
BEGIN = f"<!-- generated from strategies.registry.describe(): regenerate with {COMMAND} -->"
END = "<!-- end of the generated tables -->"


def _cell(text: str) -> str:
    """Table-safe text: a ``|`` inside a cell would split it."""
    return " ".join(text.split()).replace("|", "\\|")


def _default(value: Any) -> str:
    """A parameter's default; ``None`` means the rules at the table decide it."""
    return "from the rules" if value is None else str(value)


def _set_values(values: dict[str, int]) -> str:
    if not values:
        return "every parameter at its default"
    return ", ".join(f"`{name}={value}`" for name, value in values.items())


def tables(described: list[dict[str, Any]] | None = None) -> str:
    """The generated block (markers included) for ``describe()``'s records."""
    if described is None:
        from strategies.registry import describe

        described = describe()
    lines = [BEGIN, "", "| strategy | what it does |", "| --- | --- |"]
    lines += [f"| `{s['name']}` | {_cell(s['description'])} |" for s in described]
    lines += ["", "| strategy | parameter | default | range | meaning |",
              "| --- | --- | --- | --- | --- |"]
    for s in described:
        for name, p in s["params"].items():
            low, high = p["range"]
            lines.append(f"| `{s['name']}` | `{name}` | {_default(p['default'])} | "
                         f"{low}..{high} | {_cell(p['doc'])} |")
    named = [(s["name"], set_name, values) for s in described
             for set_name, values in s["sets"].items()]
    if named:
        lines += ["", "| named set | what it sets (the other parameters keep their defaults) |",
                  "| --- | --- |"]
        lines += [f"| `{strategy}@{set_name}` | {_set_values(values)} |"
                  for strategy, set_name, values in named]
    lines += ["", END]
    return "\n".join(lines)


def page_block(text: str) -> str:
    """The generated block as it stands in a page's text (ValueError if it has none)."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no generated tables in the page: add the two marker lines, then "
                         f"regenerate with {COMMAND}")
    return text[start:end + len(END)]


def rewrite(text: str) -> str:
    """The page's text with its generated block replaced by a fresh one."""
    return text.replace(page_block(text), tables(), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the built-ins' tables of "
                                                 "docs/strategies.md from the registry.")
    parser.add_argument("--write", action="store_true",
                        help="rewrite the block in docs/strategies.md instead of printing it")
    args = parser.parse_args(argv)
    if not args.write:
        print(tables())
        return 0
    try:
        PAGE.write_text(rewrite(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    except ValueError as exc:
        print(f"doc_tables: {exc}", file=sys.stderr)
        return 2
    print(f"wrote the generated tables of {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
