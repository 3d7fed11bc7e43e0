"""The web table's bounds: every attack on ``ginbox serve`` gets a 4xx (or a 503 for work
refused) with one line, and leaves the game as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_web import _free_port, wait_for_port

import sim.table.guard
import sim.table.work_pool
from sim.table.guard import MAX_BODY, MAX_DEPTH, nesting, parse_json
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
