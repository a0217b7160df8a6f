"""Read topics out of whatever a model returns: lists, bullets, prose or garbage.

What cannot be tied to the conversation is dropped. The parser never makes a topic up: a line
becomes a topic only if it carries words that the conversation itself contains.
"""

from __future__ import annotations

import re

import yake

from jobs.drafts import TopicDraft

_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s+(?P<body>.+)$")
_TALKED = re.compile(
    r"talked about\s+(?:the\s+topic\s+of\s+)?(?P<label>[^,.;:]*?)\s*[,.;:]\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_PLACEHOLDER = re.compile(r"\*\s*\*|\{[a-z_]+\}|<[a-z_ ]+>|\.\.\.$")
# Words of the template itself: they prove nothing about the conversation.
_TEMPLATE_WORDS = {
    "the", "and", "host", "talked", "about", "said", "topic", "topics", "that", "this",
    "with", "his", "her", "their", "they", "she", "was", "were", "has", "have", "had", "also",
    "mentioned", "shared", "expressed", "told", "user", "who", "for", "from", "are", "you",
}
_MAX_LABEL_WORDS = 4
# A description must share this many content words with the conversation to be kept.
_GROUNDING_WORDS = 2


def parse_topics(output: str, conversation: str) -> list[TopicDraft]:
    """The topics in `output` grounded in `conversation` (what was said, without speaker
    names); may be empty."""
    known = _content_words(conversation)
    drafts: list[TopicDraft] = []
    for piece in _pieces(output):
        draft = _draft(piece, known)
        if draft is not None and all(d.description != draft.description for d in drafts):
            drafts.append(draft)
    return drafts


def parse_merged(output: str, sources: str) -> str | None:
    """The first grounded description in a merge answer, or None."""
    drafts = parse_topics(output, sources)
    return drafts[0].description if drafts else None


def _pieces(output: str) -> list[str]:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    items = [m.group("body") for line in lines if (m := _ITEM.match(line))]
    if items:
        return items
    # Prose: one topic per sentence that follows the template, or per paragraph otherwise.
    text = " ".join(lines)
    sentences = re.split(r"(?<=[.!?])\s+(?=The\s)", text)
    return sentences if len(sentences) > 1 else lines


def _draft(piece: str, known: set[str]) -> TopicDraft | None:
    text = re.sub(r"\*\*(?=\w)|(?<=\w)\*\*", "", piece).strip()  # **bold** markup, not gaps
    text = re.sub(r"^[^.:]{1,40}:\s*(?=The\b)", "", text)  # "Hobbies: The host and I..."
    if _PLACEHOLDER.search(text):
        return None
    match = _TALKED.search(text)
    label = _clean_label(match.group("label")) if match else ""
    said = match.group("rest") if match else text
    if len(_content_words(text) & known) < _GROUNDING_WORDS:
        return None
    if not label or len(label.split()) > _MAX_LABEL_WORDS:
        label = keyword_label(said)
    return TopicDraft(label=label, description=text) if label else None


def _clean_label(raw: str) -> str:
    label = re.sub(r"^(?:the|a|an|his|her|my|their)\s+", "", raw.strip(" *\"'"), flags=re.I)
    return label.strip()


def _content_words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _TEMPLATE_WORDS}


def keyword_label(text: str) -> str:
    """A short label from the text's top keyword (yake), for a topic that came without one."""
    extractor = yake.KeywordExtractor(lan="en", n=1, top=5)
    for keyword, _score in extractor.extract_keywords(text):
        if keyword.lower() not in _TEMPLATE_WORDS:
            return keyword.lower()
    words = sorted(_content_words(text) - _TEMPLATE_WORDS)
    return words[0] if words else ""
