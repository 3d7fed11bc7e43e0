"""The web table's API (every move kind, forged input refused, a restart resumes) and its
page in a real headless Chromium, a whole two-player hand played by clicks."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_table import scripted_line

from sim.engine.cards import card_str
from sim.engine.rules import Rules
from sim.records.replay import replay_game
from sim.table import Table
from sim.table.page import STATIC
from sim.table.web import create_app

EAAI = {"rules": "eaai", "bots": ["simple"], "seat": 0, "seed": 3}


def client() -> TestClient:
    """A new app (an empty cache, as after a restart) with one worker process."""
    return TestClient(create_app(hint_samples=8, workers=1), base_url="http://127.0.0.1")


def test_every_move_kind_and_the_end_of_a_game() -> None:
    api = client()
    s = api.post("/api/state", json={"game": EAAI, "moves": []}).json()
    assert s["decision"] == "offer" and s["legal"] == ["pass", "p"] and s["moves"] == []
    assert [seat["role"] for seat in s["seats"]] in (["dealer", "non-dealer"],
                                                     ["non-dealer", "dealer"])
    table = Table(Rules.preset("eaai"), "human,simple", 3)  # the same game, in process
    kinds = set()
    while not s["over"]:
        line = scripted_line(table)
        if s["decision"] == "draw" and "p" in s["legal"] and "p" not in kinds:
            line = "p"  # take from the pile once
        kinds.add(line.split()[0])
        table.play(line)
        s = api.post("/api/move", json={"game": s["game"], "moves": s["moves"],
                                        "move": line}).json()
        assert s["moves"] == table.answers
        if not s["over"]:
            assert [c["card"] for c in s["hand"]] == s["melds_text"].replace(
                "[", "").replace("]", "").replace("·", "").split()
            assert s["legal"] == table.legal()
    assert {"pass", "p", "d", "x"} <= kinds  # this game has no human knock
    assert s["final_scores"] == table.records[-1]["final_scores"]
    log = api.get("/api/log", params={"rules": "eaai", "bot": "simple", "seat": 0, "seed": 3,
                                      "moves": ",".join(s["moves"])})
    assert log.status_code == 200 and "attachment" in log.headers["content-disposition"]
    records = [json.loads(line) for line in log.text.splitlines()]
    assert records == json.loads(json.dumps(table.records))
    assert all(check.ok for check in replay_game(records))
    report = api.post("/api/review", json={"game": s["game"], "moves": s["moves"]}).json()
    assert report["report"].startswith("# Decision review")
    assert "| 0 | human |" in report["report"]
    assert "<h1>Decision review</h1>" in report["report_html"]
    assert '<td style="text-align:left">human</td>' in report["report_html"]


def test_forged_input_is_refused_with_one_line() -> None:
    api = client()
    s = api.post("/api/state", json={"game": EAAI, "moves": []}).json()
    cases = [
        ({"game": {**EAAI, "rules": "poker"}}, "unknown rules preset 'poker'"),
        ({"game": {**EAAI, "bots": ["os:system"]}}, "bot 'os:system' is not offered here"),
        ({"game": {**EAAI, "bots": ["mc:samples=1024"]}}, "bot 'mc:samples=1024' is not offered"),
        ({"game": {**EAAI, "bots": ["simple", "simple"]}}, "eaai rules need 1 bots"),
        ({"game": {**EAAI, "seed": -1}}, "seed -1 is not valid"),
        ({"game": {**EAAI, "seat": 2}}, "seat 2 is not valid"),
        ({"game": "garbage"}, "the game is not valid"),
        ({"game": EAAI, "moves": ["rm -rf"]}, "move 1 'rm -rf' is not a move"),
        ({"game": EAAI, "moves": ["p", "QH"]}, "the game does not replay: move 2 ('QH')"),
        ({"game": EAAI, "moves": [], "move": "x 9Z"}, "malformed card '9Z'"),
        ({"game": EAAI, "moves": [], "move": "d"}, "illegal: d answers another question"),
        ({"game": EAAI, "moves": [], "move": 7}, "move 7 is not valid"),
    ]
    for data, message in cases:
        r = api.post("/api/move", json={"moves": [], "move": "pass", **data})
        assert r.status_code == 400, data
        assert message in r.json()["error"] and "\n" not in r.json()["error"]
    assert api.post("/api/move", content=b"{not json",
                    headers={"Content-Type": "application/json"}).json()["error"] == \
        "the request is not JSON"
    again = api.post("/api/state", json={"game": EAAI, "moves": []}).json()
    assert again == s  # nothing changed


def test_a_restarted_server_resumes_and_tables_are_independent() -> None:
    first = client()
    s = first.post("/api/move", json={"game": EAAI, "moves": [], "move": "p"}).json()
    other = {**EAAI, "seed": 4}
    t = first.post("/api/move", json={"game": other, "moves": [], "move": "pass"}).json()
    assert t["moves"] == ["pass"] and s["moves"] == ["p"]
    restarted = client()  # a new app: an empty cache, as after a restart
    resumed = restarted.post("/api/state", json={"game": EAAI, "moves": s["moves"]}).json()
    assert resumed == s
    hints = restarted.post("/api/hint", json={"game": EAAI, "moves": s["moves"]}).json()
    assert sorted(h["move"] for h in hints["hints"]) == sorted(s["legal"])
    assert api_page_is_served(restarted)


def api_page_is_served(api: TestClient) -> bool:
    page = api.get("/")
    return page.status_code == 200 and "<title>ginbox table</title>" in page.text


def test_the_page_is_files_served_as_they_are() -> None:
    """The page loads its style and script from /static/, each served from the package's
    files with its type; nothing outside that folder is served."""
    api = client()
    page = api.get("/").text
    assert '<link rel="stylesheet" href="/static/table.css">' in page
    assert '<script src="/static/table.js" defer></script>' in page
    for name, kind in (("table.css", "text/css"), ("table.js", "text/javascript"),
                       ("index.html", "text/html")):
        answer = api.get(f"/static/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(kind)
        assert answer.text == (STATIC / name).read_text(encoding="utf-8")
    assert api.get("/static/../web.py").status_code == 404
    assert api.get("/static/missing.js").status_code == 404


def test_an_install_ships_every_file_of_the_page() -> None:
    """Each file the page is made of matches the package data pyproject.toml declares."""
    import fnmatch
    import tomllib

    project = tomllib.loads((STATIC.parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = project["tool"]["setuptools"]["package-data"]["sim.table"]
    files = sorted(p.name for p in STATIC.iterdir())
    assert files == ["index.html", "table.css", "table.js"]
    for name in files:
        assert any(fnmatch.fnmatch(f"static/{name}", pattern) for pattern in shipped), name


# ------------------------------------------------------------------ a real headless browser

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, seconds: float = 120) -> bool:
    """Whether a server listens on ``port`` of 127.0.0.1 within ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.2)
    return False


