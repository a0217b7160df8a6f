"""Read topics out of whatever a model returns: lists, bullets, prose or garbage.

What cannot be tied to the conversation is dropped. The parser never makes a topic up: a line
becomes a topic only if most of its words are words the user actually used.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import yake

from jobs.summarize.drafts import TopicDraft
from memory.lexical import STOP_WORDS

_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s+(?P<body>.+)$")
_TALKED = re.compile(
    r"talked about\s+(?:the\s+topic\s+of\s+)?(?P<label>[^,.;:]*?)\s*[,.;:]\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_BOLD = re.compile(r"\*\*([^*\n]+?)\*\*")
_PLACEHOLDER = re.compile(r"\*\s*\*|\{[a-z_]+\}|<[a-z_ ]+>")
# Words of the template itself: they prove nothing about the conversation.
_TEMPLATE_WORDS = {
    "the", "and", "host", "talked", "about", "said", "topic", "topics", "that", "this",
    "with", "his", "her", "their", "they", "she", "was", "were", "has", "have", "had", "also",
    "mentioned", "shared", "expressed", "told", "user", "who", "for", "from", "are", "you",
}
# Common words that any long chat contains: they cannot ground a claim either.
_COMMON_WORDS = {
    "again", "all", "any", "because", "been", "being", "but", "can", "could", "day", "did",
    "does", "doing", "done", "every", "get", "got", "going", "had", "here", "how", "into", "its",
    "just", "last", "like", "lot", "made", "make", "many", "more", "most", "much", "new", "next",
    "not", "now", "one", "only", "other", "our", "out", "over", "really", "said", "same", "see",
    "since", "some", "still", "such", "than", "them", "then", "there", "these", "thing",
    "things", "think", "time", "today", "too", "two", "very", "want", "way", "week", "well",
    "went", "what", "when", "where", "which", "while", "why", "will", "would", "year", "yes",
    "yesterday", "you", "your",
}
_COMMON_STEMS = {w[:4] for w in _COMMON_WORDS}
_MAX_LABEL_WORDS = 4
# A kept line shares this many of its content words (or all, if fewer), and this share of
# them, with the user.
_GROUNDING_WORDS = 2
_GROUNDING_SHARE = 0.6


def parse_topics(output: str, said: str) -> list[TopicDraft]:
    """The topics in `output` grounded in `said` (the user's own words); may be empty."""
    known = stems(said)
    drafts: list[TopicDraft] = []
    for piece in _pieces(output):
        draft = _draft(piece, known)
        if draft is not None and all(d.description != draft.description for d in drafts):
            drafts.append(draft)
    return drafts


def parse_merged(output: str, sources: str) -> str | None:
    """The merged description in a merge answer (one sentence, maybe wrapped), or None."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if _ITEM.match(line) or _TALKED.search(line)),
                 0)
    body = " ".join(lines[start:])
    item = _ITEM.match(body)
    draft = _draft(item.group("body") if item else body, stems(sources))
    return draft.description if draft else None


def parse_merged_many(output: str, sources: Sequence[str]) -> list[str | None]:
    """The merged description of each topic in an answer to the several-topics merge, by its
    number (None for a topic whose line is missing or ungrounded)."""
    numbered: dict[int, str] = {}
    current: int | None = None
    for line in (line.strip() for line in output.splitlines()):
        if match := _NUMBERED.match(line):
            current = int(match[1])
            numbered.setdefault(current, line)
        elif line and current is not None and current in numbered:
            numbered[current] += " " + line
    return [parse_merged(numbered[n], text) if n in numbered else None
            for n, text in enumerate(sources, start=1)]


_NUMBERED = re.compile(r"^(\d+)\s*[.):]\s+")


def _pieces(output: str) -> list[str]:
    """List items (with their wrapped lines), else template sentences, else paragraphs."""
    items: list[str] = []
    loose: list[str] = []
    for line in (line.strip() for line in output.splitlines()):
        if not line:
            continue
        if match := _ITEM.match(line):
            items.append(match.group("body"))
        elif items:
            items[-1] += " " + line  # an item wrapped onto the next line
        else:
            loose.append(line)
    if items:
        return items
    text = " ".join(loose)
    sentences = re.split(r"(?<=[.!?])\s+(?=The\s)", text)
    return sentences if len(sentences) > 1 else loose


def _draft(piece: str, known: set[str]) -> TopicDraft | None:
    text = _BOLD.sub(r"\1", piece).strip()  # **bold** markup, not the template's gaps
    text = re.sub(r"^[^.:]{1,40}:\s*(?=The\b)", "", text)  # "Hobbies: The host and I..."
    match = _TALKED.search(text)
    said = match.group("rest") if match else text  # the label may abstract; the facts may not
    if _PLACEHOLDER.search(text) or not grounded(said, known):
        return None
    label = _clean_label(match.group("label")) if match else ""
    if not label or len(label.split()) > _MAX_LABEL_WORDS:
        label = keyword_label(said)
    return TopicDraft(label=label, description=text) if label else None


def grounded(text: str, known: set[str]) -> bool:
    words = stems(text)
    shared = words & known
    enough = min(_GROUNDING_WORDS, len(words))
    return bool(shared) and len(shared) >= enough and len(shared) >= _GROUNDING_SHARE * len(words)


def _clean_label(raw: str) -> str:
    label = re.sub(r"^(?:the|a|an|his|her|my|their)\s+", "", raw.strip(" *\"'"), flags=re.I)
    return label.strip()


def stems(text: str) -> set[str]:
    """Content words, cut to four letters so 'plays' meets 'playing' and 'admires' 'admire'."""
    stems = {w[:4] for w in (m.lower() for m in _WORD.findall(text)) if w not in _TEMPLATE_WORDS}
    return stems - _COMMON_STEMS


@functools.cache
def _keywords() -> yake.KeywordExtractor:
    return yake.KeywordExtractor(lan="en", n=1, top=5)


def keyword_label(text: str) -> str:
    """A short label from the text's top keyword (yake), for a topic that came without one.
    Function words, fragments of contractions ("couldn") and everyday words ("week") make no
    label."""
    for keyword, _score in _keywords().extract_keywords(text):
        if _can_label(keyword.lower()):
            return str(keyword).lower()
    words = sorted(w for w in {m.lower() for m in _WORD.findall(text)} if _can_label(w))
    return words[0] if words else ""


def _can_label(word: str) -> bool:
    return (len(word) >= 4 and word not in _TEMPLATE_WORDS and word not in STOP_WORDS
            and word not in _COMMON_WORDS)
