// The web table of `ginbox serve` (docs/play.md). The game lives in the page's address
// (#rules=..&bot=..&seat=..&seed=..&moves=..): every click posts the game and its moves to the
// server, which replays them and answers with what to show (sim/table/web.py). Nothing here
// knows the rules: what is legal, the melds and the scores all come from the server.
"use strict";

let options = null;      // GET /api/options: the presets, policies, bots and players
let current = null;      // the state the server answered last (the browser tests read it)
let seenHands = null;    // hands finished when the last state was shown (null: none shown)
let showdowns = [];      // the finished hands' showdowns not yet closed, oldest first
let steps = [];          // the review's decisions, in order
let retrying = null;     // the mistake shown again, as an index into the mistakes

const $ = (id) => document.getElementById(id);
const SUITS = {S: ["\u2660", "spades", "#111"], H: ["\u2665", "hearts", "#c00"],
               D: ["\u2666", "diamonds", "#c00"], C: ["\u2663", "clubs", "#111"]};
const RANKS = {A: ["A", "ace"], T: ["10", "ten"], J: ["J", "jack"], Q: ["Q", "queen"],
               K: ["K", "king"], 2: ["2", "two"], 3: ["3", "three"], 4: ["4", "four"],
               5: ["5", "five"], 6: ["6", "six"], 7: ["7", "seven"], 8: ["8", "eight"],
               9: ["9", "nine"]};
const NS = "http://www.w3.org/2000/svg";

function cardName(card) { return RANKS[card[0]][1] + " of " + SUITS[card[1]][1]; }

function svgElement(tag, attributes) {
  const element = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attributes)) element.setAttribute(k, v);
  return element;
}

function svgCard(card) {  // a card face, or a back when card is null
  const svg = svgElement("svg", {viewBox: "0 0 60 86", "aria-hidden": "true"});
  svg.append(svgElement("rect", {x: 1, y: 1, width: 58, height: 84, rx: 6, class: "face",
                                 fill: card ? "#fff" : "#24458f", stroke: "#555"}));
  if (!card) {
    svg.append(svgElement("rect", {x: 6, y: 6, width: 48, height: 74, rx: 4, fill: "none",
                                   stroke: "#9db4e8", "stroke-dasharray": "3 3"}));
    return svg;
  }
  const [symbol, , colour] = SUITS[card[1]];
  const text = (x, y, size, content, anchor) => {
    const t = svgElement("text", {x: x, y: y, "font-size": size, fill: colour,
                                  "text-anchor": anchor, "font-family": "system-ui, sans-serif",
                                  "font-weight": 700});
    t.textContent = content;
    svg.append(t);
  };
  text(6, 20, 17, RANKS[card[0]][0], "start");
  text(6, 36, 15, symbol, "start");
  text(32, 64, 34, symbol, "middle");
  return svg;
}

function cardPicture(card) {  // a card to look at, not to click: an image named in words
  const holder = document.createElement("span");
  holder.setAttribute("role", "img");
  holder.setAttribute("aria-label", cardName(card));
  holder.append(svgCard(card));
  return holder;
}

// ------------------------------------------------------------------ the game and the server

function settings() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (!h.get("seed")) return null;
  return {game: {rules: h.get("rules"), policy: h.get("policy") || "captain",
                 bots: h.getAll("bot"), seat: Number(h.get("seat") || 0),
                 seed: Number(h.get("seed"))},
          moves: (h.get("moves") || "").split(",").filter((m) => m)};
}

function address(game, moves) {
  const h = new URLSearchParams();
  h.set("rules", game.rules);
  h.set("policy", game.policy);
  for (const b of game.bots) h.append("bot", b);
  h.set("seat", game.seat);
  h.set("seed", game.seed);
  h.set("moves", moves.join(","));
  return h.toString();
}

async function post(path, data) {
  const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                               body: JSON.stringify(data)});
  const answer = await r.json();
  if (!r.ok) throw new Error(answer.error);
  return answer;
}

function seatChoices() {
  const players = options.players[$("rules").value];
  $("policy-box").hidden = players !== 3;
  $("seat").innerHTML = "";
  for (let s = 0; s < players; s++) $("seat").add(new Option("seat " + s, s));
  $("bots").innerHTML = "";
  for (let b = 0; b < players - 1; b++) {
    const sel = document.createElement("select");
    sel.id = "bot" + b;
    sel.className = "bot";
    for (const name of options.bots) sel.add(new Option(name, name));
    sel.value = b === 0 ? "simple" : "tuned";
    const label = document.createElement("label");
    label.append("Bot " + (b + 1) + " ", sel);
    $("bots").append(label, " ");
  }
}

