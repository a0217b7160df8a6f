"""Fixing what the companion got wrong, before a message is answered: the one place for
`/correct`, `/wrong` and "No, that's wrong", from their grammar to what is answered instead.

- `/correct <feedback>`, or a message such as "No, I meant a synonym" (see
  `bot.core.corrections`), says how the user's last message was misread (MemPrompt's feedback):
  it is stored as a correction, and that message is answered again with it applied.
- `/wrong <n> [what is true]` names memory n of `/why` as wrong (TeachMe's user who spots the
  wrong belief in an explanation): the memory is retracted for this user (kept for audit, out of
  every later prompt), what is true is kept as a taught fact, and the last message is answered
  again. Right after `/why`, "No, that's wrong: ..." does the same for the one memory the reply
  cited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.corrections import Caught, Corrections
from bot.core.inbound import Incoming
from bot.core.teaching import Teaching, taught_note
from bot.errors import UserFacingError
from memory.lexical import straight_quotes
from memory.provenance import LastReply, ReplyUses
from memory.recall import Recaller
from memory.retraction import Retractions
from memory.types import Memory, Recall, Round, memory_text
from personas.loader import Persona

# The commands the dialogue answers (streamed like any reply), not the command layer: they
# change memories and answer a message again.
DIALOGUE_COMMANDS = frozenset({"correct", "wrong"})
_CORRECT = re.compile(r"^\s*/correct(?:@\S+)?(?:\s+(?P<feedback>.*))?$", re.I | re.S)
_WRONG = re.compile(r"^\s*/wrong(?:@\S+)?(?:\s+(?P<args>.*))?$", re.I | re.S)
_WRONG_ARGS = re.compile(r"^(?P<number>\d{1,4})\b[\s,:.-]*(?P<truth>.*)$", re.S)
_THATS_WRONG = re.compile(
    r"^\W*(?:(?:no|nope|nah)\b[\s,.!]*)?(?:that'?s|that is|you'?re|you are)\s+"
    r"(?:wrong|not true|not right|incorrect|mistaken)\b[\s,.:;!-]*(?P<truth>.*)$",
    re.I | re.S,
)

CORRECT_USAGE = ("Usage: /correct <what you meant>, about my last reply. "
                 "For example: /correct I wanted a synonym")
NOTHING_TO_CORRECT = "There is nothing to correct yet: /correct is about my last reply to you here."
PRIVATE_CORRECT = "For your privacy, /correct only works in a private chat with me."
WRONG_USAGE = ("Usage: /wrong <n> [what is true], where n numbers a memory under /why. "
               "For example: /wrong 2 My sister's name is Lea")
NO_REPLY_YET = "There is no reply of mine to fix yet: /why shows what my last reply used."
PRIVATE_WRONG = "For your privacy, /wrong only works in a private chat with me."
WHICH_IS_WRONG = ("Which memory is wrong? My reply did not rest on just one. Say /wrong <n> "
                  "<what is true>, with n from the list /why showed.")


@dataclass(frozen=True, slots=True)
class Wrong:
    """A memory said to be wrong (its number under `/why`; None: the one the reply cited) and
    what is true instead ("" when not said)."""

    number: int | None
    truth: str


def correction_command(text: str) -> str | None:
    """The feedback of a `/correct` command ("" when it has none); None for other messages."""
    match = _CORRECT.match(text)
    return None if match is None else (match["feedback"] or "").strip()


def wrong_command(text: str) -> Wrong | str | None:
    """A `/wrong` command, its usage line when it is malformed, or None for other messages."""
    match = _WRONG.match(text)
    if match is None:
        return None
    args = _WRONG_ARGS.match((match["args"] or "").strip())
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


@dataclass(frozen=True, slots=True)
class Correct:
    """`/correct <feedback>`, about the user's last exchange in this chat."""

    feedback: str


@dataclass(frozen=True, slots=True)
class Retract:
    """Memory `number` of the `last` reply is wrong; `truth` is what is true ("": not said)."""

    number: int
    truth: str
    last: LastReply


Fix = Correct | Retract


@dataclass(frozen=True, slots=True)
class Answer:
    """What a turn answers: the memories recalled for it, the message answered (after a fix,
    the one the fix is about), and what the reply opens with (what was noted)."""

    recall: Recall
    asked: str
    opening: str = ""


