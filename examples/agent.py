#!/usr/bin/env python3
"""A ginbox outside player in plain Python (protocol "ginbox-agent 1", docs/outside-players.md).

Run it at a ginbox table with ``ginbox play --strategies agent:examples/agent.py,simple``.
It never takes the upcard or the discard, knocks whenever it may, and discards its
highest-ranked legal card. It reads one JSON object a line and answers only the hello,
each decision, a showdown and the end of each hand.
"""

import json
import sys

RANKS = "A23456789TJQK"


def answer(message: dict) -> dict | None:
    kind = message["type"]
    if kind == "hello":
        return {"type": "hello", "protocol": "ginbox-agent 1", "name": "python-example"}
    if kind == "hand_end":
        return {"type": "ready"}
    if kind == "showdown":  # the defender of a knock: ginbox lays out its melds by itself
        # (a program may declare its own, as "melds": the other players are told them)
        return {"type": "layout", "id": message["id"]}
    if kind != "decision":
        return None  # an event: nothing to say
    legal = message["legal"]
    if message["decision"] == "discard":
        move = max(legal, key=lambda card: RANKS.index(card[0]))
    elif "knock" in legal:
        move = "knock"
    else:
        move = legal[0] if message["decision"] == "offer" else "draw_stock"
    return {"type": "move", "id": message["id"], "move": move}


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "bye":
        break
    reply = answer(message)
    if reply is not None:
        print(json.dumps(reply), flush=True)