@pytest.fixture(scope="module")
def server() -> Any:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "sim", "serve", "--port", str(port),
                             "--hint-samples", "8", "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if not wait_for_port(port):
        proc.kill()
        raise AssertionError(proc.stdout.read().decode() if proc.stdout else "no server")
    yield f"http://127.0.0.1:{port}/"
    proc.terminate()
    proc.wait(timeout=30)


NO_BROWSER = ("this test needs Chromium and its driver: `make test` installs them when missing, "
              "or run: sudo apt-get install chromium chromium-driver")


def _browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert shutil.which("chromium") and shutil.which("chromedriver"), NO_BROWSER
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"):
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='ginbox-chromium-')}")
    return webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))


def test_without_chromium_the_browser_test_fails_saying_how_to_get_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Never a skip: a suite that passes without its browser test would hide a broken page."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(AssertionError, match="`make test` installs them when missing, or run: "
                                             "sudo apt-get install chromium chromium-driver"):
        _browser()


RANK_WORDS = dict(zip("A23456789TJQK", ("ace", "two", "three", "four", "five", "six", "seven",
                                          "eight", "nine", "ten", "jack", "queen", "king"),
                      strict=True))
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def name_of(card: str) -> str:
    """A card's accessible name: ``9H`` is "nine of hearts"."""
    return f"{RANK_WORDS[card[0]]} of {SUIT_WORDS[card[1]]}"


