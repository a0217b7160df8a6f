"""Whether a message asks the companion about the person who wrote it ("what's my dog called?",
"whens my birthday again", "my fav food what"), as opposed to telling something, or asking for
advice or about the world ("how do I sharpen a chisel?", "why do we get hiccups?").

A message asks about its speaker when it is a question (a question mark; a question word at
its start, a word or two in, or at its end, as in "my fav food what"; a request to be reminded)
that speaks of the speaker ("my", "I", "we") and does not ask for advice (in "how do I..." and
"what should I...", "I" is anyone). The words are English, as the bundled demo model is;
measured with `python -m benchmarks.demo_probe`.
"""

from __future__ import annotations

import re

_WORDS = re.compile(r"[\w']+")
# Question words: they make a question when they open it, after a word or two ("wait which team
# do I support"), or close it ("my fav food what"); elsewhere they are mostly relative ("a parrot
# who says hola", "when I was ten").
_ASKING = frozenset({
    "what", "what's", "whats", "who", "who's", "whos", "where", "where's", "wheres", "when",
    "when's", "whens", "which",
})
_ASKING_WITHIN = 3  # words from the start
# Words that make a message a question when they open it ("do you...", "is my...").
_OPENINGS = frozenset({"how", "why", "do", "did", "does", "is", "are", "am", "was", "were",
                       "have", "can", "could", "tell", "remind", "remember"})
# Asking to be reminded, anywhere: "remind me", "do u remember", "you remember?".
_RECALL = re.compile(r"\bremind me\b|\b(?:you|u)\s+remember\b", re.IGNORECASE)
# The words by which a message speaks of its speaker.
_SPEAKER = frozenset({"i", "me", "my", "mine", "we", "us", "our", "ours", "i'm", "im", "i've",
                      "i'd", "i'll", "we're"})
# A request for advice, a how-to or a why of the world: the speaker stands for anyone ("how do I
# sharpen a chisel?", "what should I eat before a run?", "why do we get hiccups?").
_ADVICE = re.compile(r"\b(?:(?:how|why)\s+(?:do|does|can|could|should|would)|should|could|would"
                     r"|can|might|must|shall)\s+(?:i|we)\b", re.IGNORECASE)


def asks_about_the_speaker(message: str) -> bool:
    words = _WORDS.findall(message.lower())
    if not words:
        return False
    question = ("?" in message or words[0] in _OPENINGS or words[-1] in _ASKING
                or any(word in _ASKING for word in words[:_ASKING_WITHIN])
                or _RECALL.search(message) is not None)
    return (question and any(word in _SPEAKER for word in words)
            and _ADVICE.search(message) is None)