function newGame() {  // a new seed with the form's settings: the address change loads it
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const game = {rules: $("rules").value, policy: $("policy").value, seat: Number($("seat").value),
                bots: [...document.querySelectorAll(".bot")].map((s) => s.value), seed: seed};
  location.hash = address(game, []);
}

function choose(game) {  // the form shows the game's settings
  if (!options.presets.includes(game.rules)) return;
  $("rules").value = game.rules;
  seatChoices();
  $("policy").value = game.policy;
  $("seat").value = String(game.seat);
  game.bots.forEach((b, i) => {
    const sel = $("bot" + i);
    if (sel && options.bots.includes(b)) sel.value = b;
  });
}

async function load() {  // the game in the address, from its first state seen here
  const s = settings();
  $("error").textContent = "";
  seenHands = null;
  showdowns = [];
  if (!s) {
    $("table").hidden = true;
    $("setup-box").open = true;
    return;
  }
  choose(s.game);
  $("setup-box").open = false;  // the table takes the screen; the form folds away
  try { show(await post("/api/state", s)); } catch (e) { $("error").textContent = e.message; }
}

async function send(move) {
  $("error").textContent = "";
  if (!current || current.over || !current.legal.includes(move)) {
    $("error").textContent = notLegal(move);
    return;
  }
  try {
    const answer = await post("/api/move", {game: current.game, moves: current.moves, move: move});
    history.replaceState(null, "", "#" + address(answer.game, answer.moves));
    show(answer);
  } catch (e) { $("error").textContent = e.message; }
}

function notLegal(move) {
  if (!current || current.over) return "The game is over.";
  const word = {d: "Drawing from the stock", p: "Taking the pile's top card", pass: "Passing"};
  const what = word[move] || ((move[0] === "k" ? "Knocking with the " : "Discarding the ") +
                               cardName(move.slice(2)));
  return what + " is not a legal move now: " + current.prompt.toLowerCase() + ".";
}

async function hint() {
  $("hints").textContent = "thinking...";
  try {
    const answer = await post("/api/hint", {game: current.game, moves: current.moves});
    $("hints").textContent = "Chance of winning the game: " + answer.hints.map(
      (h) => h.move + " " + (100 * h.value).toFixed(1) + "%").join(", ");
    for (const h of answer.hints) {  // on the options themselves
      const target = h.move === "d" ? $("draw") : h.move === "p" ? $("take") :
        h.move === "pass" ? $("pass") :
          document.querySelector('#hand .card[data-card="' + h.move.slice(2) + '"]');
      if (!target) continue;
      const badge = document.createElement("span");
      badge.className = "hint";
      badge.textContent = (100 * h.value).toFixed(0) + "%";
      target.append(badge);
    }
  } catch (e) {
    $("hints").textContent = "";
    $("error").textContent = e.message;
  }
}

// --------------------------------------------------------------------------- the table

function show(s) {  // everything the state says, in the panel it belongs to
  current = s;
  $("table").hidden = false;
  $("learn").hidden = true;
  $("report").hidden = true;
  retrying = null;
  if (seenHands !== null) {  // every hand finished since the last state, in order
    showdowns.push(...s.events.filter((e) => e.kind === "showdown" && e.hand > seenHands));
  }
  seenHands = s.hands_logged;
  showSeats(s);
  $("hints").textContent = "";
  if (s.over) showOver(s); else showPlay(s);
  showPanel();
}

function showPanel() {  // a showdown first, until closed; then the game over or the felt
  const waiting = showdowns.length > 0;
  // while a hand's showdown is open, nothing of the hands after it shows
  const told = waiting ? current.events.indexOf(showdowns[0]) + 1 : current.events.length;
  $("events").textContent = current.events.slice(0, told).map((e) => e.text).join("\n");
  $("events").scrollTop = $("events").scrollHeight;
  $("scores").hidden = waiting;
  $("showdown").hidden = !waiting;
  $("felt").hidden = waiting || current.over;
  $("over").hidden = waiting || !current.over;
  if (waiting) {
    drawShowdown(showdowns[0]);
    $("showdown").scrollIntoView({block: "start"});
    $("next-hand").focus({preventScroll: true});
  }
}

