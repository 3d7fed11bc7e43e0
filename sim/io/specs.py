"""Reading spec files, and the checks the experiment, tuning and league loaders share.

The three loaders (:mod:`sim.runs.experiment`, :mod:`sim.tune.spec`, :mod:`sim.league.spec`)
refuse bad input the same way: one ``ValueError`` line that names the field, the value given
and what is accepted, prefixed with the file when there is one. The checks that are not
specific to one kind of file are written once, here.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

T = TypeVar("T")

#: Longest name of a results folder (experiments and tunes; a league's is shorter).
MAX_NAME = 64
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def load_toml(path: str | Path, kind: str, build: Callable[[dict[str, Any]], T]) -> T:
    """``build`` applied to the TOML file at ``path`` (an experiment, a tuning file, a league:
    ``kind`` names it in messages). Every failure is one ``ValueError`` line naming the file:
    unreadable, not UTF-8, malformed TOML, or what ``build`` refused."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {kind} file {str(path)!r}: {exc.strerror or exc}"
                         ) from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a UTF-8 text file: expected a TOML {kind} file"
                         ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: malformed TOML: {exc}") from None
    try:
        return build(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def check_keys(table: Mapping[str, Any], accepted: Iterable[str], where: str) -> None:
    """Refuse keys outside ``accepted``: a misspelt key would otherwise be silently ignored."""
    accepted = tuple(accepted)
    unknown = [k for k in table if k not in accepted]
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))} in {where}: "
                         f"expected one of {', '.join(accepted)}")


def require_keys(table: Mapping[str, Any], required: Iterable[str], needs: str) -> None:
    """Refuse a table missing one of ``required``; ``needs`` says what such a table needs."""
    for key in required:
        if key not in table:
            raise ValueError(f"{key} is missing: {needs}")


def is_plain_int(value: object) -> TypeGuard[int]:
    """An ``int`` that is not a ``bool`` (TOML's integers; ``True`` is not a count)."""
    return isinstance(value, int) and not isinstance(value, bool)


#: The largest seed anywhere in ginbox (a signed 64-bit integer: every file format, numpy and
#: Dask hold it exactly): files, the command line and the Python API share this one rule.
MAX_SEED = 2**63 - 1
SEED_RANGE = "an integer 0..2**63-1"


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` as an int if it is an integer 0..2**63-1 (numpy integers too); a TypeError for
    anything else (a float would be silently truncated), a ValueError when out of range."""
    import numbers

    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name}={seed!r} is not an integer: expected {SEED_RANGE}")
    value = int(seed)
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"{name}={seed!r} is out of range: expected {SEED_RANGE}")
    return value


def check_int(name: str, value: object, low: int, high: int, accepted: str | None = None) -> int:
    """``value`` if it is an integer in ``low..high``; else one line naming ``name``, the value
    and ``accepted`` (default ``an integer low..high``)."""
    accepted = accepted or f"an integer {low:,}..{high:,}"
    if not is_plain_int(value):
        raise ValueError(f"{name}={value!r} is not valid: expected {accepted}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value!r} is out of range: expected {accepted}")
    return value


def check_text(name: str, value: object) -> str:
    """``value`` if it is a string (descriptions)."""
    if not isinstance(value, str):
        raise ValueError(f"{name}={value!r} is not valid: expected a string")
    return value


def check_run_name(name: Any, longest: int = MAX_NAME) -> str:
    """A results directory's name, refused in one line unless it is 1..``longest`` ASCII
    letters, digits, '.', '_' or '-' starting with a letter or digit: one rule for experiment,
    tuning and league files, whose names become folders."""
    if not isinstance(name, str) or len(name) > longest or not _NAME_RE.fullmatch(name):
        raise ValueError(f"name={name!r} is not valid: expected 1-{longest} letters, digits, "
                         "'.', '_' or '-', starting with a letter or digit (it names the "
                         "results directory)")
    return name


def check_unique(name: str, items: Iterable[Any], key: Callable[[Any], Any],
                 what: str) -> None:
    """Refuse two items of ``name`` that ``key`` maps to the same value (canonical strategy
    texts, say): ``what`` says why they must differ."""
    seen: dict[Any, int] = {}
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            raise ValueError(f"{name}[{i}]={item!r} repeats {name}[{seen[k]}]: {what}")
        seen[k] = i


__all__ = ["MAX_NAME", "MAX_SEED", "SEED_RANGE", "check_int", "check_keys", "check_run_name",
           "check_seed", "check_text", "check_unique", "is_plain_int", "load_toml",
           "require_keys"]
