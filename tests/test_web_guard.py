"""The web table's bounds: every attack on ``ginbox serve`` gets a 4xx (or a 503 for work
refused) with one line, and leaves the game as it was."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient
from test_web import _free_port, wait_for_port

import sim.table.guard
import sim.table.work_pool
from sim.table.guard import (
    MAX_BODY,
    MAX_DEPTH,
    MAX_PARAMS,
    MAX_REQUESTS,
    MESSAGE_CHARS,
    Refusal,
    RequestLimit,
    nesting,
    parse_json,
)
from sim.table.web import create_app

EAAI = {"rules": "eaai", "bots": ["simple"], "seat": 0, "seed": 3}
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    with TestClient(create_app(hint_samples=8, workers=1), base_url="http://127.0.0.1") as c:
        yield c


def _one_line(r: Any, status: int, start: str) -> None:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error.startswith(start) and "\n" not in error, error


def _unchanged(api: TestClient) -> None:
    s = api.post("/api/state", json={"game": EAAI, "moves": []})
    assert s.status_code == 200 and s.json()["moves"] == [] and s.json()["decision"] == "offer"


def test_a_body_over_the_limit_is_refused_before_and_while_reading(api: TestClient) -> None:
    big = b'{"game": ' + b" " * MAX_BODY + b"}"
    _one_line(api.post("/api/state", content=big, headers=JSON), 413,
              f"the request is larger than {MAX_BODY} bytes")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while read
        yield b'{"game": '
        for _ in range(MAX_BODY // 1024 + 1):
            yield b" " * 1024
        yield b"}"

    _one_line(api.post("/api/state", content=chunks(), headers=JSON), 413,
              "the request is larger than")
    _unchanged(api)


def test_only_json_from_this_servers_page(api: TestClient) -> None:
    data = json.dumps({"game": EAAI, "moves": []})
    _one_line(api.post("/api/state", content=data, headers={"Content-Type": "text/plain"}),
              415, "the request is not JSON: send Content-Type: application/json")
    _one_line(api.post("/api/state", content=data,
                       headers={**JSON, "Origin": "http://evil.example"}),
              403, "requests from http://evil.example are not accepted")
    assert api.post("/api/state", content=data,
                    headers={**JSON, "Origin": "http://127.0.0.1"}).status_code == 200
    log = api.get("/api/log", params={"rules": "eaai", "bot": "simple", "seed": 3},
                  headers={"Sec-Fetch-Site": "cross-site"})  # an <img> on another site
    _one_line(log, 403, "a page of another site may not use this table")
    rebound = api.post("/api/state", content=data, headers={**JSON, "Host": "evil.example"})
    assert rebound.status_code == 400 and rebound.text == "Invalid host header"
    _unchanged(api)


def test_deep_or_huge_json_is_refused(api: TestClient) -> None:
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    _one_line(api.post("/api/state", content=deep, headers=JSON), 400,
              f"the request nests deeper than {MAX_DEPTH} levels")
    nested = "[" * 100_000  # as deep as the limit on the body allows, unclosed
    assert api.post("/api/state", content=nested[:MAX_BODY], headers=JSON).status_code == 400
    huge = json.dumps({"game": EAAI, "moves": []}).replace('"seed": 3', '"seed": ' + "9" * 5000)
    _one_line(api.post("/api/state", content=huge, headers=JSON), 400,
              "the request holds an integer of more than 20 digits")
    assert nesting(b'{"a": "[[[[", "b": [[1]]}') == 3  # brackets in strings do not count
    assert parse_json(b'{"seed": 12}') == {"seed": 12}
    _unchanged(api)


def test_a_costly_request_stops_at_its_deadline_and_is_remembered(
        api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = {"rules": "three-handed", "bots": ["mc", "mc"], "seat": 0, "seed": 5}
    monkeypatch.setattr(sim.table.work_pool, "CPU_SECONDS", 0.001)
    first = api.post("/api/hint", json={"game": game, "moves": []})
    _one_line(first, 503, "this request needs more than 0.001 CPU seconds of the server")
    pool = api.app.state.pool  # type: ignore[attr-defined]  # the app's, set by create_app
    monkeypatch.setattr(pool, "_pool", lambda: pytest.fail("a remembered failure was played"))
    again = api.post("/api/hint", json={"game": game, "moves": []})
    assert again.status_code == 503 and again.json() == first.json()
    bad = {"game": EAAI, "moves": ["p", "QH"]}
    monkeypatch.undo()
    _one_line(api.post("/api/state", json=bad), 400, "the game does not replay")
    monkeypatch.setattr(pool, "_pool", lambda: pytest.fail("a failed replay was played again"))
    _one_line(api.post("/api/state", json=bad), 400, "the game does not replay")


def test_a_full_queue_refuses_at_once(api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    pool = api.app.state.pool  # type: ignore[attr-defined]
    monkeypatch.setattr(pool, "limit", 0)
    _one_line(api.post("/api/state", json={"game": {**EAAI, "seed": 8}, "moves": []}), 503,
              "the table is busy")
    assert api.get("/api/options").status_code == 200  # no game work: answered at once


def test_opening_the_table_to_the_network_warns_on_stderr() -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "sim", "serve", "--host", "0.0.0.0",
                             "--port", str(port), "--no-browser", "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for_port(port)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert f"WARNING: listening on 0.0.0.0, not this machine only: anyone who can reach " \
           f"0.0.0.0:{port} can open tables" in err


def test_a_body_that_does_not_arrive_in_time_is_dropped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that stops sending half-way is answered 408 when the read timeout passes."""
    import asyncio

    from starlette.requests import Request

    from sim.table.guard import Refusal, read_json

    monkeypatch.setattr(sim.table.guard, "READ_TIMEOUT_S", 0.2)
    parts = [b'{"game": ']

    async def receive() -> dict[str, Any]:
        if parts:
            return {"type": "http.request", "body": parts.pop(), "more_body": True}
        await asyncio.sleep(5)  # the rest never comes
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "POST", "headers": [(b"content-type",
                                                            b"application/json")]}
    with pytest.raises(Refusal) as refused:
        asyncio.run(read_json(Request(scope, receive)))
    assert refused.value.status == 408
    assert refused.value.message == "the request's body took longer than 0.2 s"


