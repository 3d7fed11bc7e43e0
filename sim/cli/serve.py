"""``ginbox serve``: the web table (:mod:`sim.table.web`), which needs the ``web`` extra."""

from __future__ import annotations

import argparse

from sim.cli.common import UsageError


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the web table on ``--host``/``--port`` until Ctrl-C."""
    try:
        from sim.table.web import serve
    except ImportError as exc:
        raise UsageError(f"ginbox serve needs the web extra (pip install 'ginbox[web]'): "
                         f"{exc}") from None
    try:
        serve(args.host, args.port, args.hint_samples, open_browser=not args.no_browser,
              workers=args.workers)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        pass
    return 0
