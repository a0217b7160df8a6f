"""Markdown from the model becomes Telegram HTML that Telegram accepts."""

from __future__ import annotations

from bot.frontends.telegram.format import to_telegram_html as _convert
from tests.fakes.telegram_server import parse_html


def to_telegram_html(markdown: str) -> str:
    """The conversion, checked to be HTML that Telegram's parser (as faked) accepts."""
    converted = _convert(markdown)
    parse_html(converted)
    return converted


def test_plain_text_with_html_characters_is_escaped() -> None:
    assert to_telegram_html("1 < 2 & 3 > 2 <b>") == "1 &lt; 2 &amp; 3 &gt; 2 &lt;b&gt;"


def test_bold_italic_code_links_and_headings() -> None:
    text = "## Plan\n**Swim** at *dawn*, run `make <x>` and see [docs](https://example.com/a?b=1&c=2)"
    assert to_telegram_html(text) == (
        "<b>Plan</b>\n<b>Swim</b> at <i>dawn</i>, run <code>make &lt;x&gt;</code> and see "
        '<a href="https://example.com/a?b=1&amp;c=2">docs</a>'
    )


def test_code_blocks_keep_their_language_and_nothing_inside_is_formatted() -> None:
    text = "Try:\n```python\nx = a**2 * b**2  # <ok>\n```\nDone."
    assert to_telegram_html(text) == (
        'Try:\n<pre><code class="language-python">x = a**2 * b**2  # &lt;ok&gt;</code></pre>'
        "\nDone."
    )


def test_an_unclosed_code_block_while_streaming_is_still_code() -> None:
    assert to_telegram_html("```\nfor i in x:") == "<pre><code>for i in x:</code></pre>"


def test_stray_markers_stay_as_they_are() -> None:
    assert to_telegram_html("2 * 3 * 4 and snake_case_name **") == (
        "2 * 3 * 4 and snake_case_name **"
    )