@pytest.mark.parametrize("by", ["clicks", "keyboard"])
def test_a_two_player_hand_in_a_browser(server: str, by: str) -> None:
    """A whole hand played by clicks, and one by the keyboard alone (Enter on a focused
    button, Space on the knock box), through the showdown to the next hand; the cards carry
    their names in words; a reload resumes the game."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def press(element: Any, key: str = Keys.ENTER) -> None:
        if by == "clicks":
            element.click()
        else:
            element.send_keys(key)

    browser = _browser()
    try:
        wait = WebDriverWait(browser, 60)
        browser.get(server)
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#rules option"))
        Select(browser.find_element(By.ID, "rules")).select_by_value("eaai")
        Select(browser.find_element(By.ID, "bot0")).select_by_value("simple")
        press(browser.find_element(By.ID, "new"))
        wait.until(lambda b: not b.find_element(By.ID, "table").get_attribute("hidden"))
        state = lambda: browser.execute_script("return current")  # noqa: E731
        wait.until(lambda b: state() is not None)
        game = state()["game"]
        table = Table(Rules.preset("eaai"), ["human", "simple"], game["seed"])
        while not table.records:
            s = state()
            cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
            assert [c.get_attribute("data-card") for c in cards] == [c["card"] for c in s["hand"]]
            assert cards[0].get_attribute("aria-label").startswith(name_of(s["hand"][0]["card"]))
            controls_follow_the_legal_moves(browser, s)
            line = scripted_line(table)
            table.play(line)
            before = len(s["moves"])
            if line in ("d", "p", "pass"):
                press(browser.find_element(By.ID, {"d": "draw", "p": "take", "pass": "pass"}[line]))
            else:
                word, card = line.split()
                box = browser.find_element(By.ID, "knock")
                if (word == "k") != box.is_selected():
                    press(box, Keys.SPACE)
                press(browser.find_element(By.CSS_SELECTOR, f'#hand .card[data-card="{card}"]'))
            wait.until(lambda b, n=before: len(state()["moves"]) > n)
            assert browser.find_element(By.ID, "error").text == ""
            assert state()["moves"] == table.answers
        record = table.records[0]
        events = browser.find_element(By.ID, "events").text
        assert "Scores after the hand: " in events
        showdown = browser.find_element(By.ID, "showdown")
        assert showdown.is_displayed() and "Scores after the hand: " in showdown.text
        assert not browser.find_element(By.ID, "felt").is_displayed()  # the next hand waits
        assert_showdown_drawn(browser, record)
        press(browser.find_element(By.ID, "next-hand"))
        assert not showdown.is_displayed()
        shown = {int(r.get_attribute("id")[5:]): int(r.find_elements(By.TAG_NAME, "td")[2].text)
                 for r in browser.find_elements(By.CSS_SELECTOR, "#seats tr")}
        assert shown == dict(enumerate(record["scores"]))
        if not state()["over"]:  # the next hand is on the table, only its legal moves enabled
            assert browser.find_element(By.ID, "felt").is_displayed()
            controls_follow_the_legal_moves(browser, state())
        assert "moves=" + "%2C".join(table.answers) in browser.current_url
        browser.refresh()  # the address holds the game: a reload resumes it
        wait.until(lambda b: state() is not None and state()["moves"] == table.answers)
    finally:
        browser.quit()
    assert replay_game(table.records)[0].ok


def controls_follow_the_legal_moves(browser: Any, s: dict[str, Any]) -> None:
    """Every control of the table is enabled exactly when its move is legal (the hint always);
    read in one round trip to the browser."""
    enabled = browser.execute_script(
        "const on = (e) => !e.disabled;"
        "return [Object.fromEntries(['draw', 'take', 'pass', 'knock', 'hint'].map("
        "  (id) => [id, on(document.getElementById(id))])),"
        "  [...document.querySelectorAll('#hand .card')].map((c) => [c.dataset.card, on(c)])];")
    assert enabled[0] == {"draw": "d" in s["legal"], "take": "p" in s["legal"],
                          "pass": "pass" in s["legal"], "knock": bool(s["knocks"]), "hint": True}
    playable = set(s["discards"]) | set(s["knocks"])
    assert enabled[1] == [[c["card"], c["card"] in playable] for c in s["hand"]]


def assert_showdown_drawn(browser: Any, record: dict[str, Any]) -> None:
    """The showdown panel draws the logged hand: each player's melds, layoffs and deadwood as
    cards named in words, the knocker first, the deadwood counted."""
    from selenium.webdriver.common.by import By

    result = record["result"]
    parts = browser.find_elements(By.CSS_SELECTOR, "#showdown-hands .sd-player")
    assert len(parts) == 2
    knocker = parts[0]
    melds = [[c.get_attribute("aria-label") for c in group.find_elements(
        By.CSS_SELECTOR, "[role=img]")] for group in knocker.find_elements(
        By.CSS_SELECTOR, ".meld:not(.layoff):not(.deadwood)")]
    if result["knocker"] is not None:
        assert melds == [[name_of(c) for c in meld] for meld in result["knocker_melds"]]
        assert f"deadwood {result['knocker_deadwood']}" in knocker.text
        laid = parts[1].find_elements(By.CSS_SELECTOR, ".layoff [role=img]")
        assert [c.get_attribute("aria-label") for c in laid] == [name_of(c) for c in
                                                                 result["layoffs"]]
        assert f"deadwood {result['defender_deadwood']}" in parts[1].text
    cards = browser.find_elements(By.CSS_SELECTOR, "#showdown-hands [role=img]")
    assert len(cards) == 20 and all(c.is_displayed() for c in cards)


def _serious_accessibility_problems(browser: Any) -> list[str]:
    """axe-core's serious and critical violations on the page as shown (axe-selenium-python
    runs the axe.js it ships), one line each."""
    from axe_selenium_python import Axe

    axe = Axe(browser)
    axe.inject()
    found = axe.run()["violations"]
    return [f"{v['impact']} {v['id']}: {v['help']} {[n['target'] for n in v['nodes']][:3]}"
            for v in found if v["impact"] in ("serious", "critical")]


def _viewport(browser: Any, width: int, height: int) -> None:
    """The page's viewport exactly ``width`` x ``height`` (a window's size includes its frame)."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def test_the_start_page_and_the_table_on_a_phone(server: str) -> None:
    """The start page tells the game (the roles, the levels) beside the set-up form; at 390 x
    844 a dealt table folds the form away, shows the whole hand without scrolling, has no
    sideways scroll, every card and button a finger can hit (44 px), and no serious or
    critical problem axe-core finds."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser = _browser()
    try:
        _viewport(browser, 390, 844)
        browser.get(server)
        WebDriverWait(browser, 60).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, "#rules option"))
        intro = browser.find_element(By.ID, "intro")
        assert intro.is_displayed() and not browser.find_element(By.ID, "table").is_displayed()
        for words in ("box", "captain", "sitter", "advisor", "consensus", "random", "tuned",
                      "mc-fast", "net"):
            assert re.search(rf"\b{words}\b", intro.text), words
        assert browser.find_element(By.ID, "new").is_displayed()
        browser.get(server + "#rules=three-handed&policy=captain&bot=simple&bot=tuned&seat=0"
                             "&seed=12&moves=")
        WebDriverWait(browser, 60).until(
            lambda b: b.execute_script("return current") is not None)
        assert browser.find_element(By.CSS_SELECTOR, 'meta[name="viewport"]')
        assert not browser.find_element(By.ID, "intro").is_displayed()  # the form folded
        assert not browser.find_element(By.ID, "setup").is_displayed()
        height = browser.execute_script("return window.innerHeight")
        assert height == 844
        width = browser.execute_script("return document.documentElement.clientWidth")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
        assert len(cards) == 10
        for card in cards:  # the whole hand above the fold
            box = browser.execute_script("return arguments[0].getBoundingClientRect()", card)
            assert 0 <= box["top"] and box["bottom"] <= height and box["right"] <= width, box
        targets = browser.find_elements(By.CSS_SELECTOR, "#hand .card, #draw, #pass, #hint")
        assert len(targets) >= 13
        for target in targets:
            assert target.size["height"] >= 44 and target.size["width"] >= 44, target.size
        assert _serious_accessibility_problems(browser) == []
    finally:
        browser.quit()


def _finished_game(seed: int) -> tuple[dict[str, Any], list[str]]:
    """A finished eaai game against simple, the person playing the first legal answer."""
    table = Table(Rules.preset("eaai"), ["human", "simple"], seed)
    while not table.over:
        table.play(table.legal()[0])
    return {**EAAI, "seed": seed}, list(table.answers)


def test_the_review_steps_through_every_decision() -> None:
    game, moves = _finished_game(5)
    answer = client().post("/api/review", json={"game": game, "moves": moves}).json()
    steps, figures = answer["steps"], answer["figures"]
    counted = [s for s in steps if s["counted"]]
    assert figures["decisions"] == len(counted) > 0
    assert sum(figures[k] for k in ("blunder", "mistake", "inaccuracy")) == sum(
        s["label"] in ("blunder", "mistake", "inaccuracy") for s in counted)
    assert 0 <= figures["accuracy"] <= 100 and figures["error_rate"] >= 0
    for step in steps:
        assert step["played"] in step["values"] and step["best"] in step["values"]
        assert step["value_played"] == pytest.approx(step["values"][step["played"]], abs=1e-4)
        assert len(step["cards"]) in (10, 11) and 0 <= step["value_played"] <= 1


STEP_SENTENCE = re.compile(
    r"You (passed|took the [a-z ]+|drew from the stock|knocked|played on|discarded the [a-z ]+)"
    r" \(\d+\.\d% to win the game\), (the best move|close to the best|an inaccuracy|a mistake|"
    r"a blunder|every move was as good|the only legal move)(; the best was to (pass|take the "
    r"[a-z ]+|draw from the stock|knock|play on|discard the [a-z ]+) \(\d+\.\d%\))?\.")


def test_game_over_the_review_and_a_new_game(server: str) -> None:
    """Game over shows the result, a new game and the review; the review counts the decisions
    it shows, draws its graph with both axes, and tells each step in one plain sentence."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    game, moves = _finished_game(2)  # one of its decisions is no real choice ("equal")
    final = Table.replay(Rules.preset("eaai"), ["human", "simple"], 2, 0, moves).records[-1]
    browser = _browser()
    try:
        _viewport(browser, 1366, 900)
        wait = WebDriverWait(browser, 120)
        browser.get(server + "#rules=eaai&policy=captain&bot=simple&seat=0&seed=2&moves="
                    + ",".join(moves))
        wait.until(lambda b: b.find_element(By.ID, "review").is_displayed())
        winner = "you win" if final["game_winner"] == 0 else "seat 1 (simple) wins"
        scores = sorted(final["final_scores"], reverse=True)
        assert browser.find_element(By.ID, "result").text == (
            f"Game over: {winner}, {scores[0]} to {scores[1]}.")
        assert not browser.find_element(By.ID, "felt").is_displayed()
        assert browser.find_element(By.ID, "new-game").is_enabled()
        panel = browser.execute_script(
            "return document.getElementById('over').getBoundingClientRect()")
        assert panel["top"] < 300  # the result is the first thing on the screen
        browser.find_element(By.ID, "review").click()
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#steps .step"))
        steps = browser.find_elements(By.CSS_SELECTOR, "#steps .step")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#graph circle")) == len(steps)
        judged = browser.execute_script("return steps.filter((st) => st.counted).length")
        assert 0 < judged < len(steps)
        assert browser.find_element(By.ID, "figures").text.startswith(
            f"{len(steps)} decisions, {judged} of them with a real choice (in "
            f"{len(steps) - judged} every move was as good or forced): accuracy ")
        axes = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#graph text")]
        assert {"0%", "50%", "100%", "win chance", "1", "decision"} <= set(axes)
        for i in range(len(steps)):
            steps[i].click()
            text = browser.find_element(By.ID, "position").text
            assert text.startswith(f"Decision {i + 1} of {len(steps)}: hand "), text
            assert STEP_SENTENCE.fullmatch(
                browser.find_element(By.CSS_SELECTOR, "#position .verdict").text)
        browser.find_element(By.ID, "retry").click()
        options = browser.find_elements(By.CSS_SELECTOR, "#position .option")
        assert options and not browser.find_elements(By.CSS_SELECTOR, "#position .verdict")
        options[0].click()  # the answer waits for a choice
        assert browser.find_element(By.CSS_SELECTOR, "#position .verdict").text.startswith(
            "You chose ")
        assert not browser.find_element(By.ID, "report").is_displayed()
        browser.find_element(By.ID, "raw").click()
        assert "Decision review" in browser.find_element(By.ID, "report").text
        assert _serious_accessibility_problems(browser) == []
        browser.find_element(By.ID, "new-game").click()  # the same settings, a new deal
        wait.until(lambda b: b.find_element(By.ID, "felt").is_displayed())
        assert not browser.find_element(By.ID, "over").is_displayed()
        assert "seed=2&" not in browser.current_url and browser.current_url.endswith("&moves=")
    finally:
        browser.quit()


