"""``ginbox serve``: the web table, a Starlette app over :class:`sim.table.human_table.Table`.

Stateless by design: a game is its settings (rules preset, team policy, the bots, the
person's seat, the seed) and the person's moves, and every request carries all of them. The
server rebuilds the table from them (:meth:`Table.replay`, through the one game loop), so a
reload, a second tab or a server restart resumes the game where it was; a small cache of
recent tables only saves the replay. Every field is checked before anything is played: an
unknown preset, a bot that is not a built-in (nothing is ever imported from a request), a
seed out of range or a move that is not legal at its turn is refused with a 400 and one line
saying why, and nothing is stored either way.

Bounded work: a request names its bots from a fixed list of levels (:data:`WEB_BOTS`, never a
budget of its own), every request that plays runs in a worker process with a CPU deadline
and a bounded queue (:mod:`sim.table.work_pool`), and the HTTP layer refuses what is too big,
not JSON, or sent by another site's page (:mod:`sim.table.guard`), each with a 4xx and one
line, and answers at most 200 requests at once, refusing only the excess. Under
``ginbox serve``, a request's headers have a deadline and the connections a limit that closes
the one waiting longest on its client first (:mod:`sim.table.connections`), so slow clients
cannot lock the others out.

Starlette: a small, well-kept ASGI toolkit (with uvicorn to serve it) whose test client
drives the app in-process; the page needs no templates, sessions or database, so a larger
framework would bring nothing. markdown-it-py renders the review's report for the page.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sim.engine.cards import card_str, parse_card
from sim.engine.hand import DEC_DISCARD, DEC_DRAW, DEC_KNOCK, DEC_OFFER
from sim.engine.rules import PRESETS, TEAM_POLICIES, Rules
from sim.engine.view import DECISION_NAMES
from sim.io.specs import MAX_SEED
from sim.records.limits import shorten, shown
from sim.records.log import dumps_record
from sim.review import review
from sim.review.report import LABELS, error_rate
from sim.table.guard import (
    MAX_INT_DIGITS,
    MESSAGE_CHARS,
    Refusal,
    RequestLimit,
    SameSiteOnly,
    loopback_hosts,
    read_json,
    read_query,
)
from sim.table.human_table import ROLE_NAMES, ROLE_NAMES_2, Table, hint_judge
from sim.table.page import STATIC, page_html
from sim.table.work_pool import WorkPool
from strategies.human import MoveError, melds_text
from strategies.moves import MoveTextError, move_str, parse_move

#: The review's Markdown as HTML for the page (raw HTML in the text is escaped, not passed on).
_MARKDOWN = MarkdownIt("js-default")
#: The most moves of the person a request may carry: a game to 100 asks a few hundred.
MAX_MOVES = 4000
#: The bots the web offers, by name: each a built-in at a fixed budget (a request never sets
#: one). ``mc-fast`` is ``mc`` with 32 worlds a decision, where its strength curve flattens.
WEB_BOTS = {"random": "random", "simple": "simple", "greedy-knock": "greedy-knock",
            "gin-hunter": "gin-hunter", "discard-tracking": "discard-tracking",
            "tuned": "tuned", "net": "net", "mc-fast": "mc:samples=32", "mc": "mc"}


class BadRequest(ValueError):
    """A request field that is not valid: its message is the one line the page shows."""


@dataclass(frozen=True)
class Game:
    """A game's settings, checked: what with the moves rebuilds it."""

    rules: str
    policy: str
    bots: tuple[str, ...]
    seat: int
    seed: int

    def rules_object(self) -> Rules:
        return game_rules(self.rules, self.policy)

    def strategies(self) -> list[str]:
        bots = [WEB_BOTS[b] for b in self.bots]
        return bots[:self.seat] + ["human"] + bots[self.seat:]

    def as_dict(self) -> dict[str, Any]:
        return {"rules": self.rules, "policy": self.policy, "bots": list(self.bots),
                "seat": self.seat, "seed": self.seed}


def game_rules(preset: str, policy: str) -> Rules:
    """A web game's rules: the preset, with the team policy when three play."""
    base = Rules.preset(preset)
    return Rules.resolve(base, {"team_policy": policy} if base.players == 3 else None)


