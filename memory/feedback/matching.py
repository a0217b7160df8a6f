"""When a stored correction applies to a new message: the wording side of MemPrompt's lookup Ω
and its gate C. Pure functions; the vector side lives in `memory.feedback.store`.

A correction is about *how* something was asked, not about *what* it was asked about: "What is
like < quick > ?" and "What is like < pretty > ?" share a misunderstanding, while "What is
unlike < quick > ?" and "What sounds like < quick > ?" do not, though they are closer in
spelling and in meaning. So each correction keeps a **frame**: the words of the misunderstood
message minus its subject, where the subject is the content words the companion's own answer
repeated ("the homonym for quick is ..." repeats "quick"). A later message shares the
misunderstanding when it is the misunderstood message with only the subject changed (and a
word or two before or after it).

The subject is found, in order, from: the words the user set off ("< quick >", "'quick'"); the
few words of the message that the answer repeats and that a quarter of the companion's earlier
replies do not hold (those are its own wording: "The homonym for ... is"); a capable model's
answer (see `bot.core.corrections`); or another corrected message of the same shape.

A user can also state a **rule** ("When I say similar to, I mean a synonym"). A rule is as narrow
as the request it came from: its phrase applies to a message of the corrected message's shape
(its frame with the subject changed or, with no frame known, one place changed outside the
phrase), never wherever the phrase appears: "like" in "What is like X" says nothing about
"What sounds like X".
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from memory.words import WORD_WITH_APOSTROPHE

# "when I say X, I mean Y", "when I ask for X I want Y", "by X I mean Y", "X means Y"
_RULES = (
    re.compile(r"\bwhen i (?:say|ask for|ask about|ask|write|type|use)\s+(?P<phrase>.+?)\s*,?\s*"
               r"i(?: am|'m)? (?:mean|want|meant|wanted|asking for|asking about)\b", re.I),
    re.compile(r"\bby\s+(?P<phrase>.+?)\s*,?\s*i mean\b", re.I),
    re.compile(r"^\W*(?P<phrase>[\w' ]{2,40}?)\W*\s+means\b", re.I),
)
# In any language, a phrase the feedback quotes from the message is what a rule is about:
# "जब मैं 'जैसा क्या है' कहूँ, ..." ("when I say 'what is like', ...").
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|\u2018([^\u2019]+)\u2019"
                     r"|\u201c([^\u201d]+)\u201d|\u00ab([^\u00bb]+)\u00bb")
# Words that only soften or introduce a request; they say nothing about what is asked. The
# English ones, and their like in the other languages corrections are caught in.
FILLERS = frozenset({"please", "pls", "hey", "hi", "hello", "thanks", "thank", "ok", "okay",
                     "oh", "um", "uh", "again", "also",
                     "अरे", "कृपया", "प्लीज़", "जी", "धन्यवाद", "शुक्रिया",  # Hindi
                     "ਓਏ", "ਜੀ", "ਧੰਨਵਾਦ", "ਸ਼ੁਕਰੀਆ",  # Punjabi
                     "bitte", "danke", "hola", "gracias", "пожалуйста", "спасибо"})
# Fillers of two words ("ਕਿਰਪਾ ਕਰਕੇ", please in Punjabi): each word alone may mean more.
FILLER_PAIRS = frozenset({("ਕਿਰਪਾ", "ਕਰਕੇ"), ("por", "favor"), ("por", "favour")})
# The words a user set off as what a message is about: "What is like < quick > ?", "what does
# 'serene' mean" (a quote opens after a space, so the apostrophe of "what's" opens none).
_OPEN, _CLOSE = "'\"\u2018\u201c\u00ab", "'\"\u2019\u201d\u00bb"
_QUOTE_SPAN = rf"(?:^|(?<=\s))[{_OPEN}]([^{_CLOSE}]+)[{_CLOSE}](?=\W|$)"
_SET_OFF_QUOTE = re.compile(_QUOTE_SPAN)
_MARKED = re.compile(rf"<\s*([^<>]+?)\s*>|{_QUOTE_SPAN}")
# Where a preamble ends: "One more: ...", "Quick question, ...".
_CLAUSE_END = re.compile(r"[,:;\u2014\u2013]")
_NOT_A_PHRASE = frozenset({"it", "that", "this", "no", "which", "what"})
MAX_RULE_WORDS = 5
# A later message may hold a few more words than the misunderstood one around the request ("and
# also ..."); beyond that it is a different request that happens to share words.
EXTRA_WORDS = 2
# A clause of a few words set off before the request ("Once more: ...", "ਇੱਕ ਵਾਰ ਫੇਰ: ...") is
# no part of it, however many of those words it has.
MAX_PREAMBLE_WORDS = 4
# The dot below a letter (nukta: ज़/ज, ਸ਼/ਸ) that people often leave out when they type.
NUKTA = 7  # its canonical combining class, in every Indic script
# Shorter words are told apart by a letter ("the", "they"); three-quarters of four letters is
# three, so two forms of a word always share their first three.
MIN_FORM_LETTERS = 4
FORM_PREFIX = 3
# A mark more or less in a word of fewer characters makes another word ("में"/"मैं", in/I).
SPELLED_ALIKE_LETTERS = 4
# How many words' folded forms and letters are kept: a user's requests repeat their words.
WORDS_REMEMBERED = 1 << 16
# A word held by a quarter of the companion's earlier replies is its wording, not a subject.
WORDING_SHARE = 4
# Two corrected messages are one request about two subjects when they differ in one place of at
# most this many words, and share at least that many.
MAX_SUBJECT_WORDS = 3
MIN_SHARED_WORDS = 2


def words(text: str) -> list[str]:
    """Lower-case words, without punctuation or brackets."""
    return WORD_WITH_APOSTROPHE.findall(text.lower())


def normalize_key(text: str) -> str:
    """The form two messages share when they are the same message (a message without words,
    "🤔🤔", is only the same as itself)."""
    return " ".join(words(text)) or " ".join(text.split())


def rule_phrase(feedback: str, key: str) -> str:
    """The phrase of a rule stated in `feedback` that also appears in `key`, else ""."""
    key_text = f" {normalize_key(key)} "
    stated = [match["phrase"] for pattern in _RULES if (match := pattern.search(feedback))]
    quoted = [next(group for group in match.groups() if group)
              for match in _QUOTED.finditer(feedback)]
    # A stated phrase is cut out of a sentence, so it is kept short; a quoted one the user
    # copied from the message, whatever its length.
    for candidate, most in [(c, MAX_RULE_WORDS) for c in stated] + [(c, None) for c in quoted]:
        phrase = normalize_key(candidate)
        length = len(phrase.split())
        if (length > 0 and (most is None or length <= most)
                and phrase not in _NOT_A_PHRASE and f" {phrase} " in key_text):
            return phrase
    return ""


def quotes_something(text: str) -> bool:
    """Whether `text` sets words off in quotes ("I'm", "don't" do not)."""
    return bool(_SET_OFF_QUOTE.search(text))


def quotes_wording(feedback: str, key: str, answer: str) -> bool:
    """Whether `feedback` quotes words of `key` that are not its subject (words `key` sets off,
    or that `answer` repeats): 'When I write "another word for" ...' talks about how `key` was
    worded, '"quick" in a sentence?' asks about its subject again."""
    key_words = _meaningful(key)
    subject = _marked(key, key_words) or _answered(key_words, answer, ())
    for match in _SET_OFF_QUOTE.finditer(feedback):
        found = _span_in(_meaningful(match[1]), key_words)
        if found and not found <= subject:
            return True
    return False


def frame_of(key: str, answer: str, earlier_replies: Sequence[str] = ()) -> str:
    """The words of `key` that are neither its subject nor filler; "" when no subject is clear
    (see the module's doc). `earlier_replies`: the companion's replies before `answer`."""
    key_words = _meaningful(key)
    subject = _marked(key, key_words) or _answered(key_words, answer, earlier_replies)
    if not 0 < len(subject) <= MAX_SUBJECT_WORDS or len(subject) >= len(key_words):
        return ""
    return " ".join(w for k, w in enumerate(key_words) if k not in subject)


def _marked(key: str, key_words: list[str]) -> frozenset[int]:
    """The positions of the first span of a few words the user set off in brackets or quotes."""
    for match in _MARKED.finditer(key):
        span = _meaningful(next(group for group in match.groups() if group))
        if 0 < len(span) <= MAX_SUBJECT_WORDS and (found := _span_in(span, key_words)):
            return found
    return frozenset()


def _answered(key_words: list[str], answer: str, earlier_replies: Sequence[str]) -> frozenset[int]:
    """The positions of the key's words that `answer` repeats and that are not the companion's
    wording: words a quarter of its earlier replies hold ("is", "का"), where a subject asked
    about before is in one or a few. Before any earlier reply, English's commonest words stand
    in for that wording ("Here it is" repeats "is"); after, the replies alone decide, in any
    language."""
    answered = set(words(answer)) - _wording(earlier_replies)
    return frozenset(k for k, word in enumerate(key_words) if word in answered)


def _wording(replies: Sequence[str]) -> set[str]:
    if not replies:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # the cold start only

        return set(ENGLISH_STOP_WORDS)
    held = Counter(word for reply in replies for word in set(words(reply)))
    # A subject asked about before is in a few replies (the answer, and the one after a
    # correction); the wording, even a task's name shared by some answers, in many more.
    least = max(min(2, len(replies)), len(replies) / WORDING_SHARE)
    return {word for word, count in held.items() if count >= least}


def _one_run(positions: frozenset[int]) -> bool:
    """A subject is a few words together."""
    return (0 < len(positions) <= MAX_SUBJECT_WORDS
            and max(positions) - min(positions) == len(positions) - 1)


def plausible_subject(key: str, subject: str) -> bool:
    """Whether `subject` (a model's answer) can be what `key` is about: at most a few of its
    words, together, leaving a frame of at least two words."""
    key_words = _meaningful(key)
    named = set(words(subject))
    left_out = frozenset(k for k, word in enumerate(key_words) if word in named)
    return _one_run(left_out) and len(key_words) - len(left_out) >= MIN_SHARED_WORDS


def shared_frame(first: str, second: str) -> str:
    """The frame of two corrected messages of one shape: their words minus the one place where
    they differ ("how do i use < fog > ?" and "how do i use < rider > ?" give "how do i use"),
    and minus a few words said before or after, or a preamble ("Once more: ..."). "" when they
    differ in more than one place, or keep fewer than two words or no more than differs: then
    they are not one request about two subjects."""
    a, b = _meaningful(first), _meaningful(second)
    without_preambles = _one_place_apart(a[_preamble(first):], b[_preamble(second):])
    return without_preambles or _one_place_apart(a, b, preamble=_preamble(first))


def _one_place_apart(a: Sequence[str], b: Sequence[str], preamble: int = 0) -> str:
    """What `a` and `b` keep when they differ in one place (see `shared_frame`); the first
    `preamble` words of `a` are not counted as kept by the request."""
    alignment = _Alignment.of(a, b)
    kept = [word for k1, k2 in alignment.same for word in a[k1:k2]]
    in_request = sum(k2 - max(k1, preamble) for k1, k2 in alignment.same if k2 > preamble)
    if (alignment.inserted_within or len(alignment.changed) != 1 or alignment.around > EXTRA_WORDS
            or in_request < MIN_SHARED_WORDS):
        return ""
    k1, k2, m1, m2 = alignment.changed[0]
    # What stays outweighs what differs: "X जैसा नहीं क्या है" and "Y से अलग क्या है" differ in
    # three words and share two ("क्या है", what is), as two requests ending alike do.
    replaced = 0 < max(k2 - k1, m2 - m1) <= min(MAX_SUBJECT_WORDS, in_request - 1) and min(
        k2 - k1, m2 - m1) > 0
    return " ".join(kept) if replaced else ""


@dataclass(frozen=True, slots=True)
class _Alignment:
    """How a message differs from another, word by word: words said before or after it
    (`around`, counted), words added between two that stay (`inserted_within`), and the
    places where words were changed or dropped (`changed`, as k1, k2, m1, m2 spans)."""

    same: list[tuple[int, int]]
    changed: list[tuple[int, int, int, int]]
    around: int
    inserted_within: bool

    @classmethod
    def of(cls, key: Sequence[str], message: Sequence[str]) -> _Alignment:
        same, changed = [], []
        around, inserted_within = 0, False
        for tag, k1, k2, m1, m2 in SequenceMatcher(
            None, key, message, autojunk=False
        ).get_opcodes():
            if tag == "equal":
                same.append((k1, k2))
            elif tag in ("insert", "delete") and (k1 == 0 or k2 == len(key)):
                around += (m2 - m1) + (k2 - k1)
            elif tag == "insert":
                inserted_within = True
            else:
                changed.append((k1, k2, m1, m2))
        return cls(same, changed, around, inserted_within)


@lru_cache(maxsize=WORDS_REMEMBERED)  # the gate and the wording lookup both ask
def _as_key_words(key: tuple[str, ...], message: tuple[str, ...]) -> tuple[str, ...]:
    """The message with each word that is the same as a key word in another form or spelling
    written as that key word: "बताइए" for "बताओ" (tell, politely), "tells" for "tell", "what's"
    for "what", "ਦਸੋ" for "ਦੱਸੋ" (tell, typed without its doubling mark)."""
    return tuple(word if word in key else next((k for k in key if _same_word(word, k)), word)
                 for word in message)


def _same_word(first: str, second: str) -> bool:
    """Two forms or two spellings of one word (see `_forms_of_one`, `_spelled_alike`)."""
    # This runs for every word of every message against every stored correction: most pairs
    # differ in their first letter, and are told apart before anything else.
    first, second = folded(first), folded(second)
    if first[:1] != second[:1]:
        return False
    return first == second or _forms_of_one(first, second) or _spelled_alike(first, second)


@lru_cache(maxsize=WORDS_REMEMBERED)
def folded(word: str) -> str:
    """The word without the dots below letters that people often leave out (nukta)."""
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFD", word)
    return unicodedata.normalize("NFC", "".join(
        c for c in decomposed if unicodedata.combining(c) != NUKTA))


def _forms_of_one(first: str, second: str) -> bool:
    """Two forms of one word: they share their first three-quarters (of the shorter, of at
    least four letters). "like" and "unlike", "sound" and "south" are two words."""
    if first[:FORM_PREFIX] != second[:FORM_PREFIX]:
        return False
    shorter = min(len(first), len(second))
    if shorter < MIN_FORM_LETTERS:
        return False
    shared = next((k for k, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
                  shorter)
    return shared * 4 >= shorter * 3


def _spelled_alike(first: str, second: str) -> bool:
    """One word typed with a vowel sign or a mark more or less ("ਦੱਸੋ" and "ਦਸੋ", tell; "उल्टा"
    and "उलटा", reverse): its letters the same, one mark apart. Words of fewer than four
    characters are left apart: "में" (in) and "मैं" (I) are two words."""
    return (max(len(first), len(second)) >= SPELLED_ALIKE_LETTERS
            and _letters(first) == _letters(second)
            and Levenshtein.distance(first, second, score_cutoff=1) <= 1)


@lru_cache(maxsize=WORDS_REMEMBERED)
def _letters(word: str) -> str:
    return "".join(c for c in word if not unicodedata.category(c).startswith("M"))


def _meaningful(text: str) -> list[str]:
    kept: list[str] = []
    for word in words(text):
        if kept and (kept[-1], word) in FILLER_PAIRS:
            kept.pop()
        elif word not in FILLERS:
            kept.append(word)
    return kept


@dataclass(frozen=True, slots=True)
class Pattern:
    """What of a correction a message is checked against, tokenized once."""

    key: str  # normalized
    key_words: tuple[str, ...]  # without fillers
    frame: tuple[str, ...]
    rule: str
    subject: frozenset[int]  # the positions in `key_words` that are not the frame's
    rule_words: frozenset[int]  # the positions of the rule's phrase in `key_words`
    preamble: int  # how many of `key_words` come before the request (see `_preamble`)

    @classmethod
    def of(cls, key: str, frame: str, rule: str) -> Pattern:
        key_words = tuple(_meaningful(key))
        frame_words = tuple(frame.split())
        said_before = _preamble(key)
        subject = _subject_positions(key_words, frame_words)
        # A frame learned from another message may leave this one's preamble out.
        after = frozenset(said_before + k for k in _subject_positions(
            key_words[said_before:], frame_words))
        if not _one_run(subject) and _one_run(after):
            subject = after
        # What the user said before a subject that opens the request is no preamble.
        preamble = min([said_before, *subject]) if frame_words else said_before
        return cls(normalize_key(key), key_words, frame_words, rule, subject,
                   _span_in(rule.split(), key_words), preamble)


def _span_in(span: Sequence[str], words: Sequence[str]) -> frozenset[int]:
    """Where the span's words stand in `words`, together (the first time)."""
    span = list(span)
    for start in range(len(words) - len(span) + 1) if span else ():
        if list(words[start:start + len(span)]) == span:
            return frozenset(range(start, start + len(span)))
    return frozenset()


def _subject_positions(key_words: tuple[str, ...], frame: tuple[str, ...]) -> frozenset[int]:
    """The frame is the key's words in order minus the subject's: match it from the left."""
    subject = set()
    next_frame = 0
    for position, word in enumerate(key_words):
        if next_frame < len(frame) and word == frame[next_frame]:
            next_frame += 1
        else:
            subject.add(position)
    return frozenset(subject)


@dataclass(frozen=True, slots=True)
class Message:
    """A new message, tokenized once for all the patterns it is checked against."""

    key: str
    words: tuple[str, ...]  # without fillers
    preamble: int
    marked: frozenset[int]  # the positions of the words the user set off, if any
    initials: frozenset[str]  # the first letters of its words: what a form or spelling keeps

    @classmethod
    def of(cls, text: str) -> Message:
        meaningful = _meaningful(text)
        return cls(normalize_key(text), tuple(meaningful), _preamble(text),
                   _marked(text, meaningful),
                   frozenset(folded(word)[:1] for word in meaningful))

    def may_keep(self, pattern: Pattern) -> bool:
        """False when more of the frame's words than may be said around a request (or in the
        corrected message's preamble) begin with a letter none of the message's words begins
        with (see `fits_frame`): most stored corrections are told apart from a message this
        cheaply."""
        missing = sum(folded(word)[:1] not in self.initials for word in pattern.frame)
        return missing <= EXTRA_WORDS + pattern.preamble


def _preamble(text: str) -> int:
    """How many words a message says before its request, set off by a comma or a colon: "One
    more: < X > ...", "एक और: < X > ...". Words said before a subject that opens the request
    would otherwise read as a longer subject."""
    found = 0
    for separator in _CLAUSE_END.finditer(text):
        before = len(_meaningful(text[:separator.start()]))
        # A request follows a preamble: "What is like X, please?" ends in filler instead.
        if (before > MAX_PREAMBLE_WORDS
                or len(_meaningful(text[separator.end():])) < MIN_SHARED_WORDS):
            break
        found = before
    return found


def same_message(pattern: Pattern, message: Message) -> bool:
    return message.key == pattern.key


def follows_rule(pattern: Pattern, message: Message) -> bool:
    """The message holds the rule's phrase and has the corrected message's shape (see
    `same_shape`)."""
    return (bool(pattern.rule) and f" {pattern.rule} " in f" {message.key} "
            and same_shape(pattern, message))


def same_shape(pattern: Pattern, message: Message) -> bool:
    """The message is the corrected request about another subject: it fits the frame or, with
    no frame known, changes one place of a few words outside the rule's phrase."""
    if pattern.frame:
        return fits_frame(pattern, message)
    if not pattern.rule_words:
        return False
    return _changed_in_one_place(pattern, message, may_change=lambda k: k not in pattern.rule_words)


def fits_frame(pattern: Pattern, message: Message) -> bool:
    """The message is the misunderstood one with its subject changed in one place, and at most
    a few words more: in a subject the message sets off ("What is like < very pretty > ?"), two
    before or after the request, and a preamble ("One more: ...", said with this message or
    with the corrected one). Every frame word stays, and nothing comes between two words that
    stay: "X जैसा क्या है" (what is like X) fits "Y जैसा क्या है", not "X जैसा क्या सुनाई देता
    है" (what sounds like X), though that holds every frame word in order."""
    if not pattern.frame or not pattern.subject or not message.may_keep(pattern):
        return False
    return _changed_in_one_place(pattern, message, may_change=lambda k: k in pattern.subject)


def _changed_in_one_place(
    pattern: Pattern, message: Message, may_change: Callable[[int], bool]
) -> bool:
    """Aligned as said, or without the preamble of either."""
    said = _as_key_words(pattern.key_words, message.words)
    return any(
        _one_place(pattern, message, said, key_from, message_from, may_change)
        for key_from in {0, pattern.preamble} for message_from in {0, message.preamble})


def _one_place(pattern: Pattern, message: Message, said: Sequence[str], key_from: int,
               message_from: int, may_change: Callable[[int], bool]) -> bool:
    """One place changed, of a few words, where `may_change` allows; a longer subject only
    where the message sets it off: "What is < very quick > ?" is "What is < quick > ?" about
    another subject, "What is like quick?" is not ("like" is no part of a subject). `said`:
    the message's words, in the key's forms."""
    alignment = _Alignment.of(pattern.key_words[key_from:], said[message_from:])
    if (alignment.inserted_within or len(alignment.changed) > 1
            or alignment.around > EXTRA_WORDS):
        return False
    for k1, k2, m1, m2 in alignment.changed:
        new_subject = {m + message_from for m in range(m1, m2)}
        longer = (m2 - m1) - (k2 - k1)
        if (not all(may_change(k + key_from) for k in range(k1, k2))
                or k2 - k1 > MAX_SUBJECT_WORDS
                or (longer > 0 and not new_subject <= message.marked)):
            return False
    return True


def wording_similarity(pattern: Pattern, message: Message) -> float:
    """1 - word-level edit distance, normalized, without fillers and preambles, other forms and
    spellings of the key's words counted as the same: MemPrompt's lexical lookup (Appendix D)."""
    said = _as_key_words(pattern.key_words, message.words)
    return max(Levenshtein.normalized_similarity(pattern.key_words[key_from:],
                                                 said[message_from:])
               for key_from in {0, pattern.preamble} for message_from in {0, message.preamble})