function closeShowdown() {
  showdowns.shift();
  showPanel();
  if (showdowns.length) return;
  const first = current.over ? $("new-game") :
    document.querySelector("#hand .card.playable, .middle button:enabled, #pass:enabled");
  if (first) first.focus();
}

function seatBox(seat, s) {
  const box = document.createElement("div");
  box.className = "seat";
  box.id = "seatbox-" + seat.seat;
  const who = seat.you ? "You (seat " + seat.seat + ")" : "Seat " + seat.seat + ": " + seat.level;
  const title = document.createElement("div");
  title.textContent = who + (seat.role ? ", " + seat.role : "") + " - " + seat.score + " of " +
    s.target;
  box.append(title);
  if (!seat.you && seat.cards > 0) {
    const backs = document.createElement("span");
    backs.className = "backs";
    backs.setAttribute("role", "img");
    backs.setAttribute("aria-label", seat.cards + " cards");
    for (let i = 0; i < seat.cards; i++) backs.append(svgCard(null));
    const howMany = document.createElement("span");
    howMany.className = "count";
    howMany.textContent = seat.cards + " cards";
    howMany.setAttribute("aria-hidden", "true");
    box.append(backs, howMany);
  } else if (!seat.you && seat.role === "sitter") {
    box.append(" (sits out this hand" + (s.advice === "advisor" ? ", decides for the captain" :
      s.advice === "consensus" ? ", advises the captain" : "") + ")");
  }
  return box;
}

function showSeats(s) {
  $("seatboxes").innerHTML = "";
  for (const seat of s.seats) $("seatboxes").append(seatBox(seat, s));
  if (!s.over) $("seatbox-" + s.game.seat).classList.add("turn");  // the bots have played
  $("seats").innerHTML = "";
  for (const seat of s.seats) {
    const row = $("seats").insertRow();
    row.id = "seat-" + seat.seat;
    row.insertCell().textContent = "seat " + seat.seat + (seat.you ? " (you)" : " " + seat.name);
    row.insertCell().textContent = seat.role;
    row.insertCell().textContent = seat.score;
  }
}

function cardButton(c, s) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "card";
  b.dataset.card = c.card;
  const playable = s.discards.includes(c.card) || s.knocks.includes(c.card);
  b.classList.toggle("playable", playable);
  b.disabled = !playable;  // a card is a control only when discarding it is legal
  b.setAttribute("aria-label", cardName(c.card) + (c.melded ? ", in a meld" : ""));
  b.append(svgCard(c.card));
  b.onclick = () => send(($("knock").checked && s.knocks.includes(c.card) ? "k " : "x ") + c.card);
  return b;
}

function showPlay(s) {  // the felt: the stock and pile, the prompt, the hand, the controls
  $("draw").replaceChildren(svgCard(null));
  const stockLabel = document.createElement("span");
  stockLabel.className = "label";
  stockLabel.textContent = "stock " + s.stock;
  $("draw").append(stockLabel);
  $("draw").setAttribute("aria-label", "draw from the stock, " + s.stock + " cards");
  $("take").replaceChildren();
  $("take").hidden = !s.top;
  if (s.top) {
    const pileLabel = document.createElement("span");
    pileLabel.className = "label";
    pileLabel.textContent = "pile " + s.pile;
    $("take").append(svgCard(s.top), pileLabel);
    $("take").setAttribute("aria-label", "take the pile's top card, the " + cardName(s.top));
  }
  // every control that is not a legal move now is disabled
  $("draw").disabled = !s.can_draw;
  $("take").disabled = !s.can_take;
  $("pass").disabled = !s.can_pass;
  $("knock").disabled = s.knocks.length === 0;
  if (s.knocks.length === 0) $("knock").checked = false;
  $("hint").disabled = false;
  $("prompt").textContent = "Your turn: " + s.prompt + (s.for_seat !== null ?
    " (you decide for the captain, seat " + s.for_seat + ")" : "");
  $("info").textContent = "Hand " + s.hand_number + ". Knock at " + s.knock_limit +
    " or less. Opponent took " + (s.opponent_took.join(" ") || "-") + ", threw " +
    (s.opponent_threw.join(" ") || "-") + (s.drawn ? ". You drew " + s.drawn : "") + ".";
  $("suggestion").textContent = s.suggestion || "";
  $("deadwood").textContent = "Deadwood " + s.deadwood;
  $("hand").innerHTML = "";
  let group = null, box = null;
  for (const c of s.hand) {
    if (box === null || c.group !== group) {
      box = document.createElement("span");
      box.className = "meld" + (c.melded ? "" : " loose");
      $("hand").append(box);
    }
    group = c.group;
    box.append(cardButton(c, s));
  }
}

