"""A tap on a phone discards once and says nothing more: the tap that discards is
not taken for a second tap once the turn has passed (which would show "Wait for
your turn")."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import PHONE
from tests.web.test_small_things import crafted_view
from tests.web.ui import login_guest, open_table


def test_a_tap_discard_shows_no_notice(server: str, new_context: Any) -> None:
    page = new_context("tap", viewport=PHONE, has_touch=True, is_mobile=True)
    login_guest(page, server, "Tapper")
    view = crafted_view()
    view.update({"phase": "play", "current": 0})
    open_table(page, view, ["Tapper", "casual"], record_sent=True)
    # The server's answer comes at once: the turn passes to the other seat.
    page.evaluate("""() => { const a = window.__romme; const t = a.tables.get(a.tableId);
        a.send = (m) => { a.sent.push(m); const v = {...t.view, current: 1, phase: 'draw',
            hand: t.view.hand.filter((c) => c !== m.action.card)};
            window.__rommeTable.setTable({...t, version: t.version + 1, view: v}, []); return 'x'; }; }""")
    page.evaluate("""() => { window.__clicks = 0;
        document.addEventListener('click', () => { window.__clicks += 1; }, true); }""")
    page.tap("#hand .hand-card >> nth=2")
    # Every event of the tap has come (the click last); a notice would be up by then.
    page.wait_for_function("() => window.__romme.sent.length === 1 && window.__clicks >= 1")
    toasts = page.locator(".toast").all_inner_texts()
    assert page.evaluate("() => window.__romme.sent.map((m) => m.action.type)") == ["discard"]
    assert toasts == [], toasts
