"""Locale catalogs: every catalog has the same keys and placeholders, every key
the code asks for exists, and every screen renders in every language without a
missing key."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import shot, start_server, stop_server
from tests.web.ui import (
    draw_and_discard,
    login_guest,
    new_game,
    open_own_info,
    table_state,
    view,
    wait_for,
)

WEB = Path(__file__).resolve().parents[2] / "romme" / "web"
LANGS = ["en", "de", "pt", "es", "nl"]


def catalog(lang: str) -> dict[str, Any]:
    """A catalog: key -> text, or key -> {plural form: text} for a text that counts."""
    data: dict[str, Any] = json.loads((WEB / "locales" / f"{lang}.json").read_text("utf-8"))
    return data


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", LANGS[1:])
def test_catalog_has_the_same_keys_and_placeholders(lang: str) -> None:
    en, other = catalog("en"), catalog(lang)
    assert sorted(set(en) - set(other)) == [], f"{lang} lacks keys"
    assert sorted(set(other) - set(en)) == [], f"{lang} has extra keys"
    for key, text in en.items():
        if isinstance(text, dict):
            # Plural forms: "other" names every placeholder; a form may leave the count
            # out ("a meld", "no free seat") but names no other placeholder.
            assert isinstance(other[key], dict), f"{lang}: {key} has no plural forms"
            assert all(form.strip() for form in other[key].values()), f"{lang}: {key} is empty"
            names = placeholders(text["other"])
            assert placeholders(other[key]["other"]) == names, f"{lang}: {key} placeholders differ"
            assert all(placeholders(form) <= names for form in other[key].values()), key
            continue
        assert other[key].strip(), f"{lang}: {key} is empty"
        assert placeholders(other[key]) == placeholders(text), f"{lang}: {key} placeholders differ"


def test_every_key_the_code_uses_exists() -> None:
    en = catalog("en")
    source = "\n".join(p.read_text("utf-8") for p in (WEB / "js").rglob("*.js"))
    used = set(re.findall(r"\bt\(\s*'([a-z_]+\.[a-z0-9_.]+)'", source))
    used |= set(re.findall(r"'data-i18n(?:-[a-z]+)?': '([a-z_]+\.[a-z0-9_.]+)'", source))
    assert len(used) > 150
    for key in sorted(used):
        assert key in en, f"missing key {key}"
    dynamic = {
        "bot": ["beginner", "casual", "strong", "expert"],
        "status": ["waiting", "playing", "finished"],
        "rank": [str(n) for n in range(1, 14)],
        "suit": ["C", "D", "H", "S"],
        "entry": [
            "tab_guest",
            "tab_login",
            "tab_register",
            "submit_guest",
            "submit_login",
            "submit_register",
        ],
        "invite": ["status_open", "status_accepted", "status_declined", "status_expired"],
    }
    for prefix, names in dynamic.items():
        for name in names:
            assert f"{prefix}.{name}" in en


LOGGERS = {"log", "logger", "logging"}
"""Names a module's logger goes by: ``log.error("append_failed", ...)`` writes an
event to the operator's log, it sends nothing to a client."""


def _callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if not isinstance(func, ast.Attribute):
        return None
    if isinstance(func.value, ast.Name) and func.value.id in LOGGERS:
        return None
    return func.attr


def _code_positions(trees: list[ast.Module]) -> dict[str, int]:
    """Callables that take an error code, and the position of the ``code`` argument:
    exception classes whose constructor has a ``code`` parameter (and their
    subclasses that keep it), and functions with "error" in the name that do."""
    inits: dict[str, list[str] | None] = {}
    bases: dict[str, list[str]] = {}
    positions: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]
                init = next(
                    (
                        f
                        for f in node.body
                        if isinstance(f, ast.FunctionDef) and f.name == "__init__"
                    ),
                    None,
                )
                inits[node.name] = None if init is None else [a.arg for a in init.args.args[1:]]
            elif (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and "error" in node.name.lower()
            ):
                params = [a.arg for a in node.args.args]
                if "code" in params:
                    positions[node.name] = params.index("code")

    def params_of(name: str, depth: int = 0) -> list[str] | None:
        if name not in inits or depth > 10:
            return None
        own = inits[name]
        if own is not None:
            return own
        return next((p for b in bases[name] if (p := params_of(b, depth + 1)) is not None), None)

    for name in inits:
        inherited = params_of(name)
        if inherited is not None and "code" in inherited:
            positions[name] = inherited.index("code")
    return positions


