"""Every button label fits its button, and every shortened label (text-overflow:
ellipsis, such as the timer's and the computer seats' names) shows whole, at 360 px
and at 1366 px wide, in every language, on the real page: the entry form, the lobby,
the "New game" and player info dialogs, a waiting room, a table with its dialogs and
the round summary. Screenshots of the table and the summary in each language go to
test-artifacts/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.conftest import shot
from tests.web.test_i18n import LANGS, catalog, missing, switch
from tests.web.test_summary import over_the_limit, round_over_view, show
from tests.web.ui import login_guest, open_own_info

WIDE = {"width": 1366, "height": 800}
NARROW = {"width": 360, "height": 740}
LEVELS = ["beginner", "casual", "strong", "expert"]

# Labels that do not fit: the button's (or the shortened element's) own text is wider
# than its box, runs outside the button or wraps onto a second line, or the button
# sticks out of the screen. Icon
# buttons (×, ☰), the player list and the chat (people's names and words, shortened on
# purpose) are left out; the players here have short names, so a seat's name that is
# shortened is a computer's, from the catalog.
_MEASURE = """() => {
  const found = [];
  const width = document.documentElement.clientWidth;
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true })
      && r.right > 0 && r.left < width;
  };
  // A text that breaks over lines has line boxes one below the other.
  const wraps = (el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      if (rects.some((r) => r.top >= rects[0].bottom - 1)) return true;
    }
    return false;
  };
  const worded = (el) => /\\p{L}/u.test(el.textContent);
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')} "${el.textContent.trim()}"`;
  for (const el of document.querySelectorAll('button, [role=tab]')) {
    if (!shown(el) || !worded(el) || el.closest('.player-link, .chat-log')) continue;
    const box = el.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(el);
    const text = range.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1) found.push(`${name(el)}: text ${el.scrollWidth} px in ${el.clientWidth} px`);
    else if (text.left < box.left - 1 || text.right > box.right + 1 || text.top < box.top - 1 || text.bottom > box.bottom + 1)
      found.push(`${name(el)}: text runs out of the button`);
    else if (wraps(el)) found.push(`${name(el)}: the label wraps onto two lines`);
    if (box.left < -1 || box.right > width + 1) found.push(`${name(el)}: off the screen (${Math.round(box.left)}..${Math.round(box.right)} of ${width})`);
  }
  for (const el of document.querySelectorAll('*')) {
    if (getComputedStyle(el).textOverflow !== 'ellipsis' || !shown(el) || !worded(el)) continue;
    if (el.closest('.player-link, .chat-log')) continue;
    // The browser shortens a text that is a fraction of a pixel too wide: measure exactly.
    const range = document.createRange();
    range.selectNodeContents(el);
    const style = getComputedStyle(el);
    const room = el.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
      - parseFloat(style.borderLeftWidth) - parseFloat(style.borderRightWidth);
    const text = range.getBoundingClientRect().width;
    if (text > room + 0.01) found.push(`${name(el)}: shortened, ${text.toFixed(2)} px in ${room.toFixed(2)} px`);
  }
  return found;
}"""


class Fit:
    """Measures the page in every language at both widths and collects what does not fit."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.problems: list[str] = []

    def check(
        self,
        screen: str,
        show_screen: Callable[[], Any] = lambda: None,
        close: Callable[[], Any] = lambda: None,
    ) -> None:
        for size in (WIDE, NARROW):
            self.page.set_viewport_size(size)
            for lang in LANGS:
                switch(self.page, lang)
                show_screen()
                self.page.wait_for_timeout(60)
                found = self.page.evaluate(_MEASURE)
                self.problems += [f"{screen} {lang} {size['width']} px: {p}" for p in found]
                assert missing(self.page) == [], f"{screen} in {lang}"
                close()
        self.page.set_viewport_size(WIDE)


def escape(page: Any) -> Callable[[], None]:
    return lambda: page.keyboard.press("Escape")


def open_from_side(page: Any, side: Callable[[bool], None], button: str) -> Callable[[], None]:
    """Open the side panel, then the dialog behind ``button``."""

    def show() -> None:
        side(True)
        page.click(button)
        page.wait_for_selector(".dialog")

    return show