def _int(value: Any, name: str, low: int, high: int) -> int:
    """``value`` (an integer, or its digits as text) within ``low..high``; its digits are
    counted before they are converted, so a 5,000-digit seed is refused like any other."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and \
            len(value) <= MAX_INT_DIGITS:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{name} {shown(value)} is not valid: expected an integer "
                         f"{low}..{high}")
    return value


def check_game(data: Any) -> Game:
    """The settings of a request, or BadRequest naming the first bad field."""
    if not isinstance(data, dict):
        raise BadRequest("the game is not valid: expected an object with rules, bots, seed")
    preset = data.get("rules", "three-handed")
    policy = data.get("policy", "captain")
    if policy not in TEAM_POLICIES:  # checked for two-player games too, which ignore it
        raise BadRequest(f"team policy {shown(policy)} is not valid: expected one of "
                         + ", ".join(TEAM_POLICIES))
    try:
        rules = game_rules(preset, policy)
    except ValueError as exc:
        raise BadRequest(shorten(str(exc), MESSAGE_CHARS)) from None
    preset = rules.name
    bots = data.get("bots")
    if not isinstance(bots, list) or len(bots) != rules.players - 1:
        raise BadRequest(f"{preset} rules need {rules.players - 1} bots: got {shown(bots)}")
    for bot in bots:
        if not isinstance(bot, str) or bot not in WEB_BOTS:
            raise BadRequest(f"bot {shown(bot)} is not offered here: expected one of "
                             + ", ".join(WEB_BOTS))
    seat = _int(data.get("seat", 0), "seat", 0, rules.players - 1)
    seed = _int(data.get("seed"), "seed", 0, MAX_SEED)
    return Game(preset, policy, tuple(bots), seat, seed)


def _is_token(token: Any) -> bool:
    """Whether ``token`` is a move in the notation's short form, spelled exactly so (``d``,
    ``p``, ``pass``, ``k``, ``n``, a card such as ``9H``): the one spelling a game's moves have."""
    if not isinstance(token, str):
        return False
    try:
        return move_str(parse_move(token), "short") == token
    except MoveTextError:
        return False


def check_moves(moves: Any) -> list[str]:
    """The person's moves as tokens: the move notation's short form (``d``, ``p``, ``pass``,
    ``k``, ``n``, a card)."""
    if isinstance(moves, str):
        moves = [m for m in moves.split(",") if m]
    if not isinstance(moves, list) or len(moves) > MAX_MOVES:
        raise BadRequest(f"moves are not valid: expected a list of at most {MAX_MOVES}")
    for i, token in enumerate(moves):
        if not _is_token(token):
            raise BadRequest(f"move {i + 1} {shown(token)} is not a move: expected d, p, pass, "
                             "k, n or a card such as 9H")
    return moves


class Tables:
    """Rebuilds tables from their settings and moves, keeping the most recent few (a cache
    only: any table can be rebuilt, so a restart loses nothing)."""

    def __init__(self, hint_samples: int | None, size: int = 32) -> None:
        self.hint_samples = hint_samples
        self.size = size
        self._cache: OrderedDict[tuple[Game, tuple[str, ...]], Table] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game: Game, moves: list[str]) -> Table:
        """The table after ``moves`` (taken out of the cache: the caller owns it)."""
        with self._lock:
            table = self._cache.pop((game, tuple(moves)), None)
        if table is not None:
            return table
        try:
            return Table.replay(game.rules_object(), game.strategies(), game.seed, 0, moves,
                                self.hint_samples)
        except MoveError as exc:
            raise BadRequest(f"the game does not replay: {exc}") from None

    def give(self, game: Game, table: Table) -> None:
        with self._lock:
            self._cache[(game, tuple(table.answers))] = table
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)


def state(game: Game, table: Table) -> dict[str, Any]:
    """Everything the page shows: the seats and their roles and scores, the person's cards
    in melds, the pile, the stock, the opponent's open cards, the legal moves, the events."""
    names = ROLE_NAMES if table.rules.players == 3 else ROLE_NAMES_2
    in_hand = table.roles[:2] if not table.over else ()
    seats = [{"seat": s, "name": table.specs[s].text, "you": s == game.seat,
              "level": "you" if s == game.seat else game.bots[s - (s > game.seat)],
              "role": names[table.roles.index(s)] if s in table.roles[:table.rules.players]
              else "", "score": v, "cards": 10 if s in in_hand else 0}
             for s, v in enumerate(table.scores())]
    out: dict[str, Any] = {
        "game": game.as_dict(), "moves": table.answers, "seats": seats,
        "target": table.rules.target, "hand_number": table.hand + 1, "over": table.over,
        "waiting": table.waiting, "hands_logged": len(table.records),
        "events": [{"hand": e.hand + 1, "text": e.text, "kind": e.kind,
                    **({"cards": e.cards} if e.cards is not None else {})} for e in table.events],
        "advice": table.rules.team_policy if table.rules.players == 3 else "",
    }
    if table.over:
        last = table.records[-1]
        out["final_scores"] = last.get("final_scores", last["scores"])
        out["winner"] = last["game_winner"]
        return out
    view = table.view()
    melds, deadwood = melds_text(view.hand)
    legal = table.legal()
    decision = table.decision
    played_for = table.played_for  # differs for an advisor
    out.update({
        "decision": DECISION_NAMES[decision],
        "for_seat": played_for if played_for != table.seat else None,
        "hand": _hand_cards(melds), "deadwood": deadwood, "melds_text": melds,
        "top": card_str(view.top) if view.top is not None else None,
        "pile": len(view.discard_pile), "stock": view.stock_count,
        "knock_limit": view.knock_limit,
        "opponent_took": [card_str(c) for c in view.opponent_took],
        "opponent_threw": [card_str(c) for c in view.opponent_discarded],
        "drawn": card_str(view.drawn) if view.drawn is not None and view.taken is None
        else None,
        "legal": legal,
        "can_take": "p" in legal, "can_draw": "d" in legal, "can_pass": "pass" in legal,
        "discards": [m[2:] for m in legal if m.startswith("x ")],
        "knocks": [m[2:] for m in legal if m.startswith("k ")],
        "knocked": view.knocked, "suggestion": table.suggestion,
        "prompt": {DEC_OFFER: "Take the upcard or pass", DEC_DRAW: "Draw from the stock "
                   "or take the pile's top card", DEC_KNOCK: "Discard a card, or knock with it",
                   DEC_DISCARD: "Discard a card"}[decision],
    })
    return out


