"""Regenerate the golden playthroughs: ``python tests/golden/make_golden.py [PRESET ...]``.

Naming presets writes only theirs (a new preset's first golden files, leaving the others).

Only when a change is *meant* to alter play (a rule fix, a strategy change); say so in the
commit. A refactor must leave every file here byte for byte unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# One short match per preset, every built-in strategy seated somewhere, a fixed seed each.
GOLDEN: dict[str, tuple[str, int, int]] = {
    "three-handed": ("discard-tracking,random,simple", 2, 11),
    "three-handed-20": ("greedy-knock,discard-tracking,gin-hunter", 2, 12),
    "classic": ("simple,gin-hunter", 2, 13),
    "eaai": ("discard-tracking:knock_at=0,greedy-knock:knock_at=6", 2, 14),
    "oklahoma": ("gin-hunter,greedy-knock,discard-tracking", 2, 15),
    "hollywood": ("discard-tracking,greedy-knock:knock_at=4", 2, 16),
    "three-handed-hollywood": ("simple,discard-tracking,gin-hunter", 2, 17),
}


def log_path(preset: str) -> Path:
    return HERE / f"{preset}.jsonl"


def table_path(preset: str) -> Path:
    return HERE / f"{preset}.games.csv"


def games_csv(preset: str) -> str:
    """The compiled batch path's per-game table for 200 games of the preset's strategies."""
    from sim.play.driver import play_games

    strategies, _, seed = GOLDEN[preset]
    return play_games(strategies, games=200, seed=seed, rules=preset).games.to_csv(index=False)


def write_log(preset: str, path: Path) -> None:
    """The hand log of the preset's golden match, through the CLI as a user would."""
    import subprocess

    strategies, games, seed = GOLDEN[preset]
    subprocess.run([sys.executable, "-m", "sim", "play", "--strategies", strategies, "--rules",
                    preset, "--games", str(games), "--seed", str(seed), "--log", str(path),
                    "--quiet"], check=True, capture_output=True)


if __name__ == "__main__":
    for name in sys.argv[1:] or GOLDEN:  # names given: only those presets
        write_log(name, log_path(name))
        table_path(name).write_text(games_csv(name))
        print(name, log_path(name).stat().st_size, "bytes of log")
