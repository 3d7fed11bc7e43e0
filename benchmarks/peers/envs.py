"""The learning environments next to PettingZoo's ``gin_rummy_v4``: ``sim.env``'s AEC
environments and ``VectorEnv`` against the peer, stepped by one loop (``--envs`` of
:mod:`benchmarks.peers`)."""

from __future__ import annotations

import datetime
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.peers.common import markdown_table, table_row

# --------------------------------------------------------------------------------------------
# Learning environments: sim.env next to PettingZoo's gin_rummy_v4
# --------------------------------------------------------------------------------------------

#: PettingZoo's ``gin_rummy_v4`` left PettingZoo after 1.24; the comparison runs it in its own
#: interpreter, since the ``rl`` extra needs a newer PettingZoo.
GIN_RUMMY_REQUIREMENT = "pettingzoo[classic]==1.24.3"
GIN_RUMMY_VENV = Path.home() / ".cache" / "ginbox" / "pettingzoo-1.24.3"
ENVS_BEGIN = "<!-- envs:begin -->"
ENVS_END = "<!-- envs:end -->"

#: The one loop both AEC environments are stepped with (run here and, as text, in the other
#: interpreter): random legal actions from the mask, chosen in Python, the way a user's
#: training loop drives an AEC environment. Returns (steps, CPU seconds, episodes).
AEC_LOOP = """
import time
import numpy as np

def aec_random_steps(make, steps, seed=0):
    env = make()
    rng = np.random.default_rng(seed)
    done = episodes = 0
    env.reset(seed=seed)
    start = time.process_time()
    while done < steps:
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rng.random() * len(legal))])
                done += 1
            env.step(action)
        episodes += 1
        env.reset()
    return done, time.process_time() - start, episodes
"""

GIN_RUMMY_SCRIPT = AEC_LOOP + """
import json, sys, warnings
warnings.filterwarnings("ignore")
from pettingzoo.classic import gin_rummy_v4
import pettingzoo
steps = int(sys.argv[1])
aec_random_steps(gin_rummy_v4.raw_env, 200)  # warm-up
out = {"version": pettingzoo.__version__}
for name, make in (("raw_env", gin_rummy_v4.raw_env), ("env", gin_rummy_v4.env)):
    out[name] = aec_random_steps(make, steps)
print(json.dumps(out))
"""


def gin_rummy_python(given: str | None) -> str | None:
    """The interpreter that has ``gin_rummy_v4``: ``--gin-rummy-python``, else
    ``$GINBOX_GIN_RUMMY_PYTHON``, else the venv ``--setup-gin-rummy`` makes; None if none."""
    for candidate in (given, os.environ.get("GINBOX_GIN_RUMMY_PYTHON"),
                      str(GIN_RUMMY_VENV / "bin" / "python")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def setup_gin_rummy(venv: Path = GIN_RUMMY_VENV) -> str:
    """Create a venv holding PettingZoo 1.24.3 with its classic games (and RLCard under them)."""
    import subprocess

    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", GIN_RUMMY_REQUIREMENT],
                   check=True)
    return python


