"""Teaching: facts a user tells the companion on purpose (TeachMe's memory of user-supplied facts).

`/teach <fact>`, or a private message such as "Remember that my sister's name is Lea" or "Just so
you know, I'm vegetarian now", is stored as a taught fact: dated, the highest trust, never merged
away. A message that only may be teaching ("Actually, I moved to Berlin in May") is put to a
capable model as a yes/no question; the bundled demo model never judges, so it is left alone.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from bot.errors import ModelUnavailable, UserFacingError
from memory.facts.store import FactStore
from memory.lexical import STOP_WORDS, straight_quotes
from memory.model_calls import model_says_yes
from memory.protocols import ChatModel
from memory.types import Fact, Origin, Round, Speaker
from memory.words import words

log = logging.getLogger(__name__)

COMMAND = re.compile(r"^\s*/teach(?:@\S+)?(?:\s+(?P<fact>.*))?$", re.I | re.S)
TEACH_USAGE = ("Usage: /teach <a fact about you>, for example: /teach My sister's name is Lea. "
               "I will remember it and use it when it matters.")
MAX_TAUGHT_CHARS = 500
MIN_LETTERS = 4
_POLITE = r"(?:(?:please|pls|oh|and|also|btw|by the way)[\s,]+)*"
# Said this way, a message teaches whatever the model thinks; what follows is the fact.
_CERTAIN = re.compile(
    r"^\W*" + _POLITE + r"(?:"
    r"remember(?:\s+that\b|\s*[:,])|(?:don'?t|do not|never) forget(?:\s+that\b|\s*[:,])|"
    r"keep in mind(?:\s+that\b)?|(?:make a )?note(?:\s+that\b|\s*:)|for the record\b|"
    r"just so you know\b|fyi\b|for your information\b|you should know(?:\s+that\b)?"
    r")[\s,:-]*(?P<fact>.+)$",
    re.I | re.S,
)
# Said this way, it may be teaching, or just chat; a capable model must judge.
_POSSIBLE = re.compile(r"^\W*actually[\s,]+(?P<fact>(?:i|i'm|i've|my|we|we're|our)\b.+)$",
                       re.I | re.S)
CONFIRM = """Decide whether a chat message tells the assistant a fact about the user that the \
user wants remembered (a correction of something known about them, or news about their life).
Message: {message}
Answer with one word: yes or no."""


def teach_command(text: str) -> str | None:
    """The fact of a `/teach` command ("" when it has none); None for other messages."""
    match = COMMAND.match(text)
    return None if match is None else (match["fact"] or "").strip()


def fact_of(statement: str) -> str:
    """The fact as it is stored: trimmed, capitalized, ending like a sentence.
    Raises `UserFacingError` when there is nothing to remember or too much."""
    fact = " ".join(statement.split()).strip(" ,;:-")
    if len(fact) > MAX_TAUGHT_CHARS:
        raise UserFacingError(f"That is too long for one fact (at most {MAX_TAUGHT_CHARS} "
                              "characters). Teach me one thing at a time.")
    said = words(fact)
    # Letters, not words: Chinese or Japanese puts no spaces between them.
    if sum(len(w) for w in said) < MIN_LETTERS or all(w in STOP_WORDS for w in said):
        raise UserFacingError(TEACH_USAGE)
    fact = fact[0].upper() + fact[1:]
    return fact if fact[-1] in ".!?…" else fact + "."


class Teaching:
    """Stores what a user teaches as taught facts."""

    def __init__(
        self, facts: FactStore, model: ChatModel, *, confirm: bool,
        on_taught: Callable[[str], None] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        """`confirm`: ask the model about messages that may be teaching (a capable model).
        `on_taught(user_id)` runs after a fact is stored: the hook for the belief check, which
        must return at once."""
        self._facts = facts
        self._model = model
        self._confirm = confirm
        self._on_taught = on_taught
        self._clock = clock

    async def teach(self, user_id: str, statement: str, round_id: int | None = None) -> Fact:
        """Store a taught fact (once: the same fact taught again is the one stored before).
        Raises `UserFacingError` for an empty or overlong fact."""
        text = fact_of(statement)
        for known in await self._facts.rows.taught_with_text(user_id, text):
            return known
        fact = Fact(uuid.uuid4().hex, user_id, text, Speaker.USER, self._clock(),
                    (round_id,) if round_id is not None else (), Origin.TAUGHT)
        await self._facts.rows.insert([fact])
        log.info("Taught fact %s from %s", fact.id[:8], user_id)
        try:
            await self._facts.index([fact])
        except Exception:  # stored: found by words now, by meaning once the sweep indexes it
            log.warning("Taught fact %s is not indexed by meaning yet", fact.id[:8],
                        exc_info=True)
        if self._on_taught is not None:
            self._on_taught(user_id)
        return fact

    async def catch(self, round_: Round) -> Fact | None:
        """The fact a private message teaches, stored; None when it teaches nothing."""
        text = straight_quotes(round_.user_text)
        if text.rstrip().endswith("?"):
            return None
        said = _CERTAIN.match(text)
        if said is None:
            said = _POSSIBLE.match(text)
            if said is None or not await self._judged_teaching(text):
                return None
        statement = said["fact"]
        try:
            return await self.teach(round_.user_id, statement, round_.id)
        except UserFacingError:  # "Remember that?" and the like: nothing to keep
            return None

    async def _judged_teaching(self, text: str) -> bool:
        if not self._confirm:
            return False
        try:
            return await model_says_yes(self._model, CONFIRM.format(message=text))
        except ModelUnavailable as error:  # not sure: leave it alone
            log.warning("Could not judge a possible fact to remember: %s", error)
            return False


def taught_note(fact: Fact) -> str:
    """The one line that says what was stored."""
    return f"Noted, I'll remember: \"{fact.text}\" (/taught lists what you taught me)."