function seatName(s, seat) {
  const entry = s.seats[seat];
  return entry.you ? "you" : "seat " + seat + " (" + entry.level + ")";
}

function showOver(s) {  // the result, the final scores, a new game, the review
  const you = s.game.seat;
  const ranked = s.final_scores.map((v, seat) => [seat, v]).sort((a, b) => b[1] - a[1]);
  $("result").textContent = "Game over: " + (s.winner === you ? "you win, " :
    seatName(s, s.winner) + " wins, ") + ranked.map(([, v]) => v).join(" to ") + ".";
  $("final-scores").innerHTML = "";
  for (const [seat, v] of ranked) {
    const row = $("final-scores").insertRow();
    row.insertCell().textContent = seatName(s, seat);
    row.insertCell().textContent = v + (seat === s.winner ? " (winner)" : "");
  }
  $("download").href = "/api/log?" + address(s.game, s.moves);
}

// --------------------------------------------------------------------------- the showdown

function cardGroup(cards, className, tag) {  // cards side by side, with a word under them
  const group = document.createElement("span");
  group.className = "group";
  const row = document.createElement("span");
  row.className = "meld " + className;
  for (const c of cards) row.append(cardPicture(c));
  group.append(row);
  if (tag) {
    const word = document.createElement("span");
    word.className = "tag";
    word.textContent = tag;
    group.append(word);
  }
  return group;
}

function drawShowdown(event) {
  const sd = event.cards;
  const later = showdowns.length > 1;
  $("next-hand").textContent = later ? "Next showdown" : current.over ? "See the result" :
    "Next hand";
  $("showdown-hands").innerHTML = "";
  $("showdown-notes").innerHTML = "";
  const [first, second] = sd.players;
  const who = (seat) => seatName(current, seat);
  const verb = (seat, word) => current.seats[seat].you ? word : word === "go" ? "goes" :
    word + "s";
  const scoring = sd.winner !== null ? " and " + verb(sd.winner, "score") + " " + sd.points : "";
  const headline = {knock: who(first.seat) + " " + verb(first.seat, "knock") + scoring,
                    gin: who(first.seat) + " " + verb(first.seat, "go") + " gin" + scoring,
                    undercut: who(second.seat) + " " + verb(second.seat, "undercut") +
                      " the knock" + scoring,
                    draw: "a draw, at the wall", turn_limit: "a draw, at the turn limit"};
  $("showdown-title").textContent = "Hand " + sd.hand + ": " + (headline[sd.end] || sd.end);
  for (const p of sd.players) {
    const part = document.createElement("div");
    part.className = "sd-player";
    const head = document.createElement("h3");
    const name = who(p.seat);
    head.textContent = name[0].toUpperCase() + name.slice(1) + ", the " + p.role +
      (p.knocker ? ", knocked" : "") + (p.deadwood !== null ? ": deadwood " + p.deadwood : "");
    const cards = document.createElement("div");
    cards.className = "sd-cards";
    for (const meld of p.melds) cards.append(cardGroup(meld, "", "meld"));
    if (p.layoffs.length) cards.append(cardGroup(p.layoffs, "layoff", "laid off"));
    if (p.deadwood_cards.length) {
      cards.append(cardGroup(p.deadwood_cards, "deadwood",
                             p.deadwood !== null ? "deadwood " + p.deadwood : "loose"));
    }
    part.append(head, cards);
    $("showdown-hands").append(part);
  }
  if (sd.sitter !== null) {
    const sat = document.createElement("p");
    sat.textContent = seatName(current, sd.sitter)[0].toUpperCase() +
      seatName(current, sd.sitter).slice(1) + " sat out.";
    $("showdown-hands").append(sat);
  }
  for (const line of sd.notes) {
    const p = document.createElement("p");
    p.textContent = line;
    $("showdown-notes").append(p);
  }
}

