"""The connections of ``ginbox serve``: how many may be open, and how long a request may take
to arrive, so clients that trickle their requests in cannot lock the others out.

uvicorn's HTTP/1.1 protocol (h11) with three bounds of its own:

* **a header deadline**: a request's headers must arrive within :data:`HEADER_TIMEOUT_S` of
  the connection opening (or, on a kept-alive connection, of the previous answer); past it
  the connection is closed, with a 408 and one line if part of a request had come. While a
  request is being answered the deadline does not run (its body has the read timeout of
  :mod:`sim.table.guard`);
* **a connection limit**: at most ``limit`` connections open (:func:`connection_limit`). One
  more closes the connection that has waited longest on its client (idle, or its request's
  headers or body still coming), so clients sending their requests slowly cannot crowd out
  one that sends a whole request at once; only when every open connection has a request
  that arrived whole and is being answered is the new one refused (503, one line);
* **open files**: the soft limit on open files is raised towards what the limit needs
  (:func:`raise_open_files`), never above the hard limit, and the connection limit is kept
  below it, so the server never runs out of file descriptors while accepting.

A connection counts against nothing else: requests are limited once they have arrived whole
(:class:`sim.table.guard.RequestLimit`).
"""

from __future__ import annotations

import asyncio
import json
import resource
from collections import OrderedDict
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
"""Seconds a request's headers may take to arrive."""
MAX_CONNECTIONS = 4096
"""Connections open at once, at most (fewer if the open-file limit cannot hold them)."""
FILES_KEPT = 256
"""Open files kept free of connections: the worker processes' pipes, the compile cache, logs."""


def raise_open_files(wanted: int) -> int:
    """Raise this process's soft limit on open files towards ``wanted`` (never above the
    hard limit, never lowered); the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    if soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if new > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
    return int(soft)


def connection_limit() -> int:
    """The connections the server may hold: :data:`MAX_CONNECTIONS`, or fewer when the
    open-file limit (raised as far as it goes) keeps less room."""
    files = raise_open_files(MAX_CONNECTIONS + FILES_KEPT)
    return max(16, min(MAX_CONNECTIONS, files - FILES_KEPT))


def _raw_answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP answer with a JSON one-line error, closing the connection (written
    before any request was parsed, so h11 cannot write it)."""
    body = json.dumps({"error": message}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode() + body


def guarded_protocol(limit: int) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the bounds of the module docstring, for a server holding at
    most ``limit`` connections (a class per server: the class keeps the server's waiting
    connections)."""
    # connections waiting on their client (idle, or a request not all here), longest first
    waiting: OrderedDict[Any, None] = OrderedDict()

    class GuardedH11Protocol(H11Protocol):
        """One connection, with a header deadline and its place in the waiting order."""

        deadline: asyncio.TimerHandle | None = None
        heard: bool = False  # part of a request arrived since the deadline was set

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > limit:
                if not waiting:  # every connection has a request being answered
                    transport.write(_raw_answer(
                        503, "Service Unavailable",
                        f"the server holds {limit} connections, each with a request being "
                        "answered: try again in a moment"))
                    transport.close()
                    return
                oldest = next(iter(waiting))
                oldest.stop_waiting()
                oldest.transport.close()
            self.follow()

        def data_received(self, data: bytes) -> None:
            if self.deadline is not None:
                self.heard = True
            super().data_received(data)
            self.follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self.follow()

        def connection_lost(self, exc: Exception | None) -> None:
            self.stop_waiting()
            super().connection_lost(exc)

        def answering(self) -> bool:
            """Whether a request of this connection is being answered."""
            return self.cycle is not None and not self.cycle.response_complete

        def follow(self) -> None:
            """After each event: the deadline runs while no request is being answered, and
            the connection keeps its place among those waiting on their client while its
            request is not all here (its headers or its body still coming)."""
            if self.transport.is_closing():
                self.stop_waiting()
                return
            answering = self.answering()
            if answering and self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None
            elif not answering and self.deadline is None:
                self.heard = False
                self.deadline = self.loop.call_later(HEADER_TIMEOUT_S, self.too_slow)
            if answering and self.conn.their_state is not h11.SEND_BODY:
                waiting.pop(self, None)  # arrived whole: it waits on the server now
            elif self not in waiting:
                waiting[self] = None

        def stop_waiting(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None
            waiting.pop(self, None)

        def too_slow(self) -> None:
            """The deadline passed: a 408 if part of a request came, then close."""
            self.deadline = None
            waiting.pop(self, None)
            if self.transport.is_closing():
                return
            if self.heard and self.conn.our_state is h11.IDLE:
                self.transport.write(_raw_answer(
                    408, "Request Timeout",
                    f"the request's headers took longer than {HEADER_TIMEOUT_S:g} s"))
            self.transport.close()

    return GuardedH11Protocol


__all__ = ["FILES_KEPT", "HEADER_TIMEOUT_S", "MAX_CONNECTIONS", "connection_limit",
           "guarded_protocol", "raise_open_files"]
