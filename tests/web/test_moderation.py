"""Reports and moderation in Chromium: a player reports another from the player
info (the chat line the server attached is shown masked to the moderator), a
moderator named with `romme admin` finds the report on #/moderation (on a phone)
and resolves it; the log shows it. The queue groups the open reports by reported
player, the heaviest first with its reporters counted; a group opens with Enter,
its player is muted by id and its reports are resolved at once, and it leaves the
queue. The queue, the list of every report and the log each read page by page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.web.conftest import PHONE, shot, start_server, stop_server
from tests.web.test_i18n import every_language
from tests.web.ui import login_guest, register

PASSWORD = "geheim-und-lang"
PAGE = 20
"""Groups, reports and log entries the page reads at a time (PAGE in moderation/lists.js)."""


def grant_moderator(tmp_path: Path, nickname: str) -> None:
    """`romme admin grant-moderator` on the database of the test's own server."""
    granted = subprocess.run(
        [
            sys.executable,
            "-m",
            "romme",
            "admin",
            "--db",
            f"sqlite+aiosqlite:///{tmp_path / 'romme.db'}",
            "grant-moderator",
            nickname,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert granted.returncode == 0, granted.stderr


def moderator_page(new_context: Any, base: str, tmp_path: Path, nickname: str) -> Any:
    """A browser registered as ``nickname``, made a moderator, on #/moderation with
    its first read done."""
    page = new_context(nickname.lower())
    register(page, base, nickname, PASSWORD)
    grant_moderator(tmp_path, nickname)
    page.goto(base + "#/moderation")
    page.wait_for_selector("#mod-queue[aria-busy='false']")
    return page


class Player:
    """A player of its own HTTP session (cookie), a guest or (with ``password``) a
    registered account. Its requests come from ``address``: the test's server trusts
    127.0.0.1 to name the client's address in X-Forwarded-For, as a proxy does, so
    that more reports than one address may file an hour can be filed."""

    def __init__(
        self, base: str, nickname: str, password: str | None = None, address: str = "127.0.0.1"
    ) -> None:
        self.nickname = nickname
        self.http = httpx.Client(base_url=base, timeout=20, headers={"X-Forwarded-For": address})
        body = {"nickname": nickname} | ({"password": password} if password else {})
        answer = self.http.post("/api/register" if password else "/api/guest", json=body)
        assert answer.status_code == 200, answer.text
        self.id: int = answer.json()["player"]["id"]

    def report(self, nickname: str, reason: str) -> int:
        answer = self.http.post("/api/reports", json={"nickname": nickname, "reason": reason})
        assert answer.status_code == 200, answer.text
        report_id: int = answer.json()["report"]["id"]
        return report_id


def moderation_state(page: Any, base: str, query: str = "") -> Any:
    """GET /api/moderation with the moderator's own session (the page's cookies)."""
    answer = page.request.get(f"{base}api/moderation{query}")
    assert answer.ok, answer.text()
    return answer.json()


def test_report_from_player_info_and_resolve_on_the_moderation_page(
    tmp_path: Path, new_context: Any, page_errors: Any
) -> None:
    # Its own server, so that `romme admin` can open the same database.
    proc, base = start_server(tmp_path, "--accounts-per-hour", "0")
    pages: list[Any] = []
    try:
        otto = new_context("otto")
        pages.append(otto)
        login_guest(otto, base, "Otto")
        otto.fill("#lobby-chat-input", "what the fuck, Scunthorpe")
        otto.press("#lobby-chat-input", "Enter")
        otto.wait_for_selector("#lobby-chat-log li:has-text('what the ****, Scunthorpe')")

        rita = new_context("rita")
        pages.append(rita)
        register(rita, base, "Rita", PASSWORD)
        rita.click("#player-list button:has-text('Otto')")
        rita.click("#report-player")
        rita.select_option("#report-reason", "abusive_chat")
        rita.fill("#report-text", "swears at everyone")
        rita.click("#report-send")
        rita.wait_for_selector(".toast:has-text('Report sent')")
        assert rita.locator(".report-dialog").count() == 0
        # Rita is no moderator: no link, and the page says so.
        assert rita.locator("#moderation-link").is_hidden()
        rita.goto(base + "#/moderation")
        rita.wait_for_selector("#moderation-body .form-error:has-text('Only moderators')")
        # The browser itself logs the refused request (HTTP 403); that one is expected.
        expected = [e for e in page_errors.errors if "403 (Forbidden)" in e]
        assert len(expected) == 1
        page_errors.errors.remove(expected[0])

        mara = new_context("mara", viewport=PHONE)
        pages.append(mara)
        register(mara, base, "Mara", PASSWORD)
        grant_moderator(tmp_path, "Mara")
        mara.reload()
        mara.wait_for_selector("#moderation-link:visible")
        mara.click("#moderation-link")
        # The queue: one group, Otto's, reported by one new account.
        group = mara.locator("#queue-list li.queue-group")
        group.first.wait_for()
        assert group.count() == 1
        head = group.first.inner_text()
        assert "Otto" in head and "Weight 2" in head and "Abusive chat: 1" in head
        assert "1 reporter, among them 1 new account" in head
        group.first.locator("button.group-head").click()
        report = mara.locator("#group-reports li.report")
        report.first.wait_for()
        assert report.count() == 1
        text = report.first.inner_text()
        assert "Rita reported Otto" in text and "Abusive chat" in text
        assert "swears at everyone" in text and "what the ****, Scunthorpe" in text
        assert "in the lobby" in text
        width = mara.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the moderation page scrolls sideways on a phone"
        shot(mara, "moderation-phone")
        report.first.locator("input[aria-label='Note']").fill("warned")
        report.first.locator("button[data-resolve]").click()
        mara.wait_for_selector("#queue-empty:has-text('No open reports.')")
        mara.wait_for_selector("#mod-log li:has-text('Mara resolved a report of Otto: warned')")
        # With the closed reports shown, it says who resolved it.
        mara.uncheck("#mod-open-only")
        mara.wait_for_selector("#report-list li.report:has-text('resolved by Mara: warned')")
        # Every text of the page (the report, the log) exists in the five languages.
        every_language(
            mara,
            "moderation",
            lambda lang: mara.wait_for_selector(f"html[lang='{lang}'] #report-list li.report"),
        )
    finally:
        for page in pages:  # before the server stops, so that no page sees it go
            page.context.close()
        stop_server(proc)


def test_the_queue_weighs_groups_and_acts_on_the_player_by_id(
    tmp_path: Path, new_context: Any, page_errors: Any
) -> None:
    proc, base = start_server(tmp_path, "--accounts-per-hour", "0")
    pages: list[Any] = []
    players: list[Player] = []
    try:
        bert, gus = Player(base, "Bert"), Player(base, "Gus")
        # Four guests report Gus first; then three accounts (new ones: younger than a
        # week) report Bert. Bert weighs more (3 x 2 against 4 x 1) and comes first.
        guests = [Player(base, f"Guest{n}") for n in range(4)]
        accounts = [Player(base, f"Known{n}", password=PASSWORD) for n in range(3)]
        players += [bert, gus, *guests, *accounts]
        for guest in guests:
            guest.report("Gus", "offensive_nickname")
        reasons = ["abusive_chat", "cheating", "abusive_chat"]
        bert_reports = {
            a.report("Bert", reason) for a, reason in zip(accounts, reasons, strict=True)
        }

        mara = moderator_page(new_context, base, tmp_path, "Mara")
        pages.append(mara)
        posted: list[tuple[str, Any]] = []
        mara.on(
            "request",
            lambda r: (
                posted.append((r.url.rsplit("/", 1)[-1], r.post_data_json))
                if r.method == "POST" and "/api/moderation/" in r.url
                else None
            ),
        )
        groups = mara.locator("#queue-list li.queue-group")
        assert groups.count() == 2
        assert [groups.nth(i).get_attribute("data-player") for i in range(2)] == [
            str(bert.id),
            str(gus.id),
        ]
        heavy, light = groups.nth(0).inner_text(), groups.nth(1).inner_text()
        assert "Bert" in heavy and "Weight 6" in heavy, heavy
        assert "3 reporters, among them 3 new accounts" in heavy, heavy
        assert "Abusive chat: 2" in heavy and "Cheating or collusion: 1" in heavy, heavy
        assert "Gus" in light and "Weight 4" in light, light
        assert "4 reporters, among them 4 guests" in light, light
        assert "Offensive nickname: 4" in light, light
        assert mara.locator("#queue-more").count() == 0

        # The group's head is a button: Enter opens it, with its three reports.
        head = groups.nth(0).locator("button.group-head")
        head.focus()
        mara.keyboard.press("Enter")
        mara.wait_for_selector(
            f"li.queue-group[data-player='{bert.id}'] #group-reports li.report >> nth=2"
        )
        assert head.get_attribute("aria-expanded") == "true"
        reports = mara.locator("#group-reports li.report")
        assert reports.count() == 3
        texts = [reports.nth(i).inner_text() for i in range(3)]
        assert all(f"{a.nickname} reported Bert" in " ".join(texts) for a in accounts), texts
        assert {int(reports.nth(i).get_attribute("data-report")) for i in range(3)} == bert_reports
        shot(mara, "moderation-queue")

        # Mute Bert for 30 minutes: the page names him by id, never by nickname.
        mara.fill("#group-minutes", "30")
        mara.fill("#group-note", "spam")
        mara.click("#group-mute")
        mara.wait_for_selector(f"#sanction-list li[data-player='{bert.id}']:has-text('muted')")
        assert posted == [("mute", {"player": bert.id, "minutes": 30, "note": "spam"})]
        sanctions = moderation_state(mara, base)["sanctions"]
        assert [(s["player_id"], s["kind"]) for s in sanctions] == [(bert.id, "mute")]
        # The group stays open after the mute, the note kept for what follows.
        assert reports.count() == 3 and mara.input_value("#group-note") == "spam"

        # "Resolve all": one request per report shown; the group leaves the queue, and
        # the focus goes to the next group rather than to the top of the page.
        resolve_all = mara.locator("#group-resolve-all")
        assert resolve_all.inner_text() == "Resolve the 3 reports shown"
        resolve_all.click()
        mara.wait_for_selector(f"li.queue-group[data-player='{bert.id}']", state="detached")
        mara.wait_for_selector(
            "#mod-log li:has-text('Mara resolved a report of Bert: spam') >> nth=2"
        )
        assert groups.count() == 1 and groups.first.get_attribute("data-player") == str(gus.id)
        assert mara.locator("#group-detail").count() == 0
        resolved = [body for kind, body in posted if kind == "resolve"]
        assert sorted(b["report"] for b in resolved) == sorted(bert_reports)
        assert all(b["note"] == "spam" for b in resolved)
        mara.wait_for_function(
            "(key) => document.activeElement?.dataset.key === key", arg=f"group-{gus.id}"
        )
        state = moderation_state(mara, base, f"?open=1&player={bert.id}")
        assert state["reports"] == []
        assert [g["player_id"] for g in state["queue"]["players"]] == [gus.id]

        # Gus's group, open, in every language.
        mara.keyboard.press("Enter")
        mara.wait_for_selector("#group-reports li.report >> nth=3")
        every_language(
            mara,
            "moderation queue",
            lambda lang: mara.wait_for_selector(f"html[lang='{lang}'] #group-reports li.report"),
        )
    finally:
        for page in pages:
            page.context.close()
        for player in players:
            player.http.close()
        stop_server(proc)


def test_the_queue_the_reports_and_the_log_page_by_page(
    tmp_path: Path, new_context: Any, page_errors: Any
) -> None:
    proc, base = start_server(
        tmp_path, "--accounts-per-hour", "0", "--forwarded-allow-ips", "127.0.0.1"
    )
    pages: list[Any] = []
    players: list[Player] = []
    try:
        # One group more than a page: 21 players reported once each, by three guests
        # of three addresses (an address files at most 20 reports an hour).
        targets = [Player(base, f"Target{n}") for n in range(PAGE + 1)]
        reporters = [Player(base, f"Rep{n}", address=f"198.51.100.{n + 1}") for n in range(3)]
        players += [*targets, *reporters]
        report_ids = [reporters[n % 3].report(t.nickname, "other") for n, t in enumerate(targets)]

        mara = moderator_page(new_context, base, tmp_path, "Mara")
        pages.append(mara)
        groups = mara.locator("#queue-list li.queue-group")
        assert groups.count() == PAGE
        # "More" from the keyboard: the next page is added below, and the focus goes
        # to its first group, where reading goes on.
        mara.focus("#queue-more")
        mara.keyboard.press("Enter")
        mara.wait_for_selector(f"#queue-list li.queue-group >> nth={PAGE}")
        mara.wait_for_selector("#queue-more", state="detached")
        mara.wait_for_function(
            "(key) => document.activeElement?.dataset.key === key", arg=f"group-{targets[PAGE].id}"
        )
        shown = [groups.nth(i).get_attribute("data-player") for i in range(groups.count())]
        # Equal weights: the one reported first comes first; each group once.
        assert shown == [str(t.id) for t in targets]

        for report_id in report_ids:
            done = mara.request.post(
                f"{base}api/moderation/resolve", data={"report": report_id, "note": "paged"}
            )
            assert done.ok, done.text()
        mara.reload()
        mara.wait_for_selector("#queue-empty")
        # The log: 21 resolutions and the grant of the moderator role.
        entries = mara.locator("#mod-log li")
        assert entries.count() == PAGE
        mara.click("#log-older")
        mara.wait_for_selector(f"#mod-log li >> nth={PAGE + 1}")
        mara.wait_for_selector("#log-older", state="detached")
        ids = {entries.nth(i).get_attribute("data-entry") for i in range(entries.count())}
        assert len(ids) == PAGE + 2
        assert "made moderator" in entries.last.inner_text()

        # Every report, newest first, a page at a time.
        mara.uncheck("#mod-open-only")
        mara.wait_for_selector("#mod-reports[aria-busy='false'] #report-list li.report")
        items = mara.locator("#report-list li.report")
        assert items.count() == PAGE
        mara.click("#reports-older")
        mara.wait_for_selector(f"#report-list li.report >> nth={PAGE}")
        mara.wait_for_selector("#reports-older", state="detached")
        shown = [items.nth(i).get_attribute("data-report") for i in range(items.count())]
        assert shown == [str(r) for r in reversed(report_ids)]
        assert all("resolved by Mara: paged" in items.nth(i).inner_text() for i in (0, PAGE))
    finally:
        for page in pages:
            page.context.close()
        for player in players:
            player.http.close()
        stop_server(proc)
