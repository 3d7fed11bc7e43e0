"""The EAAI framework's Java players at a ginbox table: ``eaai:CLASS`` (docs/outside-players.md).

The bridge (``strategies/eaai_bridge/GinboxEaaiBridge.java``, shipped as source) is an outside
player of the ginbox protocol that hosts one ``ginrummy.GinRummyPlayer``. It is compiled with
``javac`` on first use into a cache folder (never into the source tree), against the player's
classpath: ``GINBOX_EAAI_CLASSPATH`` (folders and jars separated by ``:``, as Java's), or the
``classpath=`` option of the strategy text, which overrides it. Everything that can be checked
before a game is checked here, each refusal one ``ValueError`` line: no JDK, no classpath, a
classpath entry that does not exist, a class that is not found or not a player.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

#: The environment variable that holds the EAAI players' classpath.
CLASSPATH_VARIABLE = "GINBOX_EAAI_CLASSPATH"
#: The bridge's source, shipped with the package.
BRIDGE_SOURCE = Path(__file__).with_name("eaai_bridge") / "GinboxEaaiBridge.java"
BRIDGE_CLASS = "GinboxEaaiBridge"
#: The JVM's options: one garbage-collector thread (a worker plays one game at a time).
JVM_OPTIONS = ("-XX:+UseSerialGC", "-Xss4m")


def cache_root() -> Path:
    """Where compiled bridges go: ``$XDG_CACHE_HOME/ginbox`` (``~/.cache/ginbox``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ginbox" / "eaai-bridge"


def classpath_of(override: str | None) -> list[str]:
    """The players' classpath entries (the option's, else the environment's), each checked
    to exist."""
    text = override if override is not None else os.environ.get(CLASSPATH_VARIABLE, "")
    entries = [e for e in text.split(os.pathsep) if e.strip()]
    if not entries:
        raise ValueError(f"eaai: no classpath for the EAAI players: set {CLASSPATH_VARIABLE} "
                         "(folders and jars separated by ':') or give classpath=... "
                         "(docs/outside-players.md)")
    missing = [e for e in entries if not Path(e).exists()]
    if missing:
        raise ValueError(f"eaai: classpath entry {missing[0]!r} does not exist")
    return [str(Path(e).resolve()) for e in entries]


def _jdk() -> tuple[str, str]:
    java, javac = shutil.which("java"), shutil.which("javac")
    if java is None or javac is None:
        raise ValueError("eaai: players need a JDK (java and javac on the PATH): install one, "
                         "e.g. apt-get install default-jdk-headless")
    return java, javac


@lru_cache(maxsize=16)
def compiled_bridge(classpath: tuple[str, ...]) -> Path:
    """The folder holding the compiled bridge for ``classpath`` (compiled once, then kept,
    named by the source's and the classpath's stamp)."""
    _, javac = _jdk()
    source = BRIDGE_SOURCE.read_bytes()
    stamp = hashlib.sha256(source + "\0".join(classpath).encode()).hexdigest()[:16]
    target = cache_root() / stamp
    if (target / f"{BRIDGE_CLASS}.class").is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix="build-", dir=target.parent))
    except OSError as exc:
        raise ValueError(f"eaai: cannot write the compiled bridge into {target.parent}: "
                         f"{exc.strerror or exc} (set XDG_CACHE_HOME to a writable folder)"
                         ) from None
    done = subprocess.run([javac, "-nowarn", "-d", str(build), "-cp", os.pathsep.join(classpath),
                           str(BRIDGE_SOURCE)], capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(build, ignore_errors=True)
        first = next((ln for ln in done.stderr.splitlines() if "error" in ln), done.stderr)
        raise ValueError(f"eaai: the bridge does not compile against the classpath (is the "
                         f"EAAI framework's ginrummy package on it?): {first.strip()[:200]}")
    try:
        build.rename(target)
    except OSError:  # another process compiled it meanwhile
        shutil.rmtree(build, ignore_errors=True)
    return target


@lru_cache(maxsize=64)
def _checked(class_name: str, classpath: tuple[str, ...]) -> tuple[str, ...]:
    java, _ = _jdk()
    bridge = compiled_bridge(classpath)
    command = (java, *JVM_OPTIONS, "-cp", os.pathsep.join((str(bridge), *classpath)),
               BRIDGE_CLASS)
    done = subprocess.run([*command, "--check", class_name], capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise ValueError(f"eaai:{class_name}: " + (lines[0] if lines else
                                                    f"java exited with {done.returncode}"))
    return (*command, class_name)


def bridge_command(class_name: str, classpath: str | None = None) -> list[str]:
    """The command that runs ``class_name`` through the bridge, after every check that can
    be made before a game (one ``ValueError`` line for each that fails)."""
    _jdk()  # looked for each time: the checks below are kept per class and classpath
    return list(_checked(class_name, tuple(classpath_of(classpath))))
