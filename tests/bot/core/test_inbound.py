"""Bad input: empty or over-long messages are refused; control characters are stripped."""

import pytest

from bot.core.inbound import clean_message
from bot.errors import InputRejected


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n", "\x00\x1b"])
def test_empty_messages_are_refused_with_a_hint(text: str) -> None:
    with pytest.raises(InputRejected, match="empty"):
        clean_message(text, 100)


def test_over_long_messages_are_refused_naming_the_limit() -> None:
    with pytest.raises(InputRejected, match=r"101 characters long; the limit is 100"):
        clean_message("x" * 101, 100)
    assert clean_message("x" * 100, 100) == "x" * 100


def test_control_characters_are_stripped_but_newline_and_tab_kept() -> None:
    assert clean_message("a\x00b\x1b[31mc\r\nd\te\x7f", 100) == "ab[31mc\nd\te"


def test_any_unicode_passes_unchanged() -> None:
    text = "héllo 👩‍👩‍👧 مرحبا 你好 e\u0301 \u200fRTL mark"
    assert clean_message(text, 100) == text


def test_lone_surrogates_are_removed() -> None:
    assert clean_message("ok\udc80!", 100) == "ok!"
