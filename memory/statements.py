"""Which sentences of a conversation carry something worth remembering.

Small talk never becomes a memory: greetings, thanks, agreement, praise of the other person, and
sentences whose only content is a pronoun ("Yeah, I'm really lucky to have them."). What is left
is kept whole, in the words it was said in, so a memory can never claim what nobody said.
"""

from __future__ import annotations

import functools
import re

from sentencex import segment

from memory.beliefs.claims import claim_of
from memory.lexical import STOP_WORDS
from memory.questions import asks_about_the_speaker, is_question
from memory.words import words

_FIRST_PERSON = re.compile(
    r"\b(i|i'm|i've|i'd|i'll|im|my|me|mine|myself|we|we're|we've|our|ours|us)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(you|you're|you've|you'd|you'll|your|yours|yourself)\b", re.I)
# Openers that say nothing by themselves: "Yeah, ...", "Wow, Caroline! ...", "Hey Mel, ...".
_OPENER = re.compile(
    r"^(?:(?:hey|hi|hello|oh|ooh|wow|whoa|woah|yeah|yep|yes|no|aw+|ah+|haha\w*|lol|omg|well|so|"
    r"ok(?:ay)?|hmm+|sure|thanks|thank you|great|awesome|cool|nice|totally|definitely|"
    r"absolutely|exactly|true)\b(?:\s+(?-i:(?!I\b|I['\u2019])[A-Z][\w\u2019']+))?[\s,!.…-]*)+",
    re.IGNORECASE,
)
# The name a sentence is addressed to, at its start ("Wow, Caroline, ...") or its end
# ("..., Melanie!").
_LEADING_NAME = re.compile(r"^[A-Z][\w\u2019']+\s*[,!]\s*")
_TRAILING_NAME = re.compile(r",\s*[A-Z][\w\u2019']*(?:\s+[A-Z][\w\u2019']*)?\s*[.!…]*$")
# Whole statements that only react to the other person.
_REACTION = re.compile(
    r"^(?:i\s+(?:totally\s+|completely\s+|so\s+|really\s+|100%\s+)?agree|me too|same here|"
    r"you'?re welcome|take care|see you|talk (?:to you )?(?:soon|later)|good night|"
    r"congrat\w*|thanks?\b|thank you|sounds (?:great|good|fun|amazing|awesome|lovely)|"
    r"that(?:'s| is| was| sounds)\s+(?:so\s+|really\s+|super\s+)?"
    r"(?:great|awesome|cool|amazing|wonderful|lovely|nice|true|fair|right|fun|sweet|"
    r"impressive|exciting|interesting|good to hear|a great idea)\b)",
    re.IGNORECASE,
)
# Words that praise or react but tell nothing about anyone's life.
_EMPTY_WORDS = frozenset("""
great awesome cool amazing nice lovely wonderful fantastic incredible good glad happy fun sounds
sound agree totally absolutely definitely true right sure thanks thank appreciate welcome hope
wish lucky proud cute beautiful stunning super pretty kind sweet best better cheers wow haha
lol omg bye exciting excited interesting inspiring impressive
""".split())
MIN_CONTENT_WORDS = 2
MIN_WORDS = 3
MAX_FACT_CHARS = 300  # a fact is a short statement; a wall of text is no fact
MESSAGES_KEPT = 20_000  # messages whose statements one process keeps (at most about 12 MB)
KEPT_MESSAGE_CHARS = 500
# How a companion suggests or answers something concrete.
_ADVICE = re.compile(
    r"\b(?:you should|you could|you might|try|recommend\w*|suggest\w*|how about|consider|"
    r"make sure|remember to|don't forget|check out|it helps to|worth (?:a )?(?:try|read|"
    r"watch|visit))\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“][^\"“”]{2,}[\"”]")
