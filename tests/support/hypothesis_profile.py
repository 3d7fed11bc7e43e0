"""The hypothesis settings shared by the engine tests.

One profile, so every property test of the engine runs the same small, derandomized number of
examples: fast enough for the default run and reproducible from one run to the next.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

#: Deterministic, modest hypothesis settings: the engine tests must stay fast and reproducible.
PROFILE = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