def _hand_cards(melds: str) -> list[dict[str, Any]]:
    """The cards in shown order (melds first), each marked melded or loose."""
    out = []
    group = 0
    melded = False  # a hand with no meld is all loose cards (no bracket opens)
    for word in melds.replace("[", " [ ").replace("]", " ] ").split():
        if word == "[":
            group += 1
            melded = True
        elif word == "]":
            melded = False
        elif word == "·":
            melded = False
            group += 1
        else:
            parse_card(word)
            out.append({"card": word, "melded": melded, "group": group})
    return out


def review_steps(decisions: Any) -> dict[str, Any]:
    """The review as the page steps through it: every decision of the person in order (the
    position: hand, pile top, score; the options' values; played against best; the label)
    and the game's figures: decisions, errors by label, the error rate (``ginbox review``'s:
    1000 times the mean loss) and the accuracy (the share of decisions that cost nothing
    worth a label)."""
    steps = []
    for row in decisions.to_dict("records"):
        steps.append({
            "hand": int(row["hand"]) + 1, "move": int(row["move"]), "kind": row["kind"],
            "cards": row["cards"].split(), "top": row["top"] or None, "score": row["score"],
            "played": row["chosen"], "best": row["best"], "label": row["label"],
            "value_played": round(float(row["value_chosen"]), 4),
            "value_best": round(float(row["value_best"]), 4),
            "loss": round(float(row["loss"]), 4), "counted": bool(row["counted"]),
            "values": json.loads(row["values"]) if row["values"] else {}})
    counted = [s for s in steps if s["counted"]]
    errors = {label: sum(s["label"] == label for s in counted) for label in LABELS}
    rate = error_rate(decisions)[0]
    return {"steps": steps, "figures": {
        "decisions": len(counted), **errors,
        "error_rate": round(rate, 1) if counted else 0.0,
        "accuracy": round(100 * (1 - sum(errors.values()) / len(counted)), 1)
        if counted else 100.0}}


def make_handler(hint_samples: int | None) -> Any:
    """A worker's request handler (:mod:`sim.table.work_pool`): ``(kind, data)`` to
    ``(200, payload)`` or ``(400, the one line)``, with this process's cache of tables."""
    tables = Tables(hint_samples)
    judge = hint_judge(hint_samples)
    warm = tables.take(Game("eaai", "captain", ("simple",), 0, 0), [])
    warm.hints()  # compile (or load from the cache) what a request plays, before any deadline

    def show(data: dict[str, Any], game: Game, table: Table) -> Any:
        return state(game, table)

    def move(data: dict[str, Any], game: Game, table: Table) -> Any:
        text = data.get("move")
        if not isinstance(text, str) or len(text) > 20:
            raise BadRequest(f"move {shown(text)} is not valid: expected text such as 'x 9H'")
        if not table.waiting:
            raise BadRequest("the game is over: no move is asked")
        table.play(text)  # MoveError (nothing played) for a bad or illegal move
        return state(game, table)

    def hints(data: dict[str, Any], game: Game, table: Table) -> Any:
        return {"hints": [{"move": h.move, "value": h.value} for h in table.hints()],
                "judge": judge}

    def report(data: dict[str, Any], game: Game, table: Table) -> Any:
        if not table.over:
            raise BadRequest("the review is ready when the game is over")
        done = review(table.records, seats=[game.seat], judge=judge, quiet=True)
        text = done.report()
        return {"report": text, "report_html": _MARKDOWN.render(text),
                **review_steps(done.decisions)}

    def log(data: dict[str, Any], game: Game, table: Table) -> Any:
        return "".join(dumps_record(r) + "\n" for r in table.records)

    work = {"state": show, "move": move, "hint": hints, "review": report, "log": log}

    def handle(kind: str, data: dict[str, Any]) -> tuple[int, Any]:
        try:
            game = check_game(data.get("game"))
            table = tables.take(game, check_moves(data.get("moves", [])))
            try:
                return 200, work[kind](data, game, table)
            finally:
                tables.give(game, table)
        except (BadRequest, MoveError) as exc:  # one short line, whatever the request held
            return 400, shorten(str(exc).splitlines()[0], MESSAGE_CHARS)

    return handle


