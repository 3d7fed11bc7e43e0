"""A tiny counter-based random stream usable inside compiled code.

Each game carries its own streams as one 64-bit word each (SplitMix64), so a game is a pure
function of its seeds: no global random state, and the same seed gives the same game on any
worker. Seeds for game ``g`` come from mixing a base seed with ``g``, so a chunk of games can
start anywhere without replaying the ones before it.
"""

from __future__ import annotations

import numpy as np
from numba import uint64

from sim.engine.jit import kernel

GOLDEN = uint64(0x9E3779B97F4A7C15)
MIX1 = uint64(0xBF58476D1CE4E5B9)
MIX2 = uint64(0x94D049BB133111EB)


@kernel(inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64 finaliser: a bijective, well-mixed hash of 64 bits."""
    z = (z ^ (z >> uint64(30))) * MIX1
    z = (z ^ (z >> uint64(27))) * MIX2
    return z ^ (z >> uint64(31))


@kernel(inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance the stream held in ``state[0]`` (a uint64 array) and return 64 random bits."""
    state[0] += GOLDEN
    return mix64(state[0])


@kernel(inline="always")
def below(state: np.ndarray, n: int) -> int:
    """A uniform integer in ``0..n-1`` (n <= 2**31; bias below 2**-32 * n)."""
    return int(((next_u64(state) >> uint64(32)) * uint64(n)) >> uint64(32))


@kernel
def stream_seed(base: np.uint64, index: int) -> np.uint64:
    """Seed of sub-stream ``index`` of ``base`` (for example game g of an experiment)."""
    return mix64(base ^ mix64(uint64(index) + GOLDEN))


def seed_words(seed: int, *keys: int) -> np.uint64:
    """A 64-bit base seed from a user seed and integer keys, through numpy's SeedSequence."""
    words = np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(2, np.uint64)
    return np.uint64(words[0])
