"""Stored text as data in a prompt: quoted, and set apart in blocks, so that nothing a person or
a model once wrote can end its quote, or its section, and pass for an instruction."""

from __future__ import annotations

import json

RULE = "====="


def quoted(text: str) -> str:
    """Text as data in a prompt: in double quotes, with its own quotes and line breaks escaped,
    so that no stored text can end its quote, or its section, and pass for an instruction."""
    return json.dumps(text, ensure_ascii=False)


def block(body: str) -> str:
    """A section of a prompt between two rules."""
    return f"{RULE}\n{body}\n{RULE}"
