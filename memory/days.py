"""How memories are dated wherever a person or a model reads them."""

from __future__ import annotations

import re
from datetime import date, datetime


def day(when: date | datetime) -> str:
    """`8 May 2023`: how the prompt, the topics' sentences, `/why` and `/memories` date things."""
    return f"{when.day} {when:%B %Y}"


# "(8 May 2023) ": the day a topic's sentence was said, before it.
DATED = re.compile(r"\(\d{1,2} [A-Z][a-z]+ \d{4}\) ")


def undated(text: str) -> str:
    """The text without the days before its sentences."""
    return DATED.sub("", text)
