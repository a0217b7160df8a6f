"""Catching corrections: `/correct <feedback>`, or a message such as "No, I meant a synonym"
that says the companion misunderstood the user's last message (MemPrompt's feedback fb).

A cheap detector reads every private message. A capable model confirms what it flags; the
bundled demo model is too small to judge, so then only unmistakable phrasings count.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from enum import Enum

import regex

from bot.errors import ModelUnavailable
from memory.feedback.matching import (
    folded,
    frame_of,
    normalize_key,
    plausible_subject,
    quotes_something,
    quotes_wording,
    shared_frame,
    words,
)
from memory.feedback.store import Correction, FeedbackMemory
from memory.model_calls import model_answer, model_says_yes
from memory.protocols import ChatModel, RoundStore
from memory.types import Feedback, Round

log = logging.getLogger(__name__)

# The prompt asks for "Understanding:" in any language; a model may still translate the label,
# and say it with one word more ("ਸਮਝ ਗਿਆ:", understood:).
UNDERSTANDING = re.compile(
    r"^\s*(?:understanding|समझ|ਸਮਝ|entendimiento|entendí|compréhension|j'ai compris|verständnis"
    r"|entendimento|понимание)(?:\s+[^\s:]+)?:\s*(?P<u>.+)$", re.I | re.M)

# Said this way, a message is a correction whatever the model thinks. `regex`, not `re`: its
# \b and \W know that a Devanagari or Gurmukhi vowel sign belongs to its word.
_CERTAIN_ENGLISH = (
    r"\b(?:that'?s|that is|this is|it'?s) not what i (?:asked|meant|wanted|said)\b",
    r"\bnot what i (?:asked|meant|wanted)\b",
    r"\byou (?:misunderstood|misread|got me wrong)\b",
    r"\bmisunderstood me\b",
    r"^\W*(?:no|nope|nah|wrong|not quite|actually)\b[\s,.!-]*"
    r"i (?:meant(?! to\b)|mean\b|wanted|want|was asking|asked)",
    r"^\W*i (?:meant(?! to\b)|was asking (?:for|about)|asked for)\b",
    r"\bwhen i (?:say|ask for|ask about|ask|write)\b.+\bi(?: am|'m)? (?:mean|want)",
    r"\bby (?!the way\b).{1,40}\bi mean\b",
)
# The same kinds of sentences in other languages people write to companions in: "no, I meant",
# "that is not what I asked", "you misunderstood me", "when I say X I mean Y".
_CERTAIN_ELSEWHERE = (
    # Hindi
    r"^\W*(?:नहीं|नही)\W+(?:.*\s)?(?:मेरा मतलब|मुझे\s.+\sचाहिए था)",
    r"\bमेरा मतलब\s.+\s(?:था|थी)\b",
    r"\b(?:यह|ये|वह|वो)\s(?:तो\s)?नहीं पूछा\b",
    r"\b(?:आपने|तुमने|आप ने|तुम ने)\s(?:मुझे\s|मेरी बात\s|बात\s)?(?:गलत|ग़लत) समझा",
    r"\bजब मैं\s.+\s(?:मेरा मतलब|मुझे\s.+\sचाहिए)",
    # Punjabi
    r"^\W*ਨਹੀਂ\W+(?:.*\s)?(?:ਮੇਰਾ ਮਤਲਬ|ਮੈਨੂੰ\s.+\sਚਾਹੀਦਾ ਸੀ)",
    r"\bਮੇਰਾ ਮਤਲਬ\s.+\sਸੀ\b",
    r"\b(?:ਇਹ|ਉਹ)\s(?:ਤਾਂ\s)?ਨਹੀਂ ਪੁੱਛਿਆ\b",
    r"\b(?:ਤੁਸੀਂ|ਤੂੰ)\s(?:ਮੈਨੂੰ\s|ਮੇਰੀ ਗੱਲ\s|ਗੱਲ\s)?ਗਲਤ ਸਮਝ",
    r"\bਜਦੋਂ ਮੈਂ\s.+\s(?:ਮੇਰਾ ਮਤਲਬ|ਮੈਨੂੰ\s.+\sਚਾਹੀਦਾ)",
    # Spanish, Portuguese, French, German, Russian
    r"^\W*no\W+(?:quise decir|quería decir|me refería|pregunté por)\b",
    r"\bno es lo que (?:pregunté|quise decir|pedí)\b",
    r"\bme (?:entendiste|entendió|has entendido|ha entendido) mal\b",
    r"^\W*não\W+(?:eu\s)?(?:quis dizer|queria dizer|me referia)\b",
    r"\bnão (?:foi|é) (?:isso\s)?o que eu (?:perguntei|quis dizer|pedi)\b",
    r"^\W*non\W+(?:je voulais dire|je parlais d|je demandais)",
    r"\bce n'est pas ce que (?:j'ai demandé|je voulais dire)\b",
    r"\b(?:tu m'as|vous m'avez) mal compris\b",
    r"^\W*nein\W+ich (?:meinte|wollte)\b",
    r"\bdas (?:habe|hab) ich nicht gefragt\b",
    r"\b(?:du hast|sie haben) mich (?:falsch verstanden|missverstanden)\b",
    r"^\W*нет\W+я (?:имел|имела) в виду\b",
    r"\bя не (?:это|о том) (?:спрашивал|спрашивала)\b",  # noqa: RUF001 (Cyrillic on purpose)
    r"\b(?:ты меня|вы меня) не (?:так|правильно) поняли?\b",
)
_CERTAIN = regex.compile("|".join(_CERTAIN_ENGLISH + _CERTAIN_ELSEWHERE), regex.I)
# Said this way, it may be a correction ("No, ..."), or just an answer; a model must judge.
_POSSIBLE = regex.compile(
    r"^\W*(?:no|nope|wrong|not quite|incorrect|not that|that'?s wrong|that is wrong"
    r"|नहीं|ਨਹੀਂ|non|nein|não|нет)\b", regex.I
)


# Words that say no or wrong. Opening a message with a short clause that starts with one or
# holds one second ("No no, ...", "ये नहीं, ..." this is not it, "Wrong one. ...") may be a
# correction too; said later ("Whether formal or not, ...") it belongs to a request.
_DENIAL = regex.compile(r"\b(?:no|nope|nah|not|wrong|incorrect|नहीं|नही|गलत|ਨਹੀਂ|ਗਲਤ"
                        r"|non|nein|não|нет|не)\b", regex.I)
_CLAUSE = regex.compile(r"^([^,.;:!?\u2014\u2013\u0964]+)[,.;:!?\u2014\u2013\u0964]+\s*\S")
MAX_OPENING_WORDS = 4
DENIAL_WITHIN = 2


class Signal(Enum):
    NONE = "none"
    POSSIBLE = "possible"
    CERTAIN = "certain"


def detect(text: str) -> Signal:
    if _CERTAIN.search(text):
        return Signal.CERTAIN
    if _POSSIBLE.search(text) or _opens_with_denial(text):
        return Signal.POSSIBLE
    return Signal.NONE


def _opens_with_denial(text: str) -> bool:
    """A first clause of a few words that says no or wrong, and more said after it."""
    opening = _CLAUSE.match(text.strip())
    if opening is None:
        return False
    said = words(folded(opening[1]))
    return len(said) <= MAX_OPENING_WORDS and any(
        _DENIAL.fullmatch(word) for word in said[:DENIAL_WITHIN])


def disputes_stated_reading(previous: Round, text: str) -> bool:
    """Whether `text`, flagged as a possible correction, is about how the companion said it
    read the request before it: the reply stated its understanding (which asks nothing, so a
    "no" after it answers no question), and `text` is not that request again about another
    subject. What the demo model, which cannot judge, counts as a correction."""
    request = previous.user_text or ""
    return (understanding_of(previous.reply_text or "") is not None
            and normalize_key(text) != normalize_key(request)
            and not shared_frame(request, text))


def understanding_of(reply: str) -> str | None:
    """The companion's stated understanding ("Understanding: you want a synonym of good")."""
    match = UNDERSTANDING.search(reply)
    return match["u"].strip() if match else None