class Fixes:
    """Reads the fix a message asks for, and takes it."""

    def __init__(self, *, corrections: Corrections, retractions: Retractions,
                 teaching: Teaching, uses: ReplyUses, recall: Recaller) -> None:
        self._corrections = corrections
        self._retractions = retractions
        self._teaching = teaching
        self._uses = uses
        self._recall = recall

    async def read(self, incoming: Incoming, text: str) -> Fix | str | None:
        """The fix `text` asks for, a line that says why it cannot be taken, or None for a
        message that asks for none. Reads nothing for most messages."""
        feedback = correction_command(text)
        if feedback is not None:
            return await self._correct(incoming, feedback)
        wrong = wrong_command(text)
        last = None
        if wrong is None:  # "No, that's wrong" counts only right after /why
            wrong = thats_wrong(text) if incoming.private else None
            if wrong is None:
                return None
            last = await self._uses.last(incoming.user_id)
            if last is None or not last.explained:
                return None
        if isinstance(wrong, str):
            return wrong
        if not incoming.private:
            return PRIVATE_WRONG
        last = last or await self._uses.last(incoming.user_id)
        return NO_REPLY_YET if last is None else _retract(wrong, last)

    async def _correct(self, incoming: Incoming, feedback: str) -> Correct | str:
        if not incoming.private:
            return PRIVATE_CORRECT
        if not feedback:
            return CORRECT_USAGE
        previous = await self._corrections.previous_exchange(
            incoming.user_id, incoming.conversation, None)
        return NOTHING_TO_CORRECT if previous is None else Correct(feedback)

    async def take(self, round_: Round, fix: Fix | None, persona: Persona) -> Answer | None:
        """Take the fix the stored message asks for, or a correction it says in plain words;
        what to answer instead, or None when the message is answered as it is."""
        if isinstance(fix, Retract):
            return await self._retract(round_, fix, persona)
        explicit = fix.feedback if isinstance(fix, Correct) else None
        caught = await self._corrections.catch(round_, persona.name, explicit)
        if caught is None:
            return None
        recall = await self._recall.recall(round_.user_id, caught.original,
                                           domain=persona.domain, before_round=round_.id)
        return Answer(recall, caught.original, _noted(caught))

    async def _retract(self, round_: Round, fix: Retract, persona: Persona) -> Answer:
        """Retract the memory, keep what is true as a taught fact, and answer the last message
        again (TeachMe re-attempts the question)."""
        memory = fix.last.recall.numbered()[fix.number - 1]
        retracted = await self._retractions.retract(round_.user_id, memory)
        lines = [f"Noted: memory {fix.number} (\"{described(memory)}\") is wrong; "
                 + (f"I won't use it again (to undo: /memories restore {memory.id[:8]})."
                    if retracted else
                    "I can't take it back (it is gone, or someone else's), but I'll follow you.")]
        if fix.truth:
            try:
                fact = await self._teaching.teach(round_.user_id, fix.truth, round_.id)
                lines.append(taught_note(fact))
            except UserFacingError as error:
                lines.append(str(error))
        asked = fix.last.asked
        recall = await self._recall.recall(round_.user_id, asked, domain=persona.domain,
                                           before_round=round_.id)
        return Answer(recall, asked, "\n".join(lines) + " Let me answer again:\n\n")


def _retract(wrong: Wrong, last: LastReply) -> Retract | str:
    """The memory of `last` that `wrong` names, or why it names none."""
    numbered = last.recall.numbered()
    if wrong.number is None:  # "that's wrong": the one memory the reply relied on
        if len(last.cited) != 1:
            return WHICH_IS_WRONG
        return Retract(last.cited[0], wrong.truth, last)
    if not 1 <= wrong.number <= len(numbered):
        return (f"There is no memory {wrong.number} under /why"
                + (f": they go from 1 to {len(numbered)}." if numbered else
                   ": my last reply used no memories."))
    return Retract(wrong.number, wrong.truth, last)


def described(memory: Memory) -> str:
    """A memory in a line that says which one was retracted."""
    text = memory_text(memory)
    return text if len(text) <= 80 else text[:79] + "…"


def _noted(caught: Caught) -> str:
    original = caught.original if len(caught.original) <= 80 else caught.original[:79] + "…"
    return (f"Noted: \"{caught.feedback.feedback}\" (about \"{original}\"). "
            "I'll remember that. Let me answer again:\n\n")
