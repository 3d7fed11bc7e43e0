#!/usr/bin/env node
// A ginbox outside player for Node.js (protocol "ginbox-agent 1", docs/outside-players.md).
//
//   ginbox play --strategies agent:examples/agent.js,simple --rules eaai
//
// It keeps its own cards from the events, takes the upcard or the discard when it pairs with
// a card it holds, knocks whenever it may and discards its highest card that pairs with
// nothing. It answers only the hello, the decisions, a showdown and the end of each hand.
"use strict";
const readline = require("readline");

const RANKS = "A23456789TJQK";
const value = (card) => Math.min(RANKS.indexOf(card[0]) + 1, 10);
const pairs = (card, cards) =>
  cards.some((c) => c !== card && (c[0] === card[0] ||
    (c[1] === card[1] && Math.abs(RANKS.indexOf(c[0]) - RANKS.indexOf(card[0])) === 1)));

function answer(m) {
  switch (m.type) {
    case "hello":
      return { type: "hello", protocol: "ginbox-agent 1", name: "node-example" };
    case "hand_end":
      return { type: "ready" };
    case "showdown": // the defender of a knock: ginbox lays out its melds by itself
      // (a program may declare its own, as "melds": the other players are told them)
      return { type: "layout", id: m.id };
    case "decision":
      return { type: "move", id: m.id, move: decide(m) };
    default:
      return null; // an event: nothing to say
  }
}

function decide(m) {
  const legal = m.legal;
  if (m.decision === "offer" || m.decision === "draw") {
    if (m.top && legal.includes("draw_discard") && pairs(m.top, m.cards)) return "draw_discard";
    return m.decision === "offer" ? "pass" : "draw_stock";
  }
  if (m.decision === "knock") return "knock";
  const loose = legal.filter((c) => !pairs(c, m.cards));
  const pool = loose.length ? loose : legal;
  return pool.reduce((best, c) => (value(c) > value(best) ? c : best));
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "bye") process.exit(0);
  const reply = answer(message);
  if (reply !== null) process.stdout.write(JSON.stringify(reply) + "\n");
});
