"""A model's Markdown answer in a real JupyterLab (issue #35, points 2 and 3): rendered, not
shown escaped, in the ``%%ask`` output and in the widget, with its citations in their line
(the text after one goes on beside it), and a paraphrase badged "sources verified, wording
not quoted (STRICT)" in both faces. Screenshots in every theme (ARBORIST_SHOTS)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import Lab, shoot
from tests.browser.contrast import CONTRAST_JS
from tests.browser.test_lab import RENDER_MS, forest_in
from tests.browser.test_widget_look import THEMES, set_theme

pytestmark = pytest.mark.browser

DOCUMENT = """# Median notes

The median function returns the middle value of the data, and raises StatisticsError when
the data is empty.
"""
# What a chat model writes: Markdown, its citation mid-sentence.
ANSWER = (
    "The `median()` function returns **the middle value** [E1] of the data, *sorted*.\\n\\n"
    "- an empty list raises `StatisticsError` [E1]\\n"
    "- see [the docs](https://docs.python.org/3/library/statistics.html)\\n\\n"
    "```python\\nmedian([1, 3, 5])  # 3\\n```"
)
CELLS = [
    "%arborist ingest median.md",
    "%%ask --llm writer\nWhat does the median function return?",
    "%arborist",
]
UNQUOTED = "sources verified, wording not quoted (STRICT)"

# The height of the line box a citation sits in, against the paragraph's line height: one
# line when the citation is inline, two or more when it is laid out as a block.
_LINES = """(cite) => {
    const para = cite.parentElement;
    const line = parseFloat(getComputedStyle(para).lineHeight) || 20;
    return Math.round(para.getBoundingClientRect().height / line);
}"""


# A code span's box (background, padding) and its text's contrast on it, as the page draws it.
_CODE_LOOK = (
    "(code) => {"
    + CONTRAST_JS
    + """
    const style = getComputedStyle(code);
    return {
        background: style.backgroundColor,
        padding: [style.paddingTop, style.paddingRight, style.paddingBottom, style.paddingLeft].join(' '),
        contrast: contrast(code),
    };
}"""
)


def _code_spans_alike(ask_code: Locator, widget_code: Locator, theme: str) -> None:
    """Issue #35: a code span is the same grey box in the widget as in the %%ask output,
    its text at 4.5:1 or more on it."""
    ask, widget = ask_code.evaluate(_CODE_LOOK), widget_code.evaluate(_CODE_LOOK)
    assert ask["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), (theme, ask)
    assert widget["background"] == ask["background"], (theme, ask, widget)
    assert widget["padding"] == ask["padding"], (theme, ask, widget)
    assert widget["contrast"] >= 4.5, (theme, widget)
    assert ask["contrast"] >= 4.5, (theme, ask)


def _one_line(citation: Locator, what: str) -> None:
    lines = citation.evaluate(_LINES)
    assert lines == 1, f"{what}: the paragraph around the citation takes {lines} lines"


def test_a_models_markdown_renders_with_its_citations_inline(lab: Lab) -> None:
    (lab.server.root / "median.md").write_text(DOCUMENT, encoding="utf-8")
    home = lab.server.homes / "model-markdown"  # the notebook's (test_lab has a markdown.ipynb)
    home.mkdir()
    (home / "config.toml").write_text(
        f'[models.writer]\nprovider = "stub"\ntext = "{ANSWER}"\n', encoding="utf-8"
    )
    lab.page.set_viewport_size({"width": 1400, "height": 1000})
    lab.open(lab.server.write_notebook("model-markdown.ipynb", CELLS))
    lab.run_all(len(CELLS) + 1)

    answer = lab.cell(2).locator(".arborist-answer")
    expect(answer, "the answer renders").to_have_attribute(
        "data-bates", re.compile(r"-\d{6}$"), timeout=RENDER_MS
    )
    expect(answer.locator("code").first).to_have_text("median()")
    expect(answer.locator("strong").first).to_have_text("the middle value")
    expect(answer.locator("em").first).to_have_text("sorted")
    expect(answer.locator("li")).to_have_count(2)
    expect(answer.locator("pre code").first).to_contain_text("median([1, 3, 5])")
    link = answer.locator("a[href='https://docs.python.org/3/library/statistics.html']")
    expect(link).to_have_text("the docs")
    expect(answer, "no Markdown left as characters").not_to_contain_text("**")
    _one_line(answer.locator("details.arborist-cite").first, "%%ask")
    expect(answer.locator(".arborist-status")).to_contain_text(UNQUOTED)

    forest, _tree = forest_in(lab, 3)
    detail = forest.get_by_role("region", name="Node detail")
    said = detail.get_by_label("Answer", exact=True)
    expect(said.locator("strong").first).to_have_text("the middle value", timeout=RENDER_MS)
    expect(said.locator("li")).to_have_count(2)
    expect(said.locator("pre code")).to_contain_text("median([1, 3, 5])")
    expect(said).not_to_contain_text("**")
    _one_line(said.locator("button.arb-cite").first, "widget")
    badge = detail.locator(".arb-audit")
    expect(badge, "the widget's words are %%ask's").to_have_text(UNQUOTED)
    # The paraphrase's cited row says its source was verified, not a quote (issue #35), in
    # both faces.
    row = detail.get_by_label("Proof of E1", exact=True)
    expect(row).to_have_text("✓ sources verified, wording not quoted", timeout=RENDER_MS)
    expect(answer.locator("details[data-proof] .arborist-row-check")).to_have_text(
        ["sources verified, wording not quoted"]
    )
    said.locator("button.arb-cite").first.click()
    expect(
        detail.get_by_label("Cited text", exact=True), "a citation opens its evidence"
    ).to_be_visible()
    for theme in THEMES:
        set_theme(lab, theme)
        slug = theme.lower().replace(" ", "-")
        _code_spans_alike(
            answer.locator(".arborist-md :not(pre) > code").first,
            said.locator("code.arb-literal").first,
            theme,
        )
        shoot(lab.cell(2), f"markdown-ask-{slug}")
        shoot(detail, f"markdown-widget-{slug}")
    lab.guard.assert_clean()
