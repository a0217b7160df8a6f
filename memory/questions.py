"""Whether a message asks the companion about the person who wrote it ("what's my dog called?",
"whens my birthday again", "my fav food what"), as opposed to telling something, or asking for
advice or about the world ("how do I sharpen a chisel?", "why do we get hiccups?").

A message asks about its speaker when it is a question (`is_question`, or it opens with "do",
"is", "remind"... or asks to be reminded) that speaks of the speaker ("my", "I", "we") and
does not ask for advice (in "how do I..." and "what should I...", "I" is anyone). Asked of the
companion, a question word among the first words is enough ("what my hamster name"). The words
are English, as the bundled demo model is; measured with `python -m benchmarks.demo_probe`.
"""

from __future__ import annotations

import re

_WORDS = re.compile(r"[\w']+")
_WH = frozenset({"what", "who", "where", "when", "which", "why", "how", "whose"})
# A question word run together with "is" asks whatever follows it ("whats the difference...").
_WH_IS = frozenset({"what's", "whats", "who's", "whos", "where's", "wheres", "when's", "whens",
                    "how's", "hows"})
_AUXILIARIES = frozenset({
    "is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "should", "would",
    "will", "shall", "may", "might", "must", "have", "has", "had", "isn't", "aren't", "don't",
    "doesn't", "didn't", "can't", "won't",
})
# A question word followed by one of these opens a clause, not a question ("when I was ten",
# "where we live", "how I met her").
_SUBJECTS = frozenset({"i", "we", "you", "u", "he", "she", "they", "it", "i'm", "im", "we're",
                       "you're", "they're"})
_LEADING_WORDS = 3  # words that may come before a question's own ("ok quiz time, what...")
# Words that make a message a question when they open it ("do you...", "is my...").
_OPENINGS = frozenset({"do", "did", "does", "is", "are", "am", "was", "were", "have", "can",
                       "could", "tell", "remind", "remember"})
# Asking to be reminded, anywhere: "remind me", "do u remember", "you remember?".
_RECALL = re.compile(r"\bremind me\b|\b(?:you|u)\s+remember\b", re.IGNORECASE)
_PARTS = re.compile(r"(?<=[.?!])\s+")
_TELL_ME = re.compile(r"\b(?:tell|show|give|teach)\s+me\b")
# The words by which a message speaks of its speaker.
_SPEAKER = frozenset({"i", "me", "my", "mine", "we", "us", "our", "ours", "i'm", "im", "i've",
                      "i'd", "i'll", "we're"})
# A request for advice, a how-to or a why of the world: the speaker stands for anyone ("how do I
# sharpen a chisel?", "how to stop procrastinating", "how I can say it", "what should I eat
# before a run?", "why do we get hiccups?").
_ADVICE = re.compile(r"\b(?:(?:how|why)\s+(?:do|does|can|could|should|would)|should|could|would"
                     r"|can|might|must|shall)\s+(?:i|we)\b"
                     r"|\bhow\s+(?:to|(?:i|we)\s+(?:can|could|should))\b", re.IGNORECASE)


def is_question(text: str) -> bool:
    """A question, not a statement: a question mark, or a question word asking, near the start
    ("whats the difference between a frog and a toad", "which team did i say i support", "ok
    quiz time what breed's our dog") or last ("my fav food what"). A question word that opens
    a clause ("when I was ten", "my brother who lives in Leeds") does not ask."""
    if "?" in text:
        return True
    words = _WORDS.findall(text.lower())
    if not words:
        return False
    if words[-1] in _WH:
        return True
    return any(_asks_at(words, i) for i in range(min(len(words), _LEADING_WORDS + 1)))


def _asks_at(words: list[str], i: int) -> bool:
    if words[i] in _WH_IS:
        return True
    if words[i] not in _WH:
        return False
    after = words[i + 1:i + 4]
    if not after or after[0] in _SUBJECTS:
        return not after
    return any(word in _AUXILIARIES or word.endswith("'s") for word in after)


def asks_about_the_speaker(message: str) -> bool:
    """A sentence of the message asks, and speaks of the speaker: in "How long do you boil an
    egg? I never get it right." the question is about the world. "Tell me" asks the companion;
    its "me" is not who the question is about."""
    return any(_asks_about_the_speaker(part) for part in _PARTS.split(message))


def _asks_about_the_speaker(part: str) -> bool:
    return _may_ask(part) and any(word in _SPEAKER for word in _words_asked(part))


def may_ask_about_the_speaker(message: str) -> bool:
    """A sentence of the message asks, and not for advice: it may be about the speaker
    without a word for them ("dog's name?", "who's the one getting married"), which
    `memory.asking` judges by its meaning."""
    return any(_may_ask(part) for part in _PARTS.split(message))


def _may_ask(part: str) -> bool:
    words = _words_asked(part)
    return (bool(words) and _ADVICE.search(part) is None
            and (is_question(part) or words[0] in _OPENINGS
                 or any(word in _WH | _WH_IS for word in words[:_LEADING_WORDS])
                 or _RECALL.search(part) is not None))


def _words_asked(part: str) -> list[str]:
    """The words of a sentence, without the "me" of "tell me", which asks the companion."""
    return _WORDS.findall(_TELL_ME.sub(" ", part.lower()))


# The words by which a question asks for a place.
_WHERE = frozenset({"where", "wheres", "where's", "city", "town", "country"})


def asks_where(message: str) -> bool:
    """Whether the message asks for a place ("where do I live?", "what city am I in")."""
    return any(word in _WHERE for word in _WORDS.findall(message.lower()))
