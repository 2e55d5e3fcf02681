"""The pot line of a staked table's waiting room is readable on the felt: axe-core's
color-contrast rule (WCAG AA) passes on it."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import shot
from tests.web.test_screens import AXE
from tests.web.ui import login_guest, open_table

_CONTRAST = """async () => {
  const result = await window.axe.run('#table-pot', { runOnly: ['color-contrast'] });
  const fmt = (list) => list.map((v) => v.nodes.map((n) => n.failureSummary || n.any.map((a) => a.message).join('; ')).join(' | '));
  return { passes: result.passes.length, violations: fmt(result.violations), incomplete: fmt(result.incomplete) };
}"""


def test_the_pot_line_is_readable_on_the_felt(server: str, browser: Any, page_errors: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1366, "height": 800}, locale="en-US")
    ctx.add_init_script(path=str(AXE))
    try:
        page = page_errors.watch(ctx.new_page(), "pot")
        login_guest(page, server, "Potter")
        table = {
            "status": "waiting",
            "settings": {
                "preset": "classic",
                "point_limit": 100,
                "seats": 2,
                "turn_seconds": 60,
                "stake": 500,
            },
            "operating_cost": {"percent": 5, "amount": 50},
        }
        open_table(page, None, ["Potter", "casual"], table_id=9401, wait="#table-pot", extra=table)
        assert "1,000" in page.inner_text("#table-pot")
        result = page.evaluate(_CONTRAST)
        shot(page, "pot-contrast")
        assert result["violations"] == [] and result["incomplete"] == [], result
        assert result["passes"] == 1, result
    finally:
        ctx.close()
