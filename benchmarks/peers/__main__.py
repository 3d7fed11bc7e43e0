"""``python -m benchmarks.peers``: the comparison (``--help`` for its options)."""

import sys

from benchmarks.peers import main

sys.exit(main())
