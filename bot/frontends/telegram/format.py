"""The model's Markdown as the HTML subset Telegram renders; everything else is escaped."""

from __future__ import annotations

import html
import re

_CODE_BLOCK = re.compile(r"```([\w+-]*)\n?(.*?)(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} +(.+)$", re.MULTILINE)


def to_telegram_html(markdown: str) -> str:
    """Code blocks, inline code, bold, italics, links and headings become Telegram's tags; any
    other `<`, `>` and `&` is escaped. An unclosed code block (a reply still streaming) is
    shown as code so far."""
    parts: list[str] = []
    last = 0
    for block in _CODE_BLOCK.finditer(markdown):
        parts.append(_inline(markdown[last:block.start()]))
        language, code = block.group(1), html.escape(block.group(2).rstrip("\n"), quote=False)
        attribute = f' class="language-{language}"' if language else ""
        parts.append(f"<pre><code{attribute}>{code}</code></pre>")
        last = block.end()
    parts.append(_inline(markdown[last:]))
    return "".join(parts)


def _inline(text: str) -> str:
    # Inline code first, kept aside, so that nothing inside it is read as bold or a link.
    codes: list[str] = []

    def keep_code(match: re.Match[str]) -> str:
        codes.append(f"<code>{html.escape(match.group(1), quote=False)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    text = _INLINE_CODE.sub(keep_code, text)
    text = html.escape(text, quote=False)
    # The address is escaped already, with the rest of the text; only a quote would break out.
    text = _LINK.sub(lambda m: f'<a href="{m.group(2).replace(chr(34), "%22")}">{m.group(1)}</a>',
                     text)
    text = _HEADING.sub(r"<b>\1</b>", text)
    text = _BOLD.sub(r"<b>\1</b>", text)
    text = _ITALIC.sub(r"<i>\1</i>", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], text)
