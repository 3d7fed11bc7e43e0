"""The web table's one page: plain HTML and JavaScript, no build step and no outside files.

The page keeps the game in its address (``#rules=eaai&bots=simple&seat=0&seed=..&moves=..``),
so a reload, a bookmark or a server restart resumes it; every click posts the game and its
moves to the server, which replays them and answers with what to show (:mod:`sim.table.web`).
"""

PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ginbox table</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; max-width: 60em; }
.card { font: 1.2em monospace; padding: .4em .5em; margin: .15em; border: 1px solid #555;
        border-radius: .3em; background: #fff; cursor: pointer; }
.card.melded { background: #e6f2e6; }
.card:disabled { cursor: default; opacity: .55; }
.gap { display: inline-block; width: 1em; }
#error { color: #b00; min-height: 1.2em; }
#events { font: .9em monospace; white-space: pre-wrap; max-height: 22em; overflow-y: auto;
          border: 1px solid #ccc; padding: .5em; }
.red { color: #c00; }
table.seats td { padding: 0 1em 0 0; }
#report { font-size: .9em; }
#report table { border-collapse: collapse; margin: .5em 0; }
#report th, #report td { border: 1px solid #ccc; padding: .1em .5em; text-align: right; }
#report pre { font-size: .9em; background: #f6f6f6; padding: .5em; overflow-x: auto; }
</style></head>
<body>
<h1>ginbox table</h1>
<form id="setup" onsubmit="newGame(); return false;">
  Rules <select id="rules"></select>
  <span id="policy-box">team policy <select id="policy"></select></span>
  Your seat <select id="seat"></select>
  <span id="bots"></span>
  <button id="new" type="submit">New table</button>
</form>
<div id="error"></div>
<div id="table" hidden>
  <table class="seats"><tbody id="seats"></tbody></table>
  <p id="info"></p>
  <p id="prompt"></p><p id="suggestion"></p>
  <div id="hand"></div>
  <p>
    <button id="draw" onclick="send('d')">Draw from the stock</button>
    <button id="take" onclick="send('p')">Take the pile's top card</button>
    <button id="pass" onclick="send('pass')">Pass</button>
    <label><input type="checkbox" id="knock"> knock with the card I click</label>
    <button id="hint" onclick="hint()">Hint</button>
  </p>
  <div id="hints"></div>
  <div id="over" hidden>
    <p id="result"></p>
    <button id="review" onclick="review()">Review my decisions</button>
    <a id="download" download>Download the hand log</a>
    <div id="report"></div>
  </div>
  <h3>At the table</h3>
  <div id="events"></div>
</div>
<script>
let options = null, current = null;
const $ = (id) => document.getElementById(id);

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
    sel.id = "bot" + b; sel.className = "bot";
    for (const name of options.bots) sel.add(new Option(name, name));
    sel.value = b === 0 ? "simple" : "tuned";
    $("bots").append(" bot " + (b + 1) + " ", sel);
  }
}

async function newGame() {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const game = {rules: $("rules").value, policy: $("policy").value, seat: Number($("seat").value),
                bots: [...document.querySelectorAll(".bot")].map((s) => s.value), seed: seed};
  location.hash = address(game, []);
}

function choose(game) {
  // the set-up form shows the game being played, so "New table" deals the same match-up again
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
  try {
    const answer = await post("/api/move", {game: current.game, moves: current.moves, move: move});
    history.replaceState(null, "", "#" + address(answer.game, answer.moves));
    show(answer);
  } catch (e) { $("error").textContent = e.message; }
}

async function hint() {
  $("hints").textContent = "thinking...";
  try {
    const answer = await post("/api/hint", {game: current.game, moves: current.moves});
    $("hints").textContent = "Chance of winning the game: " + answer.hints.map(
      (h) => h.move + " " + (100 * h.value).toFixed(1) + "%").join(", ");
  } catch (e) { $("hints").textContent = ""; $("error").textContent = e.message; }
}

async function review() {
  $("report").textContent = "reviewing...";
  try {
    const answer = await post("/api/review", {game: current.game, moves: current.moves});
    $("report").innerHTML = answer.report_html;  // rendered with raw HTML escaped
  } catch (e) { $("report").textContent = ""; $("error").textContent = e.message; }
}

function cardButton(c, playable, knocks) {
  const b = document.createElement("button");
  b.className = "card" + (c.melded ? " melded" : "");
  b.dataset.card = c.card;
  b.textContent = c.card[0] + {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"}[c.card[1]];
  if ("HD".includes(c.card[1])) b.classList.add("red");
  b.disabled = !playable.includes(c.card);
  b.onclick = () => send(($("knock").checked && knocks.includes(c.card) ? "k " : "x ") + c.card);
  return b;
}

function show(s) {
  current = s;
  $("table").hidden = false;
  $("seats").innerHTML = "";
  for (const seat of s.seats) {
    const row = $("seats").insertRow();
    row.id = "seat-" + seat.seat;
    row.insertCell().textContent = "seat " + seat.seat + (seat.you ? " (you)" : " " + seat.name);
    row.insertCell().textContent = seat.role;
    row.insertCell().textContent = seat.score;
  }
  $("events").textContent = s.events.map((e) => e.text).join("\n");
  $("events").scrollTop = $("events").scrollHeight;
  $("hints").textContent = "";
  $("over").hidden = !s.over;
  for (const id of ["draw", "take", "pass", "hint", "knock"]) $(id).disabled = true;
  $("hand").innerHTML = "";
  if (s.over) {
    $("info").textContent = ""; $("prompt").textContent = ""; $("suggestion").textContent = "";
    $("result").textContent = "Game over. Final scores: " + s.final_scores.join(", ") +
      (s.winner === s.game.seat ? " - you win" : " - seat " + s.winner + " wins");
    $("download").href = "/api/log?" + address(s.game, s.moves);
    return;
  }
  $("info").textContent = "Hand " + s.hand_number + ". Pile top " + (s.top || "none") + " (" +
    s.pile + "), stock " + s.stock + ", knock at " + s.knock_limit + " or less. Opponent took " +
    (s.opponent_took.join(" ") || "-") + ", threw " + (s.opponent_threw.join(" ") || "-") +
    (s.drawn ? ". You drew " + s.drawn : "") + ". Deadwood " + s.deadwood + ".";
  $("prompt").textContent = s.prompt + (s.for_seat !== null ?
    " (you decide for the captain, seat " + s.for_seat + ")" : "");
  $("suggestion").textContent = s.suggestion || "";
  let group = null;
  for (const c of s.hand) {
    if (group !== null && c.group !== group) {
      const gap = document.createElement("span"); gap.className = "gap"; $("hand").append(gap);
    }
    group = c.group;
    $("hand").append(cardButton(c, s.discards.concat(s.knocks), s.knocks));
  }
  $("draw").disabled = !s.can_draw; $("take").disabled = !s.can_take;
  $("pass").disabled = !s.can_pass; $("hint").disabled = false;
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