CONFIRM = """Decide whether a chat message corrects how an assistant understood the request \
before it.
Request: {key}
Assistant's answer: {answer}
Message: {message}
Does the message say that the assistant misunderstood the request, or what the user meant by \
it? Answer with one word: yes or no."""


# How many of the companion's replies before a corrected one tell its wording apart.
EARLIER_REPLIES = 20

SUBJECT = """Which words of this message say what it is about (its subject), as opposed to \
the words that say what is asked about it?
Message: {message}
Answer with those words only, copied from the message, or with "none"."""


@dataclass(frozen=True, slots=True)
class Caught:
    """A correction just stored, and the message it corrects (to answer again)."""

    feedback: Feedback
    original: str


class Corrections:
    """Turns corrections of the user's last exchange into feedback memories."""

    def __init__(
        self, feedback: FeedbackMemory, rounds: RoundStore, model: ChatModel, *,
        confirm: bool, share_with_everyone: bool,
    ) -> None:
        """`confirm`: ask the model about possible corrections (a capable model only)."""
        self._feedback = feedback
        self._rounds = rounds
        self._model = model
        self._confirm = confirm
        self._share = share_with_everyone

    async def previous_exchange(
        self, user_id: str, conversation_id: str, before_round: int | None
    ) -> Round | None:
        """The user's last answered round in this chat: what a correction is about."""
        rounds = await self._rounds.recent_rounds(
            user_id, 1, before_id=before_round, conversation_id=conversation_id)
        last = rounds[-1] if rounds else None
        return last if last and last.user_text and last.reply_text else None

    async def catch(self, round_: Round, persona: str, explicit: str | None) -> Caught | None:
        """Store the message of `round_` as feedback if it corrects the exchange before it.

        `explicit` is a `/correct` command's feedback; otherwise the message is checked.
        """
        text = explicit if explicit is not None else round_.user_text
        signal = Signal.CERTAIN if explicit is not None else detect(text)
        # A quote may be the request's own words said back: 'If I say "another word for" ...'.
        if signal is Signal.NONE and not quotes_something(text):
            return None  # most messages: no query, no model call
        previous = await self.previous_exchange(round_.user_id, round_.conversation_id, round_.id)
        if previous is None or previous.reply_text is None:  # nothing answered to correct
            return None
        if signal is Signal.NONE:
            if not quotes_wording(text, previous.user_text, previous.reply_text):
                return None
            signal = Signal.POSSIBLE
        if explicit is None and not await self._is_correction(previous, text, signal):
            return None
        original = await self._original(previous)
        understanding = understanding_of(previous.reply_text)
        earlier = await self._earlier_replies(previous)
        item = await self._feedback.remember(Correction(
            user_id=round_.user_id,
            key=original,
            feedback=text,
            understanding=understanding,
            answer=previous.reply_text,
            persona=persona,
            shared=self._share,
            round_id=round_.id,
            subject=await self._subject(original, understanding or previous.reply_text, earlier),
            earlier_replies=earlier,
        ))
        log.info("Feedback %s from %s about %r", item.id[:8], round_.user_id, original[:60])
        return Caught(item, original)

    async def _earlier_replies(self, previous: Round) -> tuple[str, ...]:
        """The companion's replies to the user before the corrected one: the words they share
        are how it words any reply, not what the corrected message was about."""
        rounds = await self._rounds.recent_rounds(previous.user_id, EARLIER_REPLIES,
                                                  before_id=previous.id)
        return tuple(r.reply_text for r in rounds if r.reply_text)

    async def _subject(self, original: str, answer: str, earlier: tuple[str, ...]) -> str:
        """What the corrected message is about, asked of a capable model once, when no subject
        is clear otherwise (see `frame_of`): without it the correction has no frame and applies
        only to the same message until another of its shape is corrected. "" when not asked."""
        if not self._confirm or frame_of(original, answer, earlier):
            return ""
        try:
            subject = await model_answer(self._model, SUBJECT.format(message=original))
        except ModelUnavailable as error:
            log.warning("Could not ask what a corrected message is about: %s", error)
            return ""
        return subject if plausible_subject(original, subject) else ""

    async def _original(self, previous: Round) -> str:
        """The message being corrected: a correction of a correction's answer is about the
        message the first correction was about."""
        earlier = await self._feedback.given_in_round(previous.user_id, previous.id)
        return earlier.key if earlier is not None else previous.user_text

    async def _is_correction(self, previous: Round, text: str, signal: Signal) -> bool:
        if not self._confirm:
            return signal is Signal.CERTAIN or disputes_stated_reading(previous, text)
        try:
            return await self._model_agrees(previous, text)
        except ModelUnavailable as error:  # not sure: trust only an unmistakable phrasing
            log.warning("Could not confirm a correction: %s", error)
            return signal is Signal.CERTAIN

    async def _model_agrees(self, previous: Round, text: str) -> bool:
        prompt = CONFIRM.format(key=previous.user_text, answer=previous.reply_text, message=text)
        return await model_says_yes(self._model, prompt)
