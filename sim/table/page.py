"""The web table's one page: plain HTML, CSS and JavaScript, no build step and no outside files.

The page keeps the game in its address (``#rules=eaai&bots=simple&seat=0&seed=..&moves=..``),
so a reload, a bookmark or a server restart resumes it; every click posts the game and its
moves to the server, which replays them and answers with what to show (:mod:`sim.table.web`).

What a card player sees: the cards drawn as cards (SVG made by the page, no image files), the
hand in its melds (a loose card is never shaded as melded) and A 2 .. 9 10 J Q K within a suit,
the stock and the pile as cards to click, every opponent's hand as card backs with its count,
the seats with their roles and scores toward the target, whose turn it is, and at each hand's
end a showdown (the melds, the layoffs and the points) with a button to the next hand. Every
card is a real ``<button>`` named in words ("nine of hearts"), so the game is played from the
keyboard (Tab and Enter) and read by a screen reader; a click that is not a legal move says
why instead of doing nothing. On a phone the table fits the width (no sideways scroll) and
every target is at least 44 px.
"""

PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ginbox table</title>
<style>
:root { --felt: #1f5f3a; --ink: #1b1b1b; }
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; color: var(--ink); background: #eef1ec; }
header, main { max-width: 64em; margin: 0 auto; padding: .6em 1em; }
h1 { font-size: 1.3em; margin: .2em 0; }
form#setup { display: flex; flex-wrap: wrap; gap: .4em .8em; align-items: center; }
select, button { font: inherit; min-height: 44px; }
#error { color: #a00; min-height: 1.4em; font-weight: 600; }
#felt { background: var(--felt); color: #fff; border-radius: 1em; padding: .8em; }
.seats { display: flex; flex-wrap: wrap; gap: .6em; }
.seat { background: rgba(255,255,255,.1); border-radius: .6em; padding: .4em .6em; min-width: 9em; }
.seat.turn { outline: 3px solid #ffd54a; }
.seat .backs { display: flex; margin-top: .3em; }
.seat .backs svg { width: 22px; height: 31px; margin-right: -12px; }
.middle { display: flex; gap: 1em; align-items: center; margin: .8em 0; flex-wrap: wrap; }
.pilecard { background: none; border: 0; padding: 0; cursor: pointer; position: relative;
            color: #fff; }
.pilecard:disabled { cursor: default; }
.pilecard .label { display: block; font-size: .8em; text-align: center; }
#prompt { font-weight: 600; font-size: 1.05em; }
#hand { display: flex; flex-wrap: wrap; gap: .35em; align-items: flex-end; margin: .5em 0; }
.meld { display: flex; flex-wrap: wrap; gap: 2px; padding: 3px; border-radius: .5em;
        background: #cfe8d2; }
.meld.loose { background: transparent; }
.card { border: 0; padding: 0; background: none; cursor: pointer; position: relative;
        min-width: 44px; min-height: 44px; }
.card svg, .pilecard svg { width: 60px; height: 86px; display: block; }
.card:focus-visible svg, .pilecard:focus-visible svg { outline: 3px solid #ffd54a;
                                                       border-radius: 6px; }
.card.playable svg rect.face { stroke: #222; }
.hint { position: absolute; top: -1.1em; left: 0; right: 0; text-align: center; font-size: .75em;
        background: #ffd54a; color: #000; border-radius: .3em; }
.actions { display: flex; flex-wrap: wrap; gap: .5em; align-items: center; }
.actions label { display: flex; align-items: center; gap: .3em; min-height: 44px; }
#showdown { background: #fffbe6; color: #000; border-radius: .8em; padding: .8em; margin: .8em 0; }
#showdown pre { white-space: pre-wrap; font: .95em/1.4 ui-monospace, monospace; }
#events { font: .85em/1.35 ui-monospace, monospace; white-space: pre-wrap; max-height: 16em;
          overflow-y: auto; background: #fff; padding: .5em; border-radius: .4em; }
#graph { width: 100%; height: 160px; background: #fff; border-radius: .4em; }
.steps { display: flex; flex-wrap: wrap; gap: 4px; margin: .5em 0; }
.step { min-width: 44px; min-height: 44px; border-radius: .4em; border: 1px solid #999;
        background: #fff; }
.step.inaccuracy { background: #fff3b0; } .step.mistake { background: #ffc98a; }
.step.blunder { background: #ff9a9a; } .step.current { outline: 3px solid #1f5f3a; }
#position .cards { display: flex; flex-wrap: wrap; gap: 2px; }
#position .cards svg { width: 44px; height: 63px; }
#report { font-size: .9em; overflow-x: auto; }
#report table { border-collapse: collapse; margin: .5em 0; }
#report th, #report td { border: 1px solid #ccc; padding: .1em .5em; text-align: right; }
@media (max-width: 600px) {
  header, main { padding: .4em .5em; }
  .card svg, .pilecard svg { width: 44px; height: 63px; }
  .seat { min-width: 0; flex: 1 1 40%; }
}
</style></head>
<body>
<header>
<h1>ginbox table</h1>
<form id="setup" onsubmit="newGame(); return false;">
  <label>Rules <select id="rules"></select></label>
  <label id="policy-box">Team policy <select id="policy"></select></label>
  <label>Your seat <select id="seat"></select></label>
  <span id="bots"></span>
  <button id="new" type="submit">New table</button>
</form>
</header>
<main>
<div id="error" role="alert" aria-live="assertive"></div>
<div id="table" hidden>
  <div id="felt">
    <div class="seats" id="seatboxes"></div>
    <div class="middle">
      <button id="draw" class="pilecard" onclick="send('d')"></button>
      <button id="take" class="pilecard" onclick="send('p')"></button>
      <div><div id="prompt" aria-live="polite"></div><div id="info"></div>
           <div id="suggestion"></div></div>
    </div>
    <div id="hand" aria-label="your hand"></div>
    <div class="actions">
      <button id="pass" onclick="send('pass')">Pass</button>
      <label><input type="checkbox" id="knock"> Knock with the card I discard</label>
      <button id="hint" onclick="hint()">Hint</button>
      <span id="deadwood"></span>
    </div>
    <div id="hints"></div>
  </div>
  <section id="showdown" hidden aria-live="polite">
    <h2 id="showdown-title">Showdown</h2>
    <pre id="showdown-text"></pre>
    <button id="next-hand" onclick="closeShowdown()">Next hand</button>
  </section>
  <table class="seats-table"><tbody id="seats"></tbody></table>
  <div id="over" hidden>
    <p id="result"></p>
    <button id="review" onclick="review()">Review my decisions</button>
    <a id="download" download>Download the hand log</a>
    <section id="learn" hidden>
      <h2>Your game, decision by decision</h2>
      <p id="figures"></p>
      <svg id="graph" viewBox="0 0 600 160" role="img" preserveAspectRatio="none"
           aria-label="your chance of winning the game after each decision"></svg>
      <div id="steps" class="steps"></div>
      <div id="position" aria-live="polite"></div>
      <p><button id="retry" onclick="retry()">Retry your mistakes</button>
         <button id="raw" onclick="$('report').hidden = !$('report').hidden">
           The full report</button></p>
    </section>
    <div id="report" hidden></div>
  </div>
  <details open><summary>At the table</summary><div id="events"></div></details>
</div>
</main>
<script>
let options = null, current = null, seenHands = null;
const $ = (id) => document.getElementById(id);
const SUITS = {S: ["\u2660", "spades", "#111"], H: ["\u2665", "hearts", "#c00"],
               D: ["\u2666", "diamonds", "#c00"], C: ["\u2663", "clubs", "#111"]};
const RANKS = {A: ["A", "ace"], T: ["10", "ten"], J: ["J", "jack"], Q: ["Q", "queen"],
               K: ["K", "king"], 2: ["2", "two"], 3: ["3", "three"], 4: ["4", "four"],
               5: ["5", "five"], 6: ["6", "six"], 7: ["7", "seven"], 8: ["8", "eight"],
               9: ["9", "nine"]};
const NS = "http://www.w3.org/2000/svg";

function cardName(card) { return RANKS[card[0]][1] + " of " + SUITS[card[1]][1]; }

function svgCard(card) {  // a card face, or a back when card is null
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 60 86"); svg.setAttribute("aria-hidden", "true");
  const rect = document.createElementNS(NS, "rect");
  Object.entries({x: 1, y: 1, width: 58, height: 84, rx: 6, class: "face",
                  fill: card ? "#fff" : "#24458f", stroke: "#555"}).forEach(
    ([k, v]) => rect.setAttribute(k, v));
  svg.append(rect);
  if (!card) {
    const inner = document.createElementNS(NS, "rect");
    Object.entries({x: 6, y: 6, width: 48, height: 74, rx: 4, fill: "none",
                    stroke: "#9db4e8", "stroke-dasharray": "3 3"}).forEach(
      ([k, v]) => inner.setAttribute(k, v));
    svg.append(inner);
    return svg;
  }
  const [symbol, , colour] = SUITS[card[1]];
  const text = (x, y, size, content, anchor) => {
    const t = document.createElementNS(NS, "text");
    Object.entries({x: x, y: y, "font-size": size, fill: colour, "text-anchor": anchor,
                    "font-family": "system-ui, sans-serif", "font-weight": 700}).forEach(
      ([k, v]) => t.setAttribute(k, v));
    t.textContent = content; svg.append(t);
  };
  text(6, 20, 17, RANKS[card[0]][0], "start");
  text(6, 36, 15, symbol, "start");
  text(32, 64, 34, symbol, "middle");
  return svg;
}

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
  h.set("rules", game.rules); h.set("policy", game.policy);
  for (const b of game.bots) h.append("bot", b);
  h.set("seat", game.seat); h.set("seed", game.seed); h.set("moves", moves.join(","));
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
    sel.id = "bot" + b; sel.className = "bot"; sel.setAttribute("aria-label", "bot " + (b + 1));
    for (const name of options.bots) sel.add(new Option(name, name));
    sel.value = b === 0 ? "simple" : "tuned";
    const label = document.createElement("label");
    label.append("Bot " + (b + 1) + " ", sel);
    $("bots").append(label, " ");
  }
}

async function newGame() {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const game = {rules: $("rules").value, policy: $("policy").value, seat: Number($("seat").value),
                bots: [...document.querySelectorAll(".bot")].map((s) => s.value), seed: seed};
  seenHands = null;
  location.hash = address(game, []);
}

function choose(game) {
  if (!options.presets.includes(game.rules)) return;
  $("rules").value = game.rules; seatChoices();
  $("policy").value = game.policy; $("seat").value = String(game.seat);
  game.bots.forEach((b, i) => {
    const sel = $("bot" + i);
    if (sel && options.bots.includes(b)) sel.value = b;
  });
}

async function load() {
  const s = settings();
  $("error").textContent = "";
  if (!s) { $("table").hidden = true; return; }
  choose(s.game);
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
  const what = word[move] || ((move[0] === "k" ? "Knocking with " : "Discarding the ") +
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
      badge.className = "hint"; badge.textContent = (100 * h.value).toFixed(0) + "%";
      target.append(badge);
    }
  } catch (e) { $("hints").textContent = ""; $("error").textContent = e.message; }
}

let steps = [], retrying = null;
function count(n, word) {
  return n + " " + (n === 1 ? word : word === "inaccuracy" ? "inaccuracies" : word + "s");
}
const MOVE_WORDS = {pass: "pass", draw_discard: "take the pile's top card",
                    draw_stock: "draw from the stock", knock: "knock", no_knock: "play on"};
function moveText(m) { return MOVE_WORDS[m] || (m.length === 2 ? "discard the " + cardName(m) :
                                                 m); }

async function review() {
  $("figures").textContent = "reviewing...";
  $("learn").hidden = false;
  try {
    const answer = await post("/api/review", {game: current.game, moves: current.moves});
    $("report").innerHTML = answer.report_html;  // rendered with raw HTML escaped
    steps = answer.steps;
    const f = answer.figures;
    $("figures").textContent = "Accuracy " + f.accuracy + "% over " + f.decisions +
      " decisions; error rate " + f.error_rate + " (the judge's loss, per 1000); " +
      count(f.blunder, "blunder") + ", " + count(f.mistake, "mistake") + ", " +
      count(f.inaccuracy, "inaccuracy") + ".";
    drawGraph();
    $("steps").innerHTML = "";
    steps.forEach((st, i) => {
      const b = document.createElement("button");
      b.className = "step " + st.label; b.textContent = i + 1;
      b.setAttribute("aria-label", "decision " + (i + 1) + ", hand " + st.hand + ", " + st.label);
      b.onclick = () => showStep(i, false);
      $("steps").append(b);
    });
    if (steps.length) showStep(0, false);
  } catch (e) { $("figures").textContent = ""; $("error").textContent = e.message; }
}

function drawGraph() {  // the judge's chance of winning after each of your decisions
  const g = $("graph"); g.innerHTML = "";
  if (!steps.length) return;
  const x = (i) => 10 + 580 * (steps.length === 1 ? 0.5 : i / (steps.length - 1));
  const y = (v) => 150 - 140 * v;
  const half = document.createElementNS(NS, "line");
  Object.entries({x1: 0, x2: 600, y1: y(0.5), y2: y(0.5), stroke: "#bbb",
                  "stroke-dasharray": "4 4"}).forEach(([k, v]) => half.setAttribute(k, v));
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", steps.map((st, i) => x(i) + "," + y(st.value_played)).join(" "));
  Object.entries({fill: "none", stroke: "#1f5f3a", "stroke-width": 2}).forEach(
    ([k, v]) => line.setAttribute(k, v));
  g.append(half, line);
  steps.forEach((st, i) => {
    const dot = document.createElementNS(NS, "circle");
    const colour = {blunder: "#d00", mistake: "#e80", inaccuracy: "#cb0"}[st.label] || "#1f5f3a";
    Object.entries({cx: x(i), cy: y(st.value_played), r: st.label in {blunder: 1, mistake: 1,
                    inaccuracy: 1} ? 5 : 3, fill: colour, class: "point"}).forEach(
      ([k, v]) => dot.setAttribute(k, v));
    dot.onclick = () => showStep(i, false);
    g.append(dot);
  });
}

function showStep(i, hide) {
  const st = steps[i];
  document.querySelectorAll(".step").forEach((b, k) => b.classList.toggle("current", k === i));
  const p = $("position"); p.innerHTML = "";
  const head = document.createElement("p");
  head.textContent = "Hand " + st.hand + ", score " + st.score + ": " + st.kind +
    (st.top ? ", the pile's top card the " + cardName(st.top) : "") + ".";
  const cards = document.createElement("div"); cards.className = "cards";
  for (const c of st.cards) {
    const holder = document.createElement("span");
    holder.setAttribute("role", "img"); holder.setAttribute("aria-label", cardName(c));
    holder.append(svgCard(c)); cards.append(holder);
  }
  p.append(head, cards);
  if (hide) {  // retry: the options first, the answer after a choice
    const ask = document.createElement("p"); ask.textContent = "Your move?";
    p.append(ask);
    for (const m of Object.keys(st.values)) {
      const b = document.createElement("button"); b.className = "option";
      b.textContent = moveText(m); b.dataset.move = m;
      b.onclick = () => { reveal(st, m); };
      p.append(b, " ");
    }
    return;
  }
  reveal(st, null);
}

function reveal(st, tried) {
  const out = document.createElement("p"); out.className = "verdict";
  const pct = (v) => (100 * v).toFixed(1) + "%";
  out.textContent = (tried ? "You chose " + moveText(tried) + " (" + pct(st.values[tried]) +
    "). " : "") + "In the game you played " + moveText(st.played) + " (" +
    pct(st.value_played) + ", " + st.label + "); the best was " + moveText(st.best) + " (" +
    pct(st.value_best) + ").";
  $("position").append(out);
  if (retrying !== null) {
    const next = document.createElement("button"); next.id = "retry-next";
    next.textContent = "Next mistake"; next.onclick = () => retry();
    $("position").append(next);
  }
}

function retry() {  // each mistake again, to find the better move before it is shown
  const mistakes = steps.map((st, i) => [st, i]).filter(([st]) =>
    st.label === "mistake" || st.label === "blunder" || st.label === "inaccuracy");
  if (!mistakes.length) { $("position").textContent = "No mistakes to retry."; return; }
  retrying = retrying === null ? 0 : (retrying + 1) % mistakes.length;
  showStep(mistakes[retrying][1], true);
}

function cardButton(c, s) {
  const b = document.createElement("button");
  b.className = "card"; b.dataset.card = c.card;
  const playable = s.discards.includes(c.card) || s.knocks.includes(c.card);
  if (playable) b.classList.add("playable");
  b.setAttribute("aria-label", cardName(c.card) + (c.melded ? ", in a meld" : ""));
  b.append(svgCard(c.card));
  b.onclick = () => send(($("knock").checked && s.knocks.includes(c.card) ? "k " : "x ") + c.card);
  return b;
}

function seatBox(seat, s) {
  const box = document.createElement("div");
  box.className = "seat"; box.id = "seatbox-" + seat.seat;
  const who = seat.you ? "You (seat " + seat.seat + ")" : "Seat " + seat.seat + ": " + seat.level;
  box.innerHTML = "";
  const title = document.createElement("div");
  title.textContent = who + (seat.role ? ", " + seat.role : "") + " - " + seat.score + " of " +
    s.target;
  box.append(title);
  if (!seat.you && seat.cards > 0) {
    const backs = document.createElement("div");
    backs.className = "backs"; backs.setAttribute("aria-label", seat.cards + " cards");
    for (let i = 0; i < seat.cards; i++) backs.append(svgCard(null));
    const count = document.createElement("span");
    count.textContent = " " + seat.cards + " cards"; count.style.marginLeft = "16px";
    box.append(backs, count);
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

function showShowdown(s) {
  const showdowns = s.events.filter((e) => e.kind === "showdown");
  if (seenHands !== null && s.hands_logged > seenHands && showdowns.length) {
    const last = showdowns[showdowns.length - 1];
    $("showdown-title").textContent = "Hand " + last.hand + ": showdown";
    $("showdown-text").textContent = last.text;
    $("next-hand").textContent = s.over ? "See the result" : "Next hand";
    $("showdown").hidden = false;
    $("next-hand").focus();
  }
  seenHands = s.hands_logged;
}

function closeShowdown() {
  $("showdown").hidden = true;
  const first = document.querySelector("#hand .card.playable") || $("draw");
  if (first) first.focus();
}

function show(s) {
  current = s;
  $("table").hidden = false;
  $("learn").hidden = true; $("report").hidden = true; retrying = null;
  showSeats(s);
  showShowdown(s);
  $("events").textContent = s.events.map((e) => e.text).join("\n");
  $("events").scrollTop = $("events").scrollHeight;
  $("hints").textContent = "";
  $("over").hidden = !s.over;
  $("hand").innerHTML = "";
  $("draw").innerHTML = ""; $("take").innerHTML = "";
  $("draw").hidden = s.over; $("take").hidden = s.over || !s.top;
  if (s.over) {
    for (const id of ["draw", "take", "pass", "hint", "knock"]) $(id).disabled = true;
    $("info").textContent = ""; $("prompt").textContent = ""; $("suggestion").textContent = "";
    $("deadwood").textContent = "";
    $("result").textContent = "Game over. Final scores: " + s.final_scores.join(", ") +
      (s.winner === s.game.seat ? " - you win" : " - seat " + s.winner + " wins");
    $("download").href = "/api/log?" + address(s.game, s.moves);
    return;
  }
  for (const id of ["draw", "take", "pass", "hint", "knock"]) $(id).disabled = false;
  $("draw").append(svgCard(null));
  const stockLabel = document.createElement("span");
  stockLabel.className = "label"; stockLabel.textContent = "stock " + s.stock;
  $("draw").append(stockLabel);
  $("draw").setAttribute("aria-label", "draw from the stock, " + s.stock + " cards");
  if (s.top) {
    $("take").append(svgCard(s.top));
    const pileLabel = document.createElement("span");
    pileLabel.className = "label"; pileLabel.textContent = "pile " + s.pile;
    $("take").append(pileLabel);
    $("take").setAttribute("aria-label", "take the pile's top card, the " + cardName(s.top));
  }
  $("prompt").textContent = "Your turn: " + s.prompt + (s.for_seat !== null ?
    " (you decide for the captain, seat " + s.for_seat + ")" : "");
  $("info").textContent = "Hand " + s.hand_number + ". Knock at " + s.knock_limit +
    " or less. Opponent took " + (s.opponent_took.join(" ") || "-") + ", threw " +
    (s.opponent_threw.join(" ") || "-") + (s.drawn ? ". You drew " + s.drawn : "") + ".";
  $("suggestion").textContent = s.suggestion || "";
  $("deadwood").textContent = "Deadwood " + s.deadwood;
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
  $("knock").disabled = s.knocks.length === 0;
  if (s.knocks.length === 0) $("knock").checked = false;
}

async function start() {
  options = await (await fetch("/api/options")).json();
  for (const p of options.presets) $("rules").add(new Option(p, p));
  for (const p of options.policies) $("policy").add(new Option(p, p));
  $("rules").onchange = seatChoices;
  seatChoices();
  window.onhashchange = load;
  load();
}
start();
</script></body></html>
"""
