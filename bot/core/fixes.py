"""Fixing a belief: `/wrong <n> [what is true]` names memory n of `/why` as wrong (TeachMe's user
who spots the wrong belief in an explanation). The memory is retracted for this user: kept for
audit, out of every later prompt. What is true is stored as a taught fact, and the last message
is answered again with it. Right after `/why`, "No, that's wrong: ..." does the same for the one
memory the reply cited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.lexical import straight_quotes
from memory.types import Memory, memory_text

COMMAND = re.compile(r"^\s*/wrong(?:@\S+)?(?:\s+(?P<args>.*))?$", re.I | re.S)
_ARGS = re.compile(r"^(?P<number>\d{1,4})\b[\s,:.-]*(?P<truth>.*)$", re.S)
_THATS_WRONG = re.compile(
    r"^\W*(?:(?:no|nope|nah)\b[\s,.!]*)?(?:that'?s|that is|you'?re|you are)\s+"
    r"(?:wrong|not true|not right|incorrect|mistaken)\b[\s,.:;!-]*(?P<truth>.*)$",
    re.I | re.S,
)
WRONG_USAGE = ("Usage: /wrong <n> [what is true], where n numbers a memory under /why. "
               "For example: /wrong 2 My sister's name is Lea")
NO_REPLY_YET = "There is no reply of mine to fix yet: /why shows what my last reply used."


@dataclass(frozen=True, slots=True)
class Wrong:
    """A memory said to be wrong (its number under `/why`; None: the one the reply cited) and
    what is true instead ("" when not said)."""

    number: int | None
    truth: str


def wrong_command(text: str) -> Wrong | str | None:
    """A `/wrong` command, its usage line when it is malformed, or None for other messages."""
    match = COMMAND.match(text)
    if match is None:
        return None
    args = _ARGS.match((match["args"] or "").strip())
    if args is None:
        return WRONG_USAGE
    return Wrong(int(args["number"]), args["truth"].strip())


def thats_wrong(text: str) -> Wrong | None:
    """ "No, that's wrong: my sister is Lea" (said right after `/why`); never a question."""
    text = straight_quotes(text)
    match = _THATS_WRONG.match(text)
    if match is None or text.rstrip().endswith("?"):
        return None
    return Wrong(None, match["truth"].strip())



def described(memory: Memory) -> str:
    """A memory in a line that says which one was retracted."""
    text = memory_text(memory)
    return text if len(text) <= 80 else text[:79] + "…"
