"""Drop targets from a crafted view: dragging a natural card onto the joker it
replaces sends the joker exchange, dragging onto a blue arrow sends the lay-off
at that end, and a joker tapped is not discarded. The page's outgoing messages
are recorded instead of reaching a table."""

from __future__ import annotations

from typing import Any

from romme.engine.game import Game
from romme.engine.rules import Rules
from tests.web.conftest import shot
from tests.web.ui import drag_to_point, login_guest, open_table


def crafted_view() -> dict[str, Any]:
    view: dict[str, Any] = (
        Game.start(Rules.classic(), seats=2, seed=bytes(32)).view_for(0).to_json()
    )
    view.update(
        {
            "phase": "play",
            "current": 0,
            "opened": [True, True],
            "hand": ["8H", "XX", "TD", "KS", "4C"],
            "hand_counts": [5, 9],
            "melds": [
                {"kind": "sequence", "cards": ["7H", "XX", "9H"], "start": 7},
                {"kind": "sequence", "cards": ["JD", "QD", "KD"], "start": 11},
                {"kind": "group", "cards": ["KC", "KH", "KD"], "start": 13},
            ],
            "meld_owners": [1, 0, 1],
        }
    )
    return view


def open_crafted(page: Any, view: dict[str, Any]) -> None:
    open_table(page, view, ["Tess", "casual"], record_sent=True)


def sent(page: Any) -> list[dict[str, Any]]:
    """The actions the table sent (the page may send other messages meanwhile, such
    as its lobby subscription once the server's welcome arrives)."""
    result: list[dict[str, Any]] = page.evaluate(
        "window.__romme.sent.filter((m) => m.type === 'action')"
    )
    return result


def reset(page: Any) -> None:
    page.evaluate("window.__romme.sent = []; window.__rommeTable.state.busy = false")


def test_drop_targets(server: str, new_context: Any) -> None:
    page = new_context("targets")
    login_guest(page, server, "Tess")
    open_crafted(page, crafted_view())

    # 8H replaces the joker of 7H XX 9H.
    drag_to_point(page, "#hand-0", '#meld-0 [data-pos="1"]')
    assert [m["action"] for m in sent(page)] == [
        {"type": "exchange_joker", "card": "8H", "meld": 0, "index": 1}
    ]
    reset(page)

    # TD fits below JD QD KD: the low arrow shows; the high one does not (K is last but A
    # could follow: the ace of diamonds, not the ten).
    page.mouse.move(*_centre(page, "#hand-2"))
    page.mouse.down()
    page.mouse.move(400, 300, steps=4)
    assert page.locator("#meld-1 .meld-arrow.low").is_visible()
    assert not page.locator("#meld-1 .meld-arrow.high").is_visible()
    assert not page.locator("#meld-0 .meld-arrow.low").is_visible()
    shot(page, "drag-arrows")
    box = page.locator("#meld-1 .meld-arrow.low").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=4)
    # Over the arrow the dragged card turns see-through: the arrow stays visible.
    assert page.locator(".drag-ghost.over-target").count() == 1
    page.mouse.up()
    assert [m["action"] for m in sent(page)] == [
        {"type": "lay_off", "card": "TD", "meld": 1, "end": "low"}
    ]
    reset(page)

    # KS goes into the group of kings (one arrow, no end).
    drag_to_point(page, "#hand-3", "#meld-2 .meld-arrow.high")
    assert [m["action"] for m in sent(page)] == [
        {"type": "lay_off", "card": "KS", "meld": 2, "end": None}
    ]
    reset(page)

    # A joker is not discarded by a tap; a natural card is.
    page.click("#hand-1")
    assert sent(page) == []
    page.click("#hand-4")
    assert [m["action"] for m in sent(page)] == [{"type": "discard", "card": "4C"}]


def _centre(page: Any, selector: str) -> tuple[float, float]:
    from tests.web.ui import point

    return point(page, selector)


