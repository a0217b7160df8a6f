"""Read facts out of a model's answer to the facts prompt: one statement a line, each grounded in
what its speaker said and tied to the round it came from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from jobs.summarize.drafts import FactDraft, NothingUsable, Voices
from jobs.summarize.parsing import grounded, stems
from memory.statements import carries_information
from memory.types import Round, Speaker

_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s+")
_NOTHING = re.compile(r"^\W*(?:none|nothing|no facts)\b", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"<[^>]*>|\*\*")


def parse_facts(output: str, rounds: Sequence[Round], voices: Voices) -> list[FactDraft]:
    """The grounded facts in `output`, each once. Raises `NothingUsable` when the answer holds
    lines but none that the conversation bears out (a template echoed, a chat continued)."""
    lines = [_ITEM.sub("", line).strip() for line in output.splitlines()]
    lines = [line for line in lines if line and not _NOTHING.match(line)]
    said = {speaker: _said_by(speaker, rounds) for speaker in Speaker}
    drafts: list[FactDraft] = []
    for line in lines:
        draft = _draft(line, said, voices)
        if draft is not None and all(d.text != draft.text for d in drafts):
            drafts.append(draft)
    if lines and not drafts:
        raise NothingUsable(f"no grounded fact in the model's answer: {output[:200]!r}")
    return drafts


@dataclass(frozen=True, slots=True)
class _Said:
    """What one speaker said in the window: per round, and all of it, as stems."""

    rounds: list[tuple[Round, set[str]]]
    everything: set[str]


def _said_by(speaker: Speaker, rounds: Sequence[Round]) -> _Said:
    words = [(r, r.user_text if speaker is Speaker.USER else r.reply_text or "") for r in rounds]
    return _Said([(r, stems(text)) for r, text in words],
                 stems(" ".join(text for _, text in words)))


def _draft(line: str, said: dict[Speaker, _Said], voices: Voices) -> FactDraft | None:
    speaker, text = _speaker(line, voices)
    text = text.strip().strip("\"“”").strip()
    if _PLACEHOLDER.search(text) or not carries_information(text):
        return None
    if not grounded(text, said[speaker].everything):
        return None
    mine = stems(text)
    # Provenance: the round whose words the fact shares most (the later one on a tie).
    source = max(said[speaker].rounds, key=lambda pair: (len(mine & pair[1]), pair[0].id))[0]
    return FactDraft(text, speaker, (source.id,), source.created_at)


def _speaker(line: str, voices: Voices) -> tuple[Speaker, str]:
    """Who said it, by the line's "Host:" or "You:" (a line without either is the user's)."""
    head, colon, rest = line.partition(":")
    if colon and len(head.split()) <= 3:
        who = head.strip(" *").lower()
        if who in {"you", voices.companion.lower(), f"{voices.companion.lower()} said"}:
            return Speaker.COMPANION, rest
        if who in {voices.user.lower(), f"the {voices.user.lower()}",
                   f"{voices.user.lower()} said"}:
            return Speaker.USER, rest
    return Speaker.USER, line