def _limited_calls(limit: RequestLimit, requests: list[dict[str, Any]],
                   app_state: dict[str, Any]) -> list[int]:
    """Send ``requests`` (ASGI scopes, each with its ``body`` parts) through ``limit`` at
    once, all held inside the app until every one is either in it or refused; the status of
    each answer."""
    statuses: list[int] = []

    async def scenario() -> None:
        async def call(request: dict[str, Any]) -> None:
            parts = list(request.pop("body", []))

            async def receive() -> dict[str, Any]:
                return parts.pop(0) if parts else {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    statuses.append(message["status"])

            await limit({"type": "http", **request}, receive, send)

        tasks = [asyncio.create_task(call(r)) for r in requests]
        for _ in range(100_000):  # every request in the app or refused: no timing involved
            if app_state["in_app"] + len(statuses) == len(requests):
                break
            await asyncio.sleep(0)
        app_state["release"].set()
        await asyncio.gather(*tasks)

    asyncio.run(scenario())
    return statuses


def _held_app(state: dict[str, Any]) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["method"] == "POST":
            while (await receive()).get("more_body", False):
                pass
        state["in_app"] += 1
        await state["release"].wait()
        await PlainTextResponse("ok")(scope, receive, send)
    return app


def test_only_the_requests_past_the_limit_are_refused() -> None:
    """MAX_REQUESTS + 1 requests at once: exactly one refused, the others answered."""
    state: dict[str, Any] = {"in_app": 0, "release": asyncio.Event()}
    limit = RequestLimit(_held_app(state))
    get = {"method": "GET", "path": "/api/options", "headers": []}
    statuses = _limited_calls(limit, [dict(get) for _ in range(MAX_REQUESTS + 1)], state)
    assert sorted(statuses) == [200] * MAX_REQUESTS + [503]
    assert state["in_app"] == MAX_REQUESTS and limit.active == 0


def test_a_request_counts_once_its_body_is_all_there() -> None:
    """With room for one request: a POST whose body is still coming takes no place, so a GET
    beside it is answered; the POST counts when its body's last part comes."""
    state: dict[str, Any] = {"in_app": 0, "release": asyncio.Event()}
    limit = RequestLimit(_held_app(state), limit=1)
    post = {"method": "POST", "path": "/api/state", "headers": [(b"content-length", b"2")],
            "body": [{"type": "http.request", "body": b"{", "more_body": True},
                     {"type": "http.request", "body": b"}", "more_body": False}]}
    get = {"method": "GET", "path": "/api/options", "headers": []}
    statuses = _limited_calls(limit, [post, get], state)
    assert sorted(statuses) == [200, 503]  # one place: whichever arrived whole first has it
    state = {"in_app": 0, "release": asyncio.Event()}
    limit = RequestLimit(_held_app(state), limit=1)
    trickling = {**post, "body": [{"type": "http.request", "body": b"{", "more_body": True}]}
    statuses = _limited_calls(limit, [trickling, get], state)  # its client leaves mid-body
    assert statuses == [200, 200] and limit.active == 0  # the GET was never refused


def test_query_parameters_are_bounded(api: TestClient) -> None:
    log = {"rules": "eaai", "bot": "simple", "seed": "3"}
    assert api.get("/api/log", params=log).status_code == 200
    for name in ("seed", "seat"):
        huge = api.get("/api/log", params={**log, name: "9" * 5000})
        _one_line(huge, 400, f"{name} '99999")
        assert "expected an integer of at most 20 digits" in huge.json()["error"]
        assert len(huge.content) < 400
    many = api.get("/api/log", params=[("bot", "simple")] * (MAX_PARAMS + 1))
    _one_line(many, 400, f"the address has {MAX_PARAMS + 1} parameters: at most {MAX_PARAMS}")
    string_seed = api.post("/api/state", json={"game": {**EAAI, "seed": "9" * 5000}})
    _one_line(string_seed, 400, "seed '99999")  # digits in a JSON string: bounded too


def test_a_long_bad_value_is_cut_in_its_refusal(api: TestClient) -> None:
    """A 60 KB value is never echoed back whole, whichever field holds it."""
    big = "x" * 60_000
    for data in ({"game": {**EAAI, "rules": big}}, {"game": {**EAAI, "policy": big}},
                 {"game": {**EAAI, "bots": [big]}}, {"game": EAAI, "moves": [big]},
                 {"game": {**EAAI, "seat": big}}):
        r = api.post("/api/state", json=data)
        assert r.status_code == 400 and len(r.json()["error"]) <= MESSAGE_CHARS, r.text[:200]
        assert "xxxx...xxxx" in r.json()["error"] or "..." in r.json()["error"]
    moved = api.post("/api/move", json={"game": EAAI, "moves": [], "move": big})
    _one_line(moved, 400, "move 'xxxx")
    assert len(moved.content) < 400
    assert len(Refusal(400, "y" * 60_000).response().body) < MESSAGE_CHARS + 20