def server_error_codes() -> dict[str, str]:
    """Every error code the server's code can send, with the file that raises it,
    found in the source (so that codes added later are checked too): the code
    argument of every error constructor and error helper called with a literal,
    the ``code`` class attribute of the error classes, and ``ERROR_CODES``."""
    sources = sorted(
        p
        for part in ("server", "store", "engine")
        for p in (WEB.parent / part).rglob("*.py")
        # The migrations' command line talks to an operator, never to a client.
        if "migrations" not in p.parts
    )
    trees = [ast.parse(p.read_text("utf-8")) for p in sources]
    positions = _code_positions(trees)
    codes: dict[str, str] = {}
    for path, tree in zip(sources, trees, strict=True):
        where = str(path.relative_to(WEB.parents[1]))
        for node in ast.walk(tree):
            found: list[ast.expr] = []
            if isinstance(node, ast.Call) and (name := _callee(node)) in positions:
                index = positions[name]
                if len(node.args) > index:
                    found.append(node.args[index])
                found += [k.value for k in node.keywords if k.arg == "code"]
            elif isinstance(node, ast.ClassDef):
                found += [
                    s.value
                    for s in node.body
                    if isinstance(s, ast.Assign | ast.AnnAssign)
                    and s.value is not None
                    and any(
                        isinstance(t, ast.Name) and t.id == "code"
                        for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                    )
                ]
            elif (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "ErrorCode" for t in node.targets)
                and isinstance(node.value, ast.Subscript)
            ):
                # The engine's closed set: ErrorCode = Literal["engine_error", ...].
                found += [n for n in ast.walk(node.value.slice) if isinstance(n, ast.expr)]
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "ERROR_CODES" for t in node.targets
            ):
                assert isinstance(node.value, ast.Dict)
                found += [k for k in node.value.keys if k is not None]
            for value in found:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    codes.setdefault(value.value, where)
    return codes


def test_every_error_code_the_server_sends_has_a_text_in_every_catalog() -> None:
    codes = server_error_codes()
    # The scan finds the codes of each layer (a scan that finds nothing proves nothing).
    for known in ("knock_closed", "server_busy", "nickname_taken", "not_your_turn", "bad_card"):
        assert known in codes
    for code in codes:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", code), f"{code!r} ({codes[code]})"
    for lang in LANGS:
        texts = catalog(lang)
        lacking = sorted(
            f"{code} ({codes[code]})"
            for code in codes
            if not texts.get(f"error.{code}", "").strip()
        )
        assert lacking == [], f"{lang} has no text for"


def switch(page: Any, lang: str) -> None:
    """Choose the language: in the header's menu, or at the table in the settings
    dialog (the gear in the side panel opens it; tests/web/test_screens.py presses it)."""
    in_settings = not page.locator("#lang-select").is_visible()
    if in_settings:
        page.evaluate("import('./js/settings.js').then((m) => { m.settingsDialog(); })")
    page.select_option("#pref-language" if in_settings else "#lang-select", lang)
    page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
    if in_settings:
        # The dialog opens again in the new language; then it is closed.
        page.wait_for_function(
            "(title) => document.querySelector('.prefs-dialog h2')?.textContent === title",
            arg=catalog(lang)["prefs.title"],
        )
        page.keyboard.press("Escape")
        page.wait_for_selector(".prefs", state="detached")
    page.wait_for_timeout(30)


def missing(page: Any) -> list[str]:
    return sorted(page.evaluate("[...window.__rommeMissingKeys]"))


def every_language(page: Any, screen: str, check: Any = None) -> None:
    for lang in LANGS:
        switch(page, lang)
        if check:
            check(lang)
        assert missing(page) == [], f"{screen} in {lang}"