def close_to_side(page: Any, side: Callable[[bool], None]) -> Callable[[], None]:
    """Close the dialog, then the side panel."""

    def close() -> None:
        page.keyboard.press("Escape")
        side(False)

    return close


def test_every_label_fits_in_every_language(server: str, new_context: Any) -> None:
    page = new_context("fit", viewport=WIDE)
    fit = Fit(page)
    page.goto(server)
    page.wait_for_selector("#entry-submit")
    fit.check("entry (guest)")
    fit.check("entry (register)", lambda: page.click("#entry-tab-register"))
    page.click("#entry-tab-guest")
    login_guest(page, server, "Breite")
    fit.check("lobby")
    fit.check("new game", lambda: page.click("#new-game"), escape(page))
    fit.check(
        "player info",
        lambda: open_own_info(page, "Breite"),
        escape(page),
    )

    # The waiting room of the host of a table for two people.
    page.click("#new-game")
    page.select_option("#ng-seat-1", "human")
    page.click("#ng-create")
    page.wait_for_selector("#waiting:visible")
    fit.check("waiting room")
    page.click("#waiting button.ghost")
    page.wait_for_selector("#new-game")

    # A game against three computer players (their names at the table are set to the
    # three longest of the language shown).
    page.click("#new-game")
    page.select_option("#ng-opponents", "3")
    for seat, level in ((1, "beginner"), (2, "casual"), (3, "strong")):
        page.select_option(f"#ng-seat-{seat}", level)
    page.select_option("#ng-turn", "120")
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card")

    def side(open_: bool) -> None:
        if page.viewport_size["width"] < 760 and open_ != page.evaluate(
            "() => document.body.classList.contains('side-open')"
        ):
            page.click("#side-toggle" if open_ else "#side .side-close")
            page.wait_for_timeout(300)

    def longest_seat_names() -> None:
        """The three computer levels whose names are longest in the language shown."""
        names = catalog(page.evaluate("() => document.documentElement.lang"))
        levels = sorted(LEVELS, key=lambda level: len(names[f"bot.{level}"]), reverse=True)[:3]
        page.evaluate(
            """(levels) => { const app = window.__romme; const table = app.tables.get(app.tableId);
                 levels.forEach((level, i) => { table.seats[i + 1].bot = level; });
                 window.__rommeTable.render([]); }""",
            levels,
        )
        assert names[f"bot.{levels[0]}"] in page.inner_text("#opponents")

    fit.check("table", longest_seat_names)
    fit.check("table side panel", lambda: side(True), lambda: side(False))
    for button, screen in (("#leave", "leave dialog"), ("#player-info", "player info")):
        fit.check(screen, open_from_side(page, side, button), close_to_side(page, side))
    fit.check(
        "keyboard help",
        lambda: (
            page.locator("body").focus(),
            page.keyboard.press("?"),
            page.wait_for_selector(".keys"),
        ),
        escape(page),
    )
    for lang in LANGS:
        switch(page, lang)
        shot(page, f"i18n-table-{lang}")
    page.set_viewport_size(NARROW)
    for lang in LANGS:
        switch(page, lang)
        shot(page, f"i18n-table-{lang}-phone")
    page.set_viewport_size(WIDE)

    # The round summary: one still in the game ("Next") and one over the limit ("Exit").
    view = round_over_view()
    page.evaluate("window.__romme.openLobby()")
    page.wait_for_selector("#new-game")
    show(page, view, 9101)
    fit.check("summary")
    for lang in LANGS:
        switch(page, lang)
        shot(page, f"i18n-summary-{lang}")
    page.evaluate("window.__romme.openLobby()")
    page.wait_for_selector("#new-game")
    show(page, over_the_limit(view), 9102)
    fit.check("summary (out of the game)")
    page.set_viewport_size(NARROW)
    for lang in LANGS:
        switch(page, lang)
        shot(page, f"i18n-summary-{lang}-phone")

    assert fit.problems == [], "\n".join(fit.problems)