def test_every_finished_hand_shows_its_showdown_in_turn(server: str) -> None:
    """Three-handed, a knock of yours that ends the hand is followed by a hand the bots play
    while you sit out: each hand's showdown is shown, yours first, before the next hand; on a
    phone the panel fits the width and its button is on the screen."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = Table(Rules.preset("three-handed"), ["human", "simple", "simple"], 0)
    while not table.records:  # the scripted player's game, up to the move that ends hand 1
        answers, line = list(table.answers), scripted_line(table)
        table.play(line)
    assert line == "k 4H" and len(table.records) == 2  # your knock ends hand 1; you sit out
    browser = _browser()
    try:
        _viewport(browser, 390, 844)
        wait = WebDriverWait(browser, 60)
        browser.get(server + "#rules=three-handed&policy=captain&bot=simple&bot=simple&seat=0"
                             "&seed=0&moves=" + ",".join(answers))
        wait.until(lambda b: b.execute_script("return current") is not None
                   and b.execute_script("return current.knocks.length") > 0)
        browser.find_element(By.ID, "knock").click()
        browser.find_element(By.CSS_SELECTOR, f'#hand .card[data-card="{line[2:]}"]').click()
        wait.until(lambda b: b.find_element(By.ID, "showdown").is_displayed())
        for record in table.records:
            title = browser.find_element(By.ID, "showdown-title").text
            assert title.startswith(f"Hand {record['hand'] + 1}: "), title
            assert not browser.find_element(By.ID, "felt").is_displayed()
            assert_showdown_drawn(browser, record)
            sat = browser.find_element(By.ID, "showdown-hands").text
            assert ("You sat out." in sat) == (record["sitter"] == 0)
            told = browser.find_element(By.ID, "events").text  # nothing of the later hands
            assert f"Hand {record['hand'] + 1}: " in told
            assert f"Hand {record['hand'] + 2}: " not in told
            assert not browser.find_element(By.ID, "scores").is_displayed()
            width = browser.execute_script("return document.documentElement.clientWidth")
            assert browser.execute_script("return document.documentElement.scrollWidth") <= width
            button = browser.execute_script(
                "return document.getElementById('next-hand').getBoundingClientRect()")
            assert 0 <= button["top"] and button["bottom"] <= 844
            if record["hand"] == 0:
                assert _serious_accessibility_problems(browser) == []
            browser.find_element(By.ID, "next-hand").click()
        assert not browser.find_element(By.ID, "showdown").is_displayed()
        assert browser.find_element(By.ID, "felt").is_displayed()
    finally:
        browser.quit()


def test_a_three_handed_sitter_decides_for_the_captain_under_the_advisor_policy() -> None:
    game = {"rules": "three-handed", "policy": "advisor", "bots": ["mc", "tuned"], "seat": 0,
            "seed": 11}
    s = client().post("/api/state", json={"game": game, "moves": []}).json()
    roles = {seat["role"]: seat["seat"] for seat in s["seats"]}
    assert sorted(roles) == ["box", "captain", "sitter"] and s["advice"] == "advisor"
    assert roles["sitter"] == 0 and s["for_seat"] == roles["captain"]  # this deal seats you out
    rules = Rules.preset("three-handed").replace(team_policy="advisor")
    table = Table(rules, ["human", "mc", "tuned"], 11)
    assert table.seat == 0 and table.roles[1] == roles["captain"]  # asked: you, for the captain
    assert sorted(c["card"] for c in s["hand"]) == sorted(card_str(c) for c in table.view().hand)
    assert len(s["hand"]) == 10 and s["stock"] == 31
    assert s["legal"] == table.legal() == ["pass", "p"]


def test_serve_refuses_an_address_it_cannot_listen_on() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "sim", "serve", "--port", str(port),
                              "--no-browser"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.strip() == (f"ginbox: error: cannot listen on 127.0.0.1:{port}: Address "
                                  "already in use; choose another --port or --host")


def test_a_knock_from_the_page_scores_the_showdown() -> None:
    api = client()
    game = {**EAAI, "seed": 17}
    s = api.post("/api/move", json={"game": game, "moves": [], "move": "d"}).json()
    refused = api.post("/api/move", json={"game": game, "moves": s["moves"], "move": "k JS"})
    assert refused.status_code == 400
    assert refused.json()["error"].startswith("illegal: you may not knock now")
    for line in ("x JS", "d", "x KD", "d"):
        s = api.post("/api/move", json={"game": game, "moves": s["moves"], "move": line}).json()
    assert s["knocks"] and "4H" in s["knocks"] and s["hands_logged"] == 0
    s = api.post("/api/move", json={"game": game, "moves": s["moves"], "move": "k 4H"}).json()
    # knocker 10 deadwood (7S 7H 7D, 9D-QD); the defender lays off 8D and keeps 24: 14 points
    assert s["moves"] == ["d", "JS", "d", "KD", "d", "k", "4H"] and s["hands_logged"] == 1
    assert [seat["score"] for seat in s["seats"]] == [14, 0]
    showdown = [e["text"] for e in s["events"] if e["kind"] == "showdown"]
    assert len(showdown) == 1 and "lays off 8D; deadwood 3S 6S  AH TH  3D  AC = 24" in showdown[0]
    assert "dealer scores 24 (non-dealer's deadwood) - 10 (own deadwood) = 14." in showdown[0]
    cards = [e["cards"] for e in s["events"] if e["kind"] == "showdown"][0]
    you, bot = cards["players"]  # the knocker first
    assert (you["name"], you["role"], you["knocker"], bot["name"], bot["role"]) == (
        "you", "dealer", True, "seat 1 (simple)", "non-dealer")
    assert you["melds"] == [["7S", "7H", "7D"], ["9D", "TD", "JD", "QD"]]
    assert (you["layoffs"], you["deadwood_cards"], you["deadwood"]) == ([], ["2H", "6H", "2C"], 10)
    assert bot["melds"] == [["5H", "5D", "5C"]] and bot["layoffs"] == ["8D"]
    assert (bot["deadwood_cards"], bot["deadwood"]) == (["3S", "6S", "AH", "TH", "3D", "AC"], 24)
    assert (cards["hand"], cards["end"], cards["winner"], cards["points"], cards["sitter"],
            cards["scores"]) == (1, "knock", 0, 14, None, [14, 0])
    assert cards["notes"] == [
        "Dealer knocks with less deadwood: dealer scores 24 (non-dealer's deadwood) - 10 (own "
        "deadwood) = 14.", "Scores after the hand: you 14, seat 1 (simple) 0   (target 100)"]