def test_every_screen_in_every_language(server: str, new_context: Any) -> None:
    page = new_context("lingo", locale="de-DE")
    page.goto(server)
    # The browser's language is the default.
    page.wait_for_selector("#entry-submit")
    assert page.inner_text("#entry-submit") == catalog("de")["entry.submit_guest"]
    every_language(page, "entry", lambda lang: page.click("#entry-tab-register"))
    switch(page, "de")
    page.click("#entry-tab-guest")
    login_guest(page, server, "Lingo")
    every_language(
        page,
        "lobby",
        lambda lang: page.wait_for_function(
            "t => document.querySelector('#new-game').textContent === t",
            arg=catalog(lang)["lobby.new_game"],
        ),
    )

    def new_game_dialog(lang: str) -> None:
        page.click("#new-game")
        page.check("#new-game-form input[name=preset][value=three-rounds]")
        page.check("#new-game-form input[name=preset][value=classic]")
        page.keyboard.press("Escape")

    every_language(page, "new game", new_game_dialog)

    def player_info(lang: str) -> None:
        open_own_info(page, "Lingo")
        page.keyboard.press("Escape")

    every_language(page, "player info", player_info)

    # The waiting room of a table for two people.
    page.click("#new-game")
    page.select_option("#ng-seat-1", "human")
    page.click("#ng-create")
    page.wait_for_selector("#waiting:visible")
    every_language(page, "waiting room")
    page.click("#waiting button.ghost")
    page.wait_for_selector("#new-game")

    # A game against the computer, with its dialogs.
    page.click("#new-game")
    page.select_option("#ng-turn", "120")
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card")

    def table_dialogs(lang: str) -> None:
        page.click("#hand-0")
        page.wait_for_timeout(50)
        page.keyboard.press("?")
        page.wait_for_selector(".keys")
        page.keyboard.press("Escape")
        page.click("#invite") if page.locator("#invite").is_enabled() else None
        page.click("#player-info")
        page.keyboard.press("Escape")

    every_language(page, "table", table_dialogs)
    switch(page, "de")
    shot(page, "table-german")
    switch(page, "en")


# Every text the connection banner shows, from the first moment of the page on.
_RECORD_BANNER = """
window.__bannerTexts = [];
new MutationObserver(() => {
  const banner = document.getElementById('conn-banner');
  if (banner && !banner.hidden && banner.textContent) window.__bannerTexts.push(banner.textContent);
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


def test_a_reload_shows_no_raw_keys(server: str, new_context: Any) -> None:
    page = new_context("reload-keys", locale="nl-NL")
    login_guest(page, server, "Herlaad")
    page.add_init_script(_RECORD_BANNER)
    for _ in range(3):
        page.reload()
        page.wait_for_selector("#new-game")
        page.wait_for_selector("#conn-banner", state="hidden")
        texts = page.evaluate("window.__bannerTexts")
        assert not [x for x in texts if x.startswith("conn.")], texts
        assert missing(page) == []
    # Lost and found again: the banner speaks the page's language.
    # The close event comes a moment after close() returns: the banner is waited for
    # in its Dutch text first (a timeout here is the failure), then gone again.
    page.evaluate("window.__romme.conn.socket.close(4000)")
    page.wait_for_function(
        "text => window.__bannerTexts.includes(text)", arg=catalog("nl")["conn.reconnecting"]
    )
    page.wait_for_selector("#conn-banner", state="hidden")


def move_patterns(lang: str) -> list[re.Pattern[str]]:
    """The "last move" texts of a catalog as patterns (any name, card, number)."""
    return [
        re.compile(re.sub(r"\\\{\w+\\\}", ".+", re.escape(text)))
        for key, value in catalog(lang).items()
        if key.startswith("move.")
        for text in (value.values() if isinstance(value, dict) else [value])
    ]


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Computer opponents that think about three seconds, so that the status line
    keeps showing a move for a while."""
    proc, base = start_server(tmp_path_factory.mktemp("slow"), "--bot-delay", "3")
    yield base
    stop_server(proc)


def test_the_last_move_follows_a_language_switch(slow_server: str, new_context: Any) -> None:
    page = new_context("last-move")
    login_guest(page, slow_server, "Zuletzt")
    new_game(page, opponents=2)
    english, german = move_patterns("en"), move_patterns("de")
    for _ in range(6):
        wait_for(page, lambda: (view(page) or {}).get("current") == 0, 60, "my turn")
        draw_and_discard(page)
        # Seat 1 moves, seat 2 thinks: the status line tells seat 1's last move.
        page.wait_for_selector("#turn-status .last-move", timeout=30000)
        version = (table_state(page) or {})["version"]
        text = page.inner_text("#turn-status .last-move")
        assert any(p.fullmatch(text) for p in english), text
        switch(page, "de")
        shown = page.inner_text("#turn-status .last-move")
        if (table_state(page) or {})["version"] == version:  # no move came in between
            assert any(p.fullmatch(shown) for p in german), shown
            assert not any(p.fullmatch(shown) for p in english), shown
            return
        switch(page, "en")
    raise AssertionError("no quiet moment to switch the language")
