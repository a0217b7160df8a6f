"""A scripted-LLM responder for feedback tests: a model that misreads "similar to"."""

from __future__ import annotations

import re
from typing import Any


def misreading_reader(body: dict[str, Any]) -> str:
    """Reads "similar to" as "sounds like" unless its prompt holds a clarification, and says
    yes when asked whether a message starting with "No" is a correction."""
    question = body["messages"][-1]["content"]
    if question.startswith("Decide whether a chat message corrects"):
        return "yes" if re.search(r"^Message: No\b", question, re.M) else "no"
    word = question.rstrip("?").split()[-1]
    if "clarification:" in body["messages"][0]["content"]:
        return f"Understanding: you want a synonym of {word}.\nFine."
    return f"Understanding: you want a word that sounds like {word}.\nWood."