def create_app(hint_samples: int | None = None, host: str = "127.0.0.1",
               workers: int | None = None) -> Starlette:
    """The web table bound to ``host`` (the ``Host`` names it answers to); ``hint_samples``:
    the judge's worlds for hints and the review; ``workers``: processes that play
    (default: the usable cores)."""
    pool = WorkPool(make_handler, (hint_samples,), workers)

    async def page(request: Request) -> Response:
        return HTMLResponse(page_html())

    async def options(request: Request) -> Response:
        return JSONResponse({"presets": list(PRESETS), "policies": list(TEAM_POLICIES),
                             "bots": list(WEB_BOTS),
                             "players": {p: Rules.preset(p).players for p in PRESETS}})

    def api(kind: str) -> Any:
        async def endpoint(request: Request) -> Response:
            try:
                data = await read_json(request)
                if not isinstance(data, dict):
                    raise Refusal(400, "the request is not a JSON object")
                return JSONResponse(await pool.run(kind, data))
            except Refusal as refusal:
                return refusal.response()
        return endpoint

    async def log(request: Request) -> Response:
        try:
            params = read_query(request, integers=("seat", "seed"))
        except Refusal as refusal:
            return refusal.response()

        def first(name: str, default: str | None = None) -> str | None:
            return params.get(name, [default])[0]

        data = {"game": {"rules": first("rules"), "policy": first("policy", "captain"),
                         "bots": params.get("bot", []), "seat": first("seat", "0"),
                         "seed": first("seed")},
                "moves": first("moves", "")}
        try:
            text = await pool.run("log", data)
        except Refusal as refusal:
            return refusal.response()
        seed = first("seed")  # checked by the worker: digits
        return PlainTextResponse(text, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="ginbox-{seed}.jsonl"'})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        pool.start()  # the workers warm up while the page loads
        yield
        pool.close()

    app = Starlette(routes=[
        Route("/", page), Route("/api/options", options),
        Route("/api/state", api("state"), methods=["POST"]),
        Route("/api/move", api("move"), methods=["POST"]),
        Route("/api/hint", api("hint"), methods=["POST"]),
        Route("/api/review", api("review"), methods=["POST"]),
        Route("/api/log", log),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=loopback_hosts(host)),
                   Middleware(SameSiteOnly), Middleware(RequestLimit)], lifespan=lifespan)
    app.state.pool = pool
    return app


def serve(host: str = "127.0.0.1", port: int = 8765, hint_samples: int | None = None,
          open_browser: bool = True, workers: int | None = None) -> None:
    """Serve the web table until interrupted; open it in the browser if asked."""
    import socket
    import webbrowser

    import uvicorn

    try:  # refuse a taken or foreign address in one line, before uvicorn starts
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                         "choose another --port or --host") from None
    url = f"http://{host}:{port}/"
    print(f"ginbox table at {url} (Ctrl-C stops)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"WARNING: listening on {host}, not this machine only: anyone who can reach "
              f"{host}:{port} can open tables and make this machine play for them (the "
              "limits of docs/play.md hold, but the table has no login)", file=sys.stderr,
              flush=True)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, [url]).start()
    uvicorn.Server(server_config(create_app(hint_samples, host, workers), host, port)).run()


def server_config(app: Any, host: str, port: int) -> Any:
    """How uvicorn serves the table: HTTP/1.1 through the guarded protocol of
    :mod:`sim.table.connections` (a header deadline, a connection limit that closes the
    longest-waiting connection first), no WebSockets, idle connections closed after 5 s,
    request headers of at most 16 KB. Requests are limited by the app itself
    (:class:`sim.table.guard.RequestLimit`), not by uvicorn's count of connections."""
    import uvicorn

    from sim.table.connections import connection_limit, guarded_protocol

    return uvicorn.Config(app, host=host, port=port, log_level="warning",
                          http=guarded_protocol(connection_limit()), ws="none",
                          timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024)
