"""What the web table's HTTP layer refuses before any game work: the guards of ``ginbox serve``.

A request reaches a game only if it is small, JSON, addressed to this server and sent by its
own page. Each check answers one line with a 4xx, never a traceback or a 500:

* the ``Host`` header must name the address the server is bound to (Starlette's
  ``TrustedHostMiddleware``): a DNS-rebinding page that reaches ``127.0.0.1`` under another
  name is refused, so it cannot read the answers;
* a POST must come from this server's own page: an ``Origin`` of another site is refused (403),
  and so is a ``Sec-Fetch-Site`` of ``cross-site`` on any request, so a page elsewhere cannot
  make the server work (an ``<img>`` pointing at ``/api/log``, a form post);
* a POST's body must say ``Content-Type: application/json`` (415) and be at most
  :data:`MAX_BODY` bytes, checked from ``Content-Length`` before reading and again while
  reading (413); a body that does not arrive within :data:`READ_TIMEOUT_S` is dropped (408);
* the JSON may nest at most :data:`MAX_DEPTH` levels and hold integers of at most
  :data:`MAX_INT_DIGITS` digits (400); a query string's parameters are bounded the same way
  (:func:`read_query`: at most :data:`MAX_PARAMS` of them, each at most
  :data:`MAX_PARAM_CHARS` characters, a seed or seat of digits at most
  :data:`MAX_INT_DIGITS` long);
* at most :data:`MAX_REQUESTS` requests are answered at once (:class:`RequestLimit`): one
  more is refused at once (503) and only that one. A request counts once it has arrived
  whole: one whose body is still trickling in holds a connection (bounded by the read
  timeout and :mod:`sim.table.connections`), not a place among those being answered.

Every refusal's line is cut (:func:`sim.records.limits.shorten`), and so is every value it
repeats, so a 60 KB field is never echoed back. A client that goes away mid-request is let
go quietly (no traceback in the server's log).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sim.records.limits import shorten, shown

MAX_BODY = 64 * 1024
"""The largest request body read (a game's settings and moves are a few kilobytes)."""
MAX_DEPTH = 16
"""The deepest nesting of a request's JSON (the API's deepest is 3)."""
MAX_INT_DIGITS = 20
"""The most digits of an integer in a request (a seed is at most 19)."""
READ_TIMEOUT_S = 10.0
"""Seconds a request's body may take to arrive."""
MAX_REQUESTS = 200
"""Requests answered at once (each arrived whole); one more is refused at once (503)."""
MAX_PARAMS = 16
"""The most parameters of a query string (a log's address has at most seven)."""
MAX_PARAM_CHARS = 16 * 1024
"""The longest value of one query parameter (a game's moves, comma-separated)."""
MESSAGE_CHARS = 300
"""The longest line a refusal answers."""


class Refusal(Exception):
    """A request refused: the HTTP status and the one line the page shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def response(self) -> JSONResponse:
        """The refusal as JSON, its line cut to :data:`MESSAGE_CHARS` characters."""
        line = shorten(self.message.splitlines()[0] if self.message else "", MESSAGE_CHARS)
        return JSONResponse({"error": line}, status_code=self.status)


def loopback_hosts(host: str) -> list[str]:
    """The ``Host`` names a server bound to ``host`` answers to: the address itself, and the
    loopback names when it is a loopback address; any name when bound to every interface
    (``0.0.0.0`` or ``::``: the machine's names cannot be known here)."""
    if host in ("0.0.0.0", "::", ""):
        return ["*"]
    if host in ("127.0.0.1", "localhost", "::1"):
        return ["127.0.0.1", "localhost", "[::1]", "::1"]
    return [host, f"[{host}]"] if ":" in host else [host]


async def read_json(request: Request) -> Any:
    """The request's JSON body, within every bound above, or :class:`Refusal`."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise Refusal(415, "the request is not JSON: send Content-Type: application/json")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise Refusal(413, f"the request is larger than {MAX_BODY} bytes")
    try:
        raw = await asyncio.wait_for(_read_bounded(request), READ_TIMEOUT_S)
    except TimeoutError:
        raise Refusal(408, f"the request's body took longer than {READ_TIMEOUT_S:g} s") from None
    return parse_json(raw)


async def _read_bounded(request: Request) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise Refusal(413, f"the request is larger than {MAX_BODY} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def read_query(request: Request, integers: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """The query string's parameters (each name to its values), within the bounds of the
    module docstring, or :class:`Refusal` (400); ``integers`` name the parameters that must
    be digits, checked for length before anything converts them."""
    items = request.query_params.multi_items()
    if len(items) > MAX_PARAMS:
        raise Refusal(400, f"the address has {len(items)} parameters: at most {MAX_PARAMS}")
    params: dict[str, list[str]] = {}
    for name, value in items:
        if len(name) > MAX_PARAM_CHARS or len(value) > MAX_PARAM_CHARS:
            raise Refusal(400, f"the address's parameter {shown(name)} is longer than "
                               f"{MAX_PARAM_CHARS} characters")
        if name in integers and len(value) > MAX_INT_DIGITS:
            raise Refusal(400, f"{name} {shown(value)} is not valid: expected an integer of "
                               f"at most {MAX_INT_DIGITS} digits")
        params.setdefault(name, []).append(value)
    return params


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise Refusal(400, f"the request holds an integer of more than {MAX_INT_DIGITS} digits")
    return int(text)


def parse_json(raw: bytes) -> Any:
    """JSON of at most :data:`MAX_DEPTH` levels and :data:`MAX_INT_DIGITS`-digit integers;
    the depth is checked on the text first, so no parser recursion is ever deep."""
    if nesting(raw) > MAX_DEPTH:
        raise Refusal(400, f"the request nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(raw, parse_int=_bounded_int)
    except (ValueError, UnicodeDecodeError):
        raise Refusal(400, "the request is not JSON") from None


def nesting(raw: bytes) -> int:
    """The deepest nesting of brackets outside JSON strings (a linear scan)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


class SameSiteOnly:
    """ASGI middleware: refuse (403) a request another site's page makes, before the app
    sees it: an ``Origin`` that is not this server's on a POST, or ``Sec-Fetch-Site:
    cross-site`` on any request. A request with neither header (curl, a script) passes:
    only a browser carries another site's intent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                       for k, v in scope["headers"]}
            host = headers.get("host", "")
            origin = headers.get("origin")
            why = None
            if headers.get("sec-fetch-site") == "cross-site":
                why = "a page of another site may not use this table"
            elif scope["method"] == "POST" and origin is not None and \
                    origin not in (f"http://{host}", f"https://{host}"):
                why = f"requests from {origin} are not accepted: open the table at {host}"
            if why is not None:
                await Refusal(403, why).response()(scope, receive, send)
                return
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            return  # the client left: nothing to answer, nothing to log


class RequestLimit:
    """ASGI middleware: at most ``limit`` (default :data:`MAX_REQUESTS`) requests answered at
    once, each counted from the moment it has arrived whole (at once when it has no body;
    when its body's last part is read otherwise) until the app returns; a request past the
    limit is refused (503) at once and the others go on. A request whose body trickles in
    takes no place until it is all there, so slow clients cannot fill the limit."""

    def __init__(self, app: ASGIApp, limit: int | None = None) -> None:
        self.app = app
        self.limit = limit
        self.active = 0

    def _admit(self) -> None:
        limit = MAX_REQUESTS if self.limit is None else self.limit
        if self.active >= limit:
            raise Refusal(503, f"the server is answering {self.active} requests: try again "
                               "in a moment")
        self.active += 1

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        counted = False

        async def receive_counted() -> Message:
            nonlocal counted
            message = await receive()
            if not counted and message["type"] == "http.request" and \
                    not message.get("more_body", False):
                self._admit()  # the body is all here: the request counts from now
                counted = True
            return message

        answering = False

        async def send_watched(message: Message) -> None:
            nonlocal answering
            answering = True
            await send(message)

        try:
            if not _has_body(scope):
                self._admit()
                counted = True
            await self.app(scope, receive_counted, send_watched)
        except Refusal as refusal:  # over the limit, and the app let the refusal through
            if answering:
                raise
            await refusal.response()(scope, receive, send)
        finally:
            if counted:
                self.active -= 1


def _has_body(scope: Scope) -> bool:
    """Whether a request will send a body: a POST with a length above 0 or in chunks (the
    app reads no other method's body)."""
    if scope["method"] != "POST":
        return False
    headers = dict(scope["headers"])
    length = headers.get(b"content-length", b"").strip()
    return b"transfer-encoding" in headers or (length != b"0" and length != b"")


__all__ = ["MAX_BODY", "MAX_DEPTH", "MAX_INT_DIGITS", "MAX_PARAMS", "MAX_PARAM_CHARS",
           "MAX_REQUESTS", "MESSAGE_CHARS", "READ_TIMEOUT_S", "Refusal", "RequestLimit",
           "SameSiteOnly", "loopback_hosts", "nesting", "parse_json", "read_json",
           "read_query"]
