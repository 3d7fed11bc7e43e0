"""The connections of ``ginbox serve`` under clients that trickle their requests: slow headers
lock nobody out, the longest-waiting connection makes room, and a header deadline closes a
request that never arrives. Real sockets on 127.0.0.1 against uvicorn with the server's own
configuration and a trivial app, so no test waits on game work; the only waits are for events,
each bounded far above what a busy machine needs."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import uvicorn

import sim.table.connections
from sim.table.connections import HEADER_TIMEOUT_S, guarded_protocol, raise_open_files
from sim.table.web import server_config

REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
PARTIAL = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # the blank line never comes
WAIT_S = 60.0  # a bound on every wait, never reached unless something is wrong


class Hold:
    """A trivial app that answers ``ok``; while ``held``, it keeps each request waiting."""

    def __init__(self) -> None:
        self.held = False
        self.release = asyncio.Event()
        self.in_app = 0
        self.started = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.started += 1
        if scope["method"] == "POST":  # its body read whole first, as the table's API does
            while (await receive()).get("more_body", False):
                pass
        self.in_app += 1
        if self.held:
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"ok"})


async def until(condition: Callable[[], bool]) -> None:
    """Wait (bounded) until ``condition`` holds."""
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(poll(), WAIT_S)


def serving(config: uvicorn.Config,
            check: Callable[[uvicorn.Server, int], Awaitable[None]]) -> None:
    """Run ``check(server, port)`` against ``config`` served on a free port of 127.0.0.1."""
    async def main() -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            await until(lambda: server.started)
            await check(server, sock.getsockname()[1])
        finally:
            server.should_exit = True
            server.force_exit = True
            await asyncio.wait_for(task, WAIT_S)
    asyncio.run(main())


def config(app: Any, limit: int) -> uvicorn.Config:
    return uvicorn.Config(app, http=guarded_protocol(limit), ws="none", lifespan="off",
                          log_level="warning")


async def ask(port: int, request: bytes = REQUEST) -> bytes:
    """The whole answer to ``request`` on a new connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    answer = await asyncio.wait_for(reader.read(), WAIT_S)
    writer.close()
    return answer


async def trickle(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection that sent part of its headers and will send no more."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(PARTIAL)
    await writer.drain()
    return reader, writer


def test_the_servers_configuration_bounds_connections_not_requests() -> None:
    cfg = server_config(Hold(), "127.0.0.1", 8765)
    assert cfg.limit_concurrency is None  # uvicorn's count of every open connection: not used
    assert cfg.http.__name__ == "GuardedH11Protocol" and cfg.ws == "none"  # type: ignore[union-attr]
    assert cfg.timeout_keep_alive == 5 and cfg.h11_max_incomplete_event_size == 16 * 1024
    assert HEADER_TIMEOUT_S == 10.0


def test_slow_headers_lock_nobody_out_and_a_burst_is_answered_whole() -> None:
    """250 connections trickling their headers (more than the 200 requests answered at once):
    a whole request on another connection is answered 200, and so are 250 requests sent at
    once on connections opened first."""
    raise_open_files(2048)

    async def check(server: uvicorn.Server, port: int) -> None:
        slow = [await trickle(port) for _ in range(250)]
        await until(lambda: len(server.server_state.connections) >= 250)
        assert (await ask(port)).startswith(b"HTTP/1.1 200 ")
        burst = [await asyncio.open_connection("127.0.0.1", port) for _ in range(250)]
        await until(lambda: len(server.server_state.connections) >= 500)
        for _, writer in burst:
            writer.write(REQUEST)
        answers = [await asyncio.wait_for(reader.read(), WAIT_S) for reader, _ in burst]
        assert sum(a.startswith(b"HTTP/1.1 200 ") for a in answers) == 250
        for _, writer in slow + burst:
            writer.close()

    serving(server_config(Hold(), "127.0.0.1", 0), check)


def test_a_full_server_closes_the_longest_waiting_connection() -> None:
    async def check(server: uvicorn.Server, port: int) -> None:
        slow = []
        for n in range(1, 5):
            slow.append(await trickle(port))
            await until(lambda n=n: len(server.server_state.connections) == n)  # type: ignore[misc]
        assert (await ask(port)).startswith(b"HTTP/1.1 200 ")  # the fifth: room is made
        oldest_reader = slow[0][0]
        assert await asyncio.wait_for(oldest_reader.read(), WAIT_S) == b""  # closed
        reader, writer = slow[1]  # the next oldest is still open: its request completes
        writer.write(b"Connection: close\r\n\r\n")
        assert (await asyncio.wait_for(reader.read(), WAIT_S)).startswith(b"HTTP/1.1 200 ")
        for _, writer in slow:
            writer.close()

    serving(config(Hold(), 4), check)


def test_a_body_still_coming_makes_room_too() -> None:
    """A request whose body trickles in is not one being answered: when the server is full,
    it is closed for a request that came whole."""
    app = Hold()

    async def check(server: uvicorn.Server, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n{")
        await until(lambda: app.started == 1)  # the app reads the body, which stops short
        assert (await ask(port)).startswith(b"HTTP/1.1 200 ")
        assert await asyncio.wait_for(reader.read(), WAIT_S) == b""  # closed to make room
        writer.close()

    serving(config(app, 1), check)


def test_when_every_connection_is_being_answered_a_new_one_is_refused() -> None:
    app = Hold()
    app.held = True

    async def check(server: uvicorn.Server, port: int) -> None:
        answered = [asyncio.create_task(ask(port)) for _ in range(2)]
        await until(lambda: app.in_app == 2)
        refused = await ask(port)
        head, _, body = refused.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 ")
        assert json.loads(body) == {"error": "the server holds 2 connections, each with a "
                                             "request being answered: try again in a moment"}
        app.release.set()
        assert all(a.startswith(b"HTTP/1.1 200 ") for a in await asyncio.gather(*answered))

    serving(config(app, 2), check)


def test_headers_that_do_not_arrive_in_time_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1 s, not less: the prompt request below must beat it on a busy machine too
    monkeypatch.setattr(sim.table.connections, "HEADER_TIMEOUT_S", 1.0)

    async def check(server: uvicorn.Server, port: int) -> None:
        reader, writer = await trickle(port)
        answer = await asyncio.wait_for(reader.read(), WAIT_S)  # read to the close
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 ")
        assert json.loads(body) == {"error": "the request's headers took longer than 1 s"}
        writer.close()
        silent, writer = await asyncio.open_connection("127.0.0.1", port)  # sends nothing
        assert await asyncio.wait_for(silent.read(), WAIT_S) == b""  # closed, no answer
        writer.close()
        assert (await ask(port)).startswith(b"HTTP/1.1 200 ")  # a prompt request is served

    serving(config(Hold(), 16), check)


def test_the_open_file_limit_is_raised_never_lowered() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert raise_open_files(16) == soft  # enough already: unchanged
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (soft, hard)
    wanted = soft + 1 if hard == resource.RLIM_INFINITY or soft < hard else soft
    assert raise_open_files(wanted) == wanted
