"""What every ``ginbox`` command shares: the error types, argument types, the exit paths,
the user's folder on the import path, and OS errors told with their path."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from sim.io.specs import SEED_RANGE, check_seed
from sim.play.driver import (
    check_timeout,
)
from sim.records.limits import shorten

PROG = "ginbox"


class UsageError(Exception):
    """Bad input: reported as one line on stderr, exit status 2."""


class Interrupted(Exception):
    """A signal stopped the command: one line on stderr, exit status 128 + the signal."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and goes through main()."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def version_text() -> str:
    try:
        from importlib.metadata import version

        return version("ginbox")
    except Exception:  # not installed (running from a source tree)
        return "unknown"


def seed_value(text: str) -> int:
    """The argparse type of every ``--seed``: the rule :func:`sim.io.specs.check_seed` keeps
    for files and the Python API too (an integer 0..2**63-1)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an integer: expected {SEED_RANGE}") from None
    try:
        return check_seed(value)
    except ValueError as exc:  # "seed=N is out of range: ...": argparse names the option
        raise argparse.ArgumentTypeError(str(exc).split("=", 1)[1]) from None


seed_value.__name__ = SEED_RANGE


def int_at_least(low: int, high: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer >= low (and <= high), with a message saying what is
    accepted (and ``why`` there is a ceiling)."""
    at_least = f"an integer >= {low}"
    accepted = at_least if high is None else f"an integer {low}..{high}{why}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not an integer: expected {at_least}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is out of range: expected {at_least}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is out of range: expected {accepted}")
        return value

    parse.__name__ = accepted
    return parse


def seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    try:
        # a number in, a number out: None comes only from None
        return check_timeout(float(text))  # type: ignore[return-value]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not valid: expected a number of seconds > 0") from None


def stderr_is_terminal() -> bool:
    """Whether progress (and the compile notice) can be shown: stderr is a terminal."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def add_cwd_to_path() -> None:
    """User strategies named module:Class next to the user are importable (a deleted
    current directory has nothing to import: skipped, not an error)."""
    try:
        cwd = os.getcwd()
    except OSError:
        return
    if cwd not in sys.path:
        sys.path.append(cwd)


def os_text(exc: OSError, where: Path | None = None) -> str:
    """An OS error as text with the file it concerns, unless that is ``where`` or one of
    ginbox's temporaries (the directory already says where)."""
    from sim.io.files import is_temp

    text = exc.strerror or str(exc)
    name = exc.filename
    if name and Path(name) != where and not is_temp(name):
        text += f" ({name})"
    return text


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[list[int]]:
    """While a run plays, SIGTERM stops it as Ctrl-C does: the workers are stopped, the
    manifest says ``interrupted`` and the run can be resumed. A second SIGTERM kills at once."""
    received: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        received.append(signum)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield received
        return
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def one_line(message: str) -> str:
    """An error message as one line of stderr, its long values cut short (a damaged file's
    field of millions of items must not fill the terminal)."""
    return " ".join(shorten(str(message)).split())


class OutputError(OSError):
    """Standard output could not be written (a full disk, an I/O error)."""


class Output:
    """Standard output, with its write errors told apart from those of files."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.errno, exc.strerror) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.errno, exc.strerror) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def silence_stdout() -> None:
    """Point standard output at /dev/null, so Python's exit does not fail on it again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
