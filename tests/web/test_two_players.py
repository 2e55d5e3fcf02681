"""Two people in two browser contexts: an invite-only table, an invitation
accepted, table chat both ways (typed and a quick phrase), the table's log among
the chat's lines, and a reload in the middle of a turn after which the game
simply goes on."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import shot
from tests.web.ui import drag_to_point, hand_in_dom, login_guest, view, wait_for

# Whether the connection banner was on screen at any moment since this ran.
_NOTE_BANNER = """() => {
  const banner = document.getElementById('conn-banner');
  window.__bannerShown = false;
  new MutationObserver(() => {
    if (!banner.hidden) window.__bannerShown = true;
  }).observe(banner, { attributes: true, attributeFilter: ['hidden'] });
}"""


def test_invite_chat_and_reload(server: str, new_context: Any) -> None:
    host = new_context("host")
    guest = new_context("guest")
    login_guest(host, server, "Hedda")
    login_guest(guest, server, "Gustav")
    host.wait_for_selector("#player-list li:has-text('Gustav')")

    # The lobby chat reaches everyone online.
    host.fill("#lobby-chat-input", "Wer spielt mit?")
    host.press("#lobby-chat-input", "Enter")
    guest.wait_for_selector("#lobby-chat-log li:has-text('Wer spielt mit?')")

    # The host opens an invite-only table for two people.
    host.click("#new-game")
    host.select_option("#ng-opponents", "1")
    host.select_option("#ng-seat-1", "human")
    host.check("#new-game-form input[name=access][value=invite]")
    host.select_option("#ng-turn", "60")
    host.click("#ng-create")
    host.wait_for_selector("#waiting")
    wait_for(host, lambda: host.locator("#waiting").is_visible(), what="the waiting room")

    # Nobody else sees an invite-only table; the host invites Gustav.
    assert guest.locator("#table-list [data-join]").count() == 0
    host.click("#invite")
    host.click("[data-invite='Gustav']")
    host.keyboard.press("Escape")

    # Gustav gets the invitation in the lobby and accepts it.
    guest.wait_for_selector("#invitations [data-accept]")
    shot(guest, "lobby-invitation")
    guest.click("#invitations [data-accept]")
    guest.wait_for_selector("#waiting")

    # Both seats are taken: the host starts.
    host.wait_for_selector("#start-game:enabled")
    host.click("#start-game")
    host.wait_for_selector("#hand .hand-card")
    guest.wait_for_selector("#hand .hand-card")

    # Table chat, both ways, shown as plain text.
    host.fill("#table-chat-input", "Viel Glück! <b>hi</b>")
    host.press("#table-chat-input", "Enter")
    guest.wait_for_selector("#table-chat-log li:has-text('Viel Glück!')")
    assert guest.locator("#table-chat-log b").count() == 0
    guest.fill("#table-chat-input", "Danke, dir auch")
    guest.click("#side button[type=submit]")
    host.wait_for_selector("#table-chat-log li:has-text('Danke, dir auch')")
    # A quick phrase is a chat line with one click.
    guest.click("#side [data-phrase='chat.phrase_luck']")
    host.wait_for_selector("#table-chat-log li:not(.note):has-text('Gustav: Good luck!')")
    # The table's log tells who sat down and when the round began, apart from the chat.
    host.wait_for_selector("#table-chat-log li.note-seat:has-text('Gustav took a seat')")
    host.wait_for_selector("#table-chat-log li.note-round:has-text('Round 1')")

    # Seat 0 (the host) begins: draw, then reload in the middle of the turn.
    v = view(host)
    assert v is not None and v["current"] == v["seat"] == 0 and v["phase"] == "draw"
    host.click("#stock")
    wait_for(host, lambda: (view(host) or {}).get("phase") == "play", what="the draw")
    hand_before = (view(host) or {})["hand"]
    host.reload()
    host.wait_for_selector("#hand .hand-card")
    wait_for(
        host,
        lambda: (view(host) or {}).get("hand") == hand_before,
        what="the same hand after reload",
    )
    assert host.locator("#turn-status .exclaim").count() == 1
    host.wait_for_selector("#table-chat-log li:has-text('Danke, dir auch')")
    # The round's moves so far are in the log again after the reload.
    host.wait_for_selector("#table-chat-log li.note:has-text('Hedda drew from the stock')")

    # A network loss: the socket drops, the page reconnects by itself. The page
    # notes when the banner shows (on a busy machine it may come and go between two
    # looks from here).
    host.evaluate(_NOTE_BANNER)
    host.evaluate("window.__romme.conn.socket.close(4000)")
    wait_for(host, lambda: host.evaluate("window.__bannerShown"), what="the banner")
    host.wait_for_selector("#conn-banner", state="hidden")
    wait_for(
        host,
        lambda: (view(host) or {}).get("hand") == hand_before,
        what="the hand after reconnecting",
    )

    # ... and plays on: discard by drag, then it is Gustav's turn.
    drag_to_point(host, f"#hand-{len(hand_before) - 1}", "#discard")
    wait_for(guest, lambda: (view(guest) or {}).get("current") == 1, what="Gustav's turn")
    guest.wait_for_selector("#stock.can")
    guest.click("#stock")
    wait_for(guest, lambda: (view(guest) or {}).get("phase") == "play", what="Gustav's draw")
    shot(guest, "table-two-players")
    discarded = hand_in_dom(guest)[0]
    drag_to_point(guest, "#hand-0", "#discard")
    wait_for(host, lambda: (view(host) or {}).get("current") == 0, what="the host's turn again")
    # The opponent's moves appear in the host's log as they happen.
    host.wait_for_selector("#table-chat-log li.note:has-text('Gustav drew from the stock')")
    told = host.locator("#table-chat-log li.note:has-text('Gustav discarded')").inner_text()
    short = host.evaluate("(c) => import('./js/cards.js').then((m) => m.cardShort(c))", discarded)
    assert told.endswith(f"Gustav discarded {short}"), told
    assert host.locator("#seat-1 .turn-arrow").count() == 0
    assert host.locator("#turn-status .exclaim").count() == 1