// ----------------------------------------------------------------------------- the review

function count(n, word) {
  return n + " " + (n === 1 ? word : word === "inaccuracy" ? "inaccuracies" : word + "s");
}

function pct(v) { return (100 * v).toFixed(1) + "%"; }

function didText(m, st) {  // a move as the person played it
  const named = {pass: "passed", draw_discard: "took the " + (st.top ? cardName(st.top) :
    "pile's top card"), draw_stock: "drew from the stock", knock: "knocked",
                 no_knock: "played on"};
  return named[m] || "discarded the " + cardName(m);
}

function toDoText(m, st) {  // a move as an option: "to draw from the stock"
  const named = {pass: "to pass", draw_discard: "to take the " + (st.top ? cardName(st.top) :
    "pile's top card"), draw_stock: "to draw from the stock", knock: "to knock",
                 no_knock: "to play on"};
  return named[m] || "to discard the " + cardName(m);
}

const LABEL_WORDS = {best: "the best move", good: "close to the best",
                     inaccuracy: "an inaccuracy", mistake: "a mistake", blunder: "a blunder",
                     equal: "every move was as good", forced: "the only legal move"};

function situation(st) {  // where a decision was: the hand, the pile and the scores
  const [mine, theirs, sitter] = st.score.split("-");
  return "Hand " + st.hand + (st.top ? ", the " + cardName(st.top) + " on the pile" : "") +
    ", scores: you " + mine + ", your opponent " + theirs +
    (sitter !== undefined ? ", the sitter " + sitter : "");
}

function verdict(st) {  // what was played against the best, in one sentence
  const played = "you " + didText(st.played, st) + " (" + pct(st.value_played) +
    " to win the game), " + LABEL_WORDS[st.label];
  if (st.played === st.best || !st.counted) return played + ".";
  return played + "; the best was " + toDoText(st.best, st) + " (" + pct(st.value_best) + ").";
}

async function review() {
  $("figures").textContent = "reviewing...";
  $("learn").hidden = false;
  try {
    const answer = await post("/api/review", {game: current.game, moves: current.moves});
    $("report").innerHTML = answer.report_html;  // rendered with raw HTML escaped
    steps = answer.steps;
    const f = answer.figures;
    const uncounted = steps.length - f.decisions;
    $("figures").textContent = count(steps.length, "decision") + (uncounted ?
      ", " + f.decisions + " of them with a real choice (in " + uncounted +
      " every move was as good or forced)" : "") + ": accuracy " + f.accuracy + "%, error rate " +
      f.error_rate + " (the judge's loss per 1000 decisions); " + count(f.blunder, "blunder") +
      ", " + count(f.mistake, "mistake") + ", " + count(f.inaccuracy, "inaccuracy") + ".";
    drawGraph();
    $("steps").innerHTML = "";
    steps.forEach((st, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "step " + st.label;
      b.textContent = i + 1;
      b.setAttribute("aria-label", "decision " + (i + 1) + ", hand " + st.hand + ", " +
                     LABEL_WORDS[st.label]);
      b.onclick = () => showStep(i, false);
      $("steps").append(b);
    });
    if (steps.length) showStep(0, false);
  } catch (e) {
    $("figures").textContent = "";
    $("error").textContent = e.message;
  }
}