def test_lay_cards_follows_the_opening_rule(server: str, new_context: Any) -> None:
    page = new_context("lay")
    login_guest(page, server, "Luis")
    view = crafted_view()
    view.update(
        {
            "opened": [False, True],
            "hand": ["7C", "7D", "7H", "2S", "9C", "KD"],
            "hand_counts": [6, 9],
        }
    )
    open_crafted(page, view)
    # Three sevens are a meld (blue line) but only 21 points: "Lay cards" stays grey.
    assert page.locator("#hand .hand-card.in-meld").count() == 3
    assert page.locator("#lay-cards").is_disabled()
    assert "21/30" in page.inner_text("#lay-cards")

    view["hand"] = ["7C", "7D", "7H", "QH", "KH", "AH", "2S"]
    view["hand_counts"] = [7, 9]
    page.evaluate("window.__romme.openLobby()")
    page.wait_for_selector("#new-game")
    open_crafted(page, view)
    assert page.locator("#hand .hand-card.in-meld").count() == 6
    assert page.locator("#lay-cards").is_enabled()
    shot(page, "lay-cards")
    page.click("#lay-cards")
    assert [m["action"] for m in sent(page)] == [
        {"type": "lay", "melds": [["7C", "7D", "7H"], ["QH", "KH", "AH"]]}
    ]


def test_knock_takes_the_place_of_lay_cards(server: str, new_context: Any) -> None:
    page = new_context("knock")
    login_guest(page, server, "Klaus")
    view = crafted_view()
    view.update({"phase": "draw", "current": 1, "knock_seats": [0]})
    open_crafted(page, view)
    page.evaluate("""() => { const a = window.__romme; const t = a.tables.get(a.tableId);
        t.timer = {seat: 1, deadline: a.now() + 30000, seconds: 30,
                   knock: {seats: [0], deadline: a.now() + 20000}};
        window.__rommeTable.setTable(t, []); }""")
    page.wait_for_selector("#knock:visible")
    assert page.locator("#lay-cards").is_hidden()
    shot(page, "knock")
    page.click("#knock")
    assert [m["action"] for m in sent(page)] == [{"type": "knock"}]


def test_touch_drag_on_a_phone(server: str, new_context: Any) -> None:
    page = new_context(
        "touch", viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True
    )
    login_guest(page, server, "Tina")
    open_crafted(page, crafted_view())
    # A finger drags 8H onto the joker it replaces (pointer events of type touch).
    page.evaluate("""async () => {
        const src = document.getElementById('hand-0').getBoundingClientRect();
        const dst = document.querySelector('#meld-0 [data-pos="1"]');
        const opts = (x, y) => ({bubbles: true, cancelable: true, pointerId: 7, pointerType: 'touch',
                                 isPrimary: true, button: 0, buttons: 1, clientX: x, clientY: y});
        const x0 = src.left + src.width * 0.3, y0 = src.top + src.height * 0.5;
        const card = document.elementFromPoint(x0, y0);
        card.dispatchEvent(new PointerEvent('pointerdown', opts(x0, y0)));
        const pause = () => new Promise((r) => setTimeout(r, 16));
        for (let i = 1; i <= 6; i++) { window.dispatchEvent(new PointerEvent('pointermove', opts(x0 + i * 2, y0 - i * 4))); await pause(); }
        const r = dst.getBoundingClientRect();
        const x1 = r.left + r.width * 0.2, y1 = r.top + r.height * 0.4;
        window.dispatchEvent(new PointerEvent('pointermove', opts(x1, y1)));
        await pause();
        window.dispatchEvent(new PointerEvent('pointerup', opts(x1, y1)));
    }""")
    assert [m["action"] for m in sent(page)] == [
        {"type": "exchange_joker", "card": "8H", "meld": 0, "index": 1}
    ]


def test_a_lay_hint_arranges_the_melds(server: str, new_context: Any) -> None:
    page = new_context("hint-lay")
    login_guest(page, server, "Hilde")
    view = crafted_view()
    view.update(
        {
            "opened": [False, True],
            "hand": ["KH", "7C", "2S", "QH", "7D", "AH", "7H"],
            "hand_counts": [7, 9],
        }
    )
    open_crafted(page, view)
    assert page.locator("#lay-cards").is_disabled()
    page.evaluate("""window.__rommeTable.showHint({type: 'hint', reason: '',
        action: {type: 'lay', melds: [['7C', '7D', '7H'], ['QH', 'KH', 'AH']]}})""")
    assert page.locator("#lay-cards").is_enabled()
    assert page.locator("#hand .hand-card.in-meld").count() == 6
    assert sent(page)[-1]["action"] == {
        "type": "arrange",
        "cards": ["7C", "7D", "7H", "QH", "KH", "AH", "2S"],
    }
