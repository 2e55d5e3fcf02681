"""The analysis marks in Chromium: the page's own replay/marks.js renders the
marks of a real analysis (a game played by a casual computer opponent in the
seat analysed, judged by romme.bots.analysis exactly as the server does) in each
of the five languages, with the cards of each mark and no missing text."""

from __future__ import annotations

from typing import Any

from romme.bots.analysis import REASONS, analyse_game, bot_game, decisions
from romme.engine.rules import Rules
from tests.web.test_i18n import LANGS, catalog

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def short(code: str) -> str:
    """As cards.js cardShort writes a card ("10♥", "★")."""
    if code == "XX":
        return "★"
    return ("10" if code[0] == "T" else code[0]) + SYMBOLS[code[1]]


def analysed_game(seed: int) -> dict[str, Any]:
    """A one-round game of a casual seat 0 against a strong seat 1, and seat 0's
    analysis as ``GET /api/games/{id}/analysis`` answers it."""
    log = bot_game(Rules.classic(point_limit=1), ("casual", "strong"), seed)
    marks = [m.to_json() for m in analyse_game(log, {0})]
    return {
        "game": seed,
        "status": "done",
        "seats": [0],
        "decisions": len(decisions(log, {0})),
        "marks": marks,
    }


_RENDER = """async ({ langs, analyses }) => {
  const i18n = await import('/js/i18n.js');
  const marks = await import('/js/replay/marks.js');
  const out = {};
  for (const lang of langs) {
    await i18n.setLanguage(lang, { save: false });
    out[lang] = analyses.map((analysis) => ({
      moves: marks.markedMoves(analysis),
      status: marks.analysisStatus(analysis),
      rendered: marks.markedMoves(analysis).map((move) => marks.renderMarks(analysis, move).map((el) => ({
        cls: el.className, move: el.dataset.move, seat: el.dataset.seat,
        severity: el.querySelector('.analysis-severity')?.textContent,
        text: el.querySelector('.analysis-text')?.textContent,
        cost: el.querySelector('.analysis-cost')?.textContent ?? '',
        all: el.textContent,
      }))),
      nothing: marks.renderMarks(analysis, -1).length,
    }));
  }
  out.missing = [...i18n.missing];
  await i18n.setLanguage('en', { save: false });
  out.none = marks.analysisStatus({ game: 1, status: 'done', marks: [] });
  out.pending = marks.analysisStatus({ game: 1, status: 'pending' });
  return out;
}"""


def test_every_reason_has_a_text_in_every_language() -> None:
    for lang in LANGS:
        texts = catalog(lang)
        for reason in REASONS:
            assert f"analysis.reason.{reason}" in texts, (lang, reason)


def test_marks_of_a_real_analysis_render_in_five_languages(server: str, new_context: Any) -> None:
    analyses = [analysed_game(0), analysed_game(2)]
    all_marks = [m for a in analyses for m in a["marks"]]
    assert len(all_marks) >= 2, "these games are chosen for their marks"
    page = new_context("analysis-marks")
    page.goto(server)
    page.wait_for_selector("#entry-submit")
    got = page.evaluate(_RENDER, {"langs": LANGS, "analyses": analyses})
    assert got["missing"] == []
    for lang in LANGS:
        texts = catalog(lang)
        for analysis, shown in zip(analyses, got[lang], strict=True):
            assert shown["moves"] == sorted({m["move"] for m in analysis["marks"]})
            assert shown["nothing"] == 0 and shown["status"] is None
            rendered = [box for boxes in shown["rendered"] for box in boxes]
            assert len(rendered) == len(analysis["marks"])
            for mark, box in zip(analysis["marks"], rendered, strict=True):
                assert box["cls"] == f"analysis-mark {mark['severity']}"
                assert (box["move"], box["seat"]) == (str(mark["move"]), str(mark["seat"]))
                assert box["severity"] == texts[f"analysis.severity.{mark['severity']}"]
                params = mark["params"]
                for key in ("card", "instead"):
                    if params.get(key):
                        assert short(params[key]) in box["text"], (lang, mark, box)
                for code in params.get("meld", []):
                    assert short(code) in box["text"]
                assert "{" not in box["all"] and "analysis." not in box["all"]
                if round(mark["penalty"]) >= 1:
                    assert str(round(mark["penalty"])) in box["cost"]
    # The same mark reads differently in each language.
    first = [got[lang][0]["rendered"][0][0]["text"] for lang in LANGS]
    assert len(set(first)) == len(LANGS)
    assert got["none"] == catalog("en")["analysis.none"]
    assert got["pending"] == catalog("en")["analysis.pending"]