def gin_rummy_steps(python: str, steps: int) -> dict[str, Any]:
    """Run the loop on ``gin_rummy_v4`` in ``python``: {"version", "raw_env", "env"}."""
    import json
    import subprocess

    done = subprocess.run([python, "-c", GIN_RUMMY_SCRIPT, str(steps)], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def ginbox_aec_steps(steps: int) -> dict[str, tuple[int, float, int]]:
    """The same loop on ``sim.env.raw_env`` and ``sim.env.env`` (eaai rules, whole games)."""
    import sim.env

    namespace: dict[str, Any] = {}
    exec(AEC_LOOP, namespace)
    loop = namespace["aec_random_steps"]
    loop(lambda: sim.env.raw_env(rules="eaai"), 200)  # compiles, or loads the cache
    return {"raw_env": loop(lambda: sim.env.raw_env(rules="eaai"), steps),
            "env": loop(lambda: sim.env.env(rules="eaai"), steps)}


def vector_steps(steps: int, num_envs: int, rules: str, opponents: str,
                 seed: int = 0) -> tuple[int, float, int]:
    """(learner steps, CPU seconds, episodes) of ``sim.env.VectorEnv`` with random legal
    actions drawn from the masks in numpy (observations encoded and copied out)."""
    from sim.env.vector import VectorEnv, random_actions

    env = VectorEnv(num_envs, rules=rules, opponents=opponents)
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    for _ in range(20):  # warm-up (compiles, or loads the cache)
        obs, _, _, _, infos = env.step(random_actions(infos["action_mask"], rng))
    calls = max(1, steps // num_envs)
    episodes = 0
    start = time.process_time()
    for _ in range(calls):
        obs, _, terminations, _, infos = env.step(random_actions(infos["action_mask"], rng))
        episodes += int(terminations.sum())
    return calls * num_envs, time.process_time() - start, episodes


def _rate(run: tuple[int, float, int]) -> float:
    return run[0] / run[1]


def _spread(rates: Sequence[float]) -> str:
    return f"median of {len(rates)} runs; range {min(rates):,.0f}-{max(rates):,.0f}"


def env_rows(aec_steps: int = 20_000, vector_total: int = 2_000_000, num_envs: int = 512,
             repeats: int = 3, python: str | None = None) -> list[dict[str, Any]]:
    """The environment rows: each measurement ``repeats`` times, the engines in turn, CPU time
    of this process (or of the peer's) only; the median is shown."""
    ours: dict[str, list[float]] = {"raw_env": [], "env": []}
    theirs: dict[str, list[float]] = {"raw_env": [], "env": []}
    vectors: dict[str, list[float]] = {"eaai/random": [], "three-handed/simple": []}
    version = None
    for _ in range(repeats):
        if python is not None:
            peer = gin_rummy_steps(python, aec_steps)
            version = peer["version"]
            for key in theirs:
                theirs[key].append(_rate(peer[key]))
        mine = ginbox_aec_steps(aec_steps)
        for key in ours:
            ours[key].append(_rate(mine[key]))
        for key in vectors:
            rules, opponents = key.split("/")
            vectors[key].append(_rate(vector_steps(vector_total, num_envs, rules, opponents)))
    med = {k: float(np.median(v)) for k, v in {**{f"ours {k}": v for k, v in ours.items()},
                                               **{f"theirs {k}": v for k, v in theirs.items()
                                                  if v},
                                               **vectors}.items()}
    rows = [
        table_row("ginbox", "AEC steps/s, sim.env.raw_env", med["ours raw_env"],
             f"eaai rules, whole games; random legal actions chosen in Python; "
             f"{_spread(ours['raw_env'])}"),
        table_row("ginbox", "AEC steps/s, sim.env.env (wrapped)", med["ours env"],
             f"with PettingZoo's TerminateIllegal, AssertOutOfBounds and OrderEnforcing "
             f"wrappers; {_spread(ours['env'])}"),
        table_row("ginbox", "VectorEnv steps/s, eaai, random opponent", med["eaai/random"],
             f"{num_envs} games per step call, observations encoded and copied out, random "
             f"legal actions drawn from the masks in numpy; {_spread(vectors['eaai/random'])}"),
        table_row("ginbox", "VectorEnv steps/s, three-handed, 2 simple opponents",
             med["three-handed/simple"],
             f"as above; the opponents' moves (and hands the learner sits out) run inside the "
             f"compiled step; {_spread(vectors['three-handed/simple'])}"),
    ]
    if python is None:
        why = (f"no interpreter with {GIN_RUMMY_REQUIREMENT}: --setup-gin-rummy or "
               "--gin-rummy-python PATH")
        rows += [table_row("PettingZoo gin_rummy_v4", m, None, why)
                 for m in ("AEC steps/s, raw_env", "AEC steps/s, env (wrapped)")]
        return rows
    peer_raw, peer_env = med["theirs raw_env"], med["theirs env"]
    rows += [
        table_row("PettingZoo gin_rummy_v4", "AEC steps/s, raw_env", peer_raw,
             f"PettingZoo {version} (RLCard underneath), the same loop in its own interpreter; "
             f"{_spread(theirs['raw_env'])}"),
        table_row("PettingZoo gin_rummy_v4", "AEC steps/s, env (wrapped)", peer_env,
             f"its classic wrappers; {_spread(theirs['env'])}"),
        table_row("ratio", "sim.env.raw_env / gin_rummy_v4 raw_env", med["ours raw_env"] / peer_raw,
             "goal: at least 10"),
        table_row("ratio", "sim.env.env / gin_rummy_v4 env", med["ours env"] / peer_env,
             "both wrapped"),
        table_row("ratio", "VectorEnv (eaai, random) / gin_rummy_v4 raw_env",
             med["eaai/random"] / peer_raw, "goal: over 100 (and 1,000,000 steps/s)"),
    ]
    return rows


def env_section(rows: Sequence[dict[str, Any]], command: str, seconds: float,
                where: str) -> str:
    """The Markdown written between the environment markers."""
    day = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    return "\n".join([
        "### The learning environments next to PettingZoo's gin_rummy_v4",
        "",
        f"Measured {day} on {where}.",
        f"Command: `{command}` ({seconds:.0f} s wall). Rates are steps per CPU second of one "
        "core (`time.process_time`), so other work on this shared machine slows the wall clock "
        "more than these figures; each is the median of repeated runs taken in turn.",
        "",
        markdown_table(rows),
        "",
        "A step is one decision of the agent to move (AEC) or of each game's learner (vector). "
        "gin_rummy_v4 plays one hand per episode and ginbox's environments whole games to "
        "100; with random play most hands of both run to the wall. The AEC loop, the same "
        "text for both, picks a random legal action in Python from the observation's mask.",
    ])