_NUMBER = re.compile(r"\d")
_PROPER_NOUN = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`: each line cut where a sentence ends. sentencex knows
    abbreviations and numbers ("my boss Mr. Santos", "$3.50" stay whole); its English rules
    serve every language a message may be in (a line break ends a sentence in any)."""
    return [s.strip() for line in text.splitlines() for s in segment("en", line) if s.strip()]


def core(sentence: str) -> str:
    """The sentence without the openers and the name it is addressed to."""
    rest = _LEADING_NAME.sub("", _OPENER.sub("", sentence.strip()))
    return _TRAILING_NAME.sub("", rest).strip(" ,.!…-")


def content_words(sentence: str) -> list[str]:
    """The words that can tell something: no function words, pronouns or praise. ("that's"
    is "that" and "s": contractions split.)"""
    return [w for w in words(core(sentence))
            if w not in STOP_WORDS and w not in _EMPTY_WORDS and not w.isdigit() and len(w) > 1]


def carries_information(sentence: str) -> bool:
    """Not small talk: a statement (no question), not a mere reaction, with enough content."""
    said = core(sentence)
    if not said or is_question(sentence) or len(sentence) > MAX_FACT_CHARS:
        return False
    if _REACTION.match(said):
        return False
    if _names_something_of_the_speaker(said):
        return True
    if len(said.split()) < MIN_WORDS:
        return False
    return len(content_words(said)) >= MIN_CONTENT_WORDS


def _names_something_of_the_speaker(said: str) -> bool:
    """A short first-person sentence that names someone or somewhere ("I'm Ana.", "We're in
    Porto"): one name says enough."""
    return bool(_FIRST_PERSON.search(said) and _PROPER_NOUN.search(said)
                and content_words(said))


def self_statements(text: str) -> list[str]:
    """Sentences in which the user tells something about themselves (first person): what
    topics quote."""
    return [s for s in split_sentences(text)
            if _FIRST_PERSON.search(s) and carries_information(s)]


def user_facts(text: str) -> list[str]:
    """Sentences of the user worth keeping as facts (see `_user_facts`). Kept by text, the
    length of a chat message at most: a message is read at its turn and again when its window
    is summarized."""
    if len(text) > KEPT_MESSAGE_CHARS:
        return list(_user_facts.__wrapped__(text))
    return list(_user_facts(text))


@functools.lru_cache(maxsize=MESSAGES_KEPT)
def _user_facts(text: str) -> tuple[str, ...]:
    """Sentences of the user worth keeping as facts: about themselves and their life. A
    sentence about the companion alone ("You're doing an awesome job!") is left out, and so is
    one that follows a question about the person in the same message: it frames the question
    ("whos coming round to mine later? i forgot her name lmao"). A message of statements none
    of which says enough alone is kept whole when it does."""
    sentences = split_sentences(text)
    kept = []
    for sentence in sentences:
        if asks_about_the_speaker(sentence):
            break
        if _about_their_life(sentence):
            kept.append(sentence)
    if kept or len(sentences) < 2 or not all(map(_fragment, sentences)):
        return tuple(kept)
    # A terse message is cut where no piece says enough alone ("pipefitter. long days",
    # "truck's a f-150. runs fine"): read whole, it does.
    whole = " ".join(sentences)
    return (whole,) if _about_their_life(whole) else ()


def _fragment(sentence: str) -> bool:
    """A statement of a few words ("pipefitter.", "f-150."): not a question, an opener
    ("lol.") or a reaction ("Thanks, Maria.")."""
    said = core(sentence)
    return (bool(said) and not is_question(sentence)
            and not (_REACTION.match(said) or _REACTION.match(sentence.strip()))
            and len(said.split()) <= MIN_WORDS)


def _about_their_life(sentence: str) -> bool:
    return carries_information(sentence) and bool(_FIRST_PERSON.search(sentence)
                                                  or not _SECOND_PERSON.search(sentence))


def suggestions(text: str) -> list[str]:
    """Sentences of the companion worth keeping as facts: concrete suggestions and answers,
    the ones that name something (a title, a place, a person, a number) or give advice, and
    what it says about itself that a later statement could contradict ("I love jazz")."""
    return [
        s for s in split_sentences(text)
        if carries_information(s)
        and (_concrete(core(s)) or (_FIRST_PERSON.search(s) and claim_of(s) is not None))
    ]


def _concrete(sentence: str) -> bool:
    return bool(_ADVICE.search(sentence) or _QUOTED.search(sentence)
                or _NUMBER.search(sentence) or _PROPER_NOUN.search(sentence))