function drawGraph() {  // the judge's chance of winning after each decision, with its axes
  const g = $("graph");
  g.innerHTML = "";
  if (!steps.length) return;
  const width = Math.max(g.clientWidth, 300), height = 220;
  const left = 58, right = 12, top = 12, bottom = 40;
  g.setAttribute("viewBox", "0 0 " + width + " " + height);
  const x = (i) => left + (width - left - right) *
    (steps.length === 1 ? 0.5 : i / (steps.length - 1));
  const y = (v) => top + (height - top - bottom) * (1 - v);
  const label = (px, py, text, anchor, extra) => {
    const t = svgElement("text", {x: px, y: py, "text-anchor": anchor, ...extra});
    t.textContent = text;
    g.append(t);
  };
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {  // the win-chance axis
    g.append(svgElement("line", {x1: left, x2: width - right, y1: y(v), y2: y(v),
                                 stroke: v === 0.5 ? "#999" : "#e2e2e2",
                                 "stroke-dasharray": v === 0.5 ? "4 4" : ""}));
    label(left - 6, y(v) + 4, (100 * v) + "%", "end", {});
  }
  const middle = top + (height - top - bottom) / 2;
  label(14, middle, "win chance", "middle", {transform: "rotate(-90 14 " + middle + ")"});
  const every = Math.max(1, Math.ceil(steps.length / Math.max(2, Math.floor(width / 60))));
  for (let i = 0; i < steps.length; i += every) {  // the decision axis, numbered from 1
    g.append(svgElement("line", {x1: x(i), x2: x(i), y1: height - bottom, y2: height - bottom + 4,
                                 stroke: "#666"}));
    label(x(i), height - bottom + 16, String(i + 1), "middle", {});
  }
  g.append(svgElement("line", {x1: left, x2: width - right, y1: height - bottom,
                               y2: height - bottom, stroke: "#666"}));
  label(left + (width - left - right) / 2, height - 4, "decision", "middle", {});
  g.append(svgElement("polyline", {
    points: steps.map((st, i) => x(i) + "," + y(st.value_played)).join(" "),
    fill: "none", stroke: "#1f5f3a", "stroke-width": 2}));
  const marked = {blunder: "#d00", mistake: "#e80", inaccuracy: "#cb0"};
  steps.forEach((st, i) => {
    const dot = svgElement("circle", {cx: x(i), cy: y(st.value_played),
                                      r: st.label in marked ? 5 : 3,
                                      fill: marked[st.label] || "#1f5f3a", class: "point"});
    dot.onclick = () => showStep(i, false);
    g.append(dot);
  });
}

function showStep(i, hide) {
  const st = steps[i];
  document.querySelectorAll(".step").forEach((b, k) => b.classList.toggle("current", k === i));
  const p = $("position");
  p.innerHTML = "";
  const head = document.createElement("p");
  head.textContent = "Decision " + (i + 1) + " of " + steps.length + ": " +
    situation(st)[0].toLowerCase() + situation(st).slice(1) + ".";
  const cards = document.createElement("div");
  cards.className = "cards";
  for (const c of st.cards) cards.append(cardPicture(c));
  p.append(head, cards);
  if (hide) {  // retry: the options first, the answer after a choice
    const ask = document.createElement("p");
    ask.textContent = "Your move?";
    p.append(ask);
    for (const m of Object.keys(st.values)) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "option";
      b.textContent = toDoText(m, st).slice(3);
      b.dataset.move = m;
      b.onclick = () => reveal(st, m);
      p.append(b, " ");
    }
    return;
  }
  reveal(st, null);
}

function reveal(st, tried) {
  const out = document.createElement("p");
  out.className = "verdict";
  const text = (tried ? "you chose " + toDoText(tried, st).slice(3) + " (" +
    pct(st.values[tried]) + "); in the game " : "") + verdict(st);
  out.textContent = text[0].toUpperCase() + text.slice(1);
  $("position").append(out);
  if (retrying !== null) {
    const next = document.createElement("button");
    next.type = "button";
    next.id = "retry-next";
    next.textContent = "Next mistake";
    next.onclick = () => retry();
    $("position").append(next);
  }
}

function retry() {  // each mistake again, to find the better move before it is shown
  const mistakes = steps.map((st, i) => [st, i]).filter(([st]) =>
    st.label === "mistake" || st.label === "blunder" || st.label === "inaccuracy");
  if (!mistakes.length) {
    $("position").textContent = "No mistakes to retry.";
    return;
  }
  retrying = retrying === null ? 0 : (retrying + 1) % mistakes.length;
  showStep(mistakes[retrying][1], true);
}

// ------------------------------------------------------------------------------ start

async function start() {
  $("setup").onsubmit = (e) => { e.preventDefault(); newGame(); };
  $("draw").onclick = () => send("d");
  $("take").onclick = () => send("p");
  $("pass").onclick = () => send("pass");
  $("hint").onclick = hint;
  $("next-hand").onclick = closeShowdown;
  $("new-game").onclick = newGame;
  $("review").onclick = review;
  $("retry").onclick = retry;
  $("raw").onclick = () => { $("report").hidden = !$("report").hidden; };
  options = await (await fetch("/api/options")).json();
  for (const p of options.presets) $("rules").add(new Option(p, p));
  for (const p of options.policies) $("policy").add(new Option(p, p));
  $("rules").onchange = seatChoices;
  seatChoices();
  window.onhashchange = load;
  load();
}

start();
