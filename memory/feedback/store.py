"""Feedback memory (MemPrompt's M, Ω and C): corrections stored in SQL and indexed by the
message they corrected, found again for new messages that share the misunderstanding."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np

from memory.feedback.key_vectors import KeyVectors
from memory.feedback.matching import (
    Message,
    Pattern,
    fits_frame,
    follows_rule,
    frame_of,
    normalize_key,
    rule_phrase,
    same_message,
    shared_frame,
    wording_similarity,
    words,
)
from memory.feedback.rows import Candidate, SQLFeedbackRows
from memory.index.chroma import ChromaIndex
from memory.index.exact import nearest
from memory.protocols import Embedder, Vector
from memory.types import (
    SAME_MESSAGE,
    SAME_REQUEST,
    SIMILAR,
    YOUR_RULE,
    Feedback,
    ScoredFeedback,
)

log = logging.getLogger(__name__)

# The owner of the shared collection: no frontend makes a user id without a platform prefix
# and with stars, so this can never be a person.
EVERYONE = "*everyone*"
STATED = (SAME_MESSAGE, YOUR_RULE)  # the user said it of this very message or phrase
SHAPED = (SAME_MESSAGE, YOUR_RULE, SAME_REQUEST)  # the message has the corrected one's shape
# Two corrections found by likeness that say different things are told apart only if one is
# clearly closer than the other.
UNCLEAR_MARGIN = 0.02
# The rows read per message for the wording lookup; the newest win when there are more.
MAX_CANDIDATE_ROWS = 500
SEMANTIC_CANDIDATES = 5


@dataclass(frozen=True, slots=True)
class LookupSettings:
    similarity: float  # cosine above which a correction without a frame applies
    wording_similarity: float  # word-level similarity that makes a short message a candidate
    wording_max_words: int  # messages up to this long also get the wording lookup
    max_clarifications: int


@dataclass(frozen=True, slots=True)
class Correction:
    """What the user said the companion misunderstood, and what it had answered."""

    user_id: str
    key: str  # the misunderstood message
    feedback: str
    understanding: str | None
    answer: str  # the reply that misunderstood it
    persona: str
    shared: bool = False
    round_id: int | None = None
    # The words that say what the message is about, when a model was asked (the answer named
    # none of them): what the frame leaves out.
    subject: str = ""
    # The companion's replies before `answer`: words many of them hold are its own wording,
    # not what the misunderstood message was about.
    earlier_replies: tuple[str, ...] = ()


class FeedbackMemory:
    """The user's corrections, and the ones shared with everyone. SQL is the record (written
    first); each user's vectors live in their own collection, shared ones in another."""

    def __init__(
        self,
        rows: SQLFeedbackRows,
        index: ChromaIndex,
        embedder: Embedder,
        settings: LookupSettings,
    ) -> None:
        self._rows = rows
        self._index = index
        self._embedder = embedder
        self._settings = settings
        self._patterns: dict[tuple[str, str], Pattern] = {}  # by row id and frame
        self._keys = KeyVectors(index)

    async def remember(self, correction: Correction) -> Feedback:
        """Store a correction; an older one of the same message stops applying."""
        item = Feedback(
            id=uuid.uuid4().hex,
            user_id=correction.user_id,
            key=correction.key.strip(),
            feedback=correction.feedback.strip(),
            understanding=correction.understanding,
            frame=frame_of(correction.key, correction.subject or correction.understanding
                           or correction.answer, correction.earlier_replies),
            rule=rule_phrase(correction.feedback, correction.key),
            persona=correction.persona,
            shared=correction.shared,
            created_at=datetime.now(UTC),
        )
        item = await self._with_learned_frame(item)
        replaced = await self._rows.insert(item, round_id=correction.round_id)
        try:
            # A superseded vector left behind is harmless: lookups keep only active rows' hits.
            await self._unindex(correction.user_id, replaced)
            await self._index_rows([_candidate(item)])
        except Exception:  # the row is the record, marked unindexed: the sweep indexes it
            log.warning("Could not index feedback %s yet", item.id, exc_info=True)
        return item

    async def _with_learned_frame(self, item: Feedback) -> Feedback:
        """When the answer named no subject, the frame can come from another corrected message
        of the same shape: what the two share is the request, what differs is the subject
        ("how do i use < fog > ?", "how do i use < rider > ?"). The other one, if it had no
        frame either, gets it too."""
        for other in await self._rows.candidates(item.user_id, MAX_CANDIDATE_ROWS):
            if other.user_id != item.user_id or (item.frame and other.frame):
                continue
            frame = shared_frame(item.key, other.key_text)
            # Where the other's subject is known, the two differ in it or are not one request:
            # "X जैसा नहीं क्या है" and "Y से अलग क्या है" share only "क्या है" (what is).
            if (not frame or (other.frame and frame != other.frame)
                    or not await self._misread_alike(item, other.id)):
                continue
            if not other.frame:
                await self._rows.set_frame(item.user_id, other.id, frame)
            if not item.frame:
                item = replace(item, frame=frame)
        return item

    async def _misread_alike(self, item: Feedback, other_id: str) -> bool:
        """Two messages of one shape are one request about two subjects only when the companion
        misread both the same way: "X का पर्यायवाची क्या है" and "X का विलोम क्या है" share a shape
        too when X is the same word. Alike: the same stated understanding apart from the words
        of the message itself, or, when one was not stated, the same feedback."""
        found = await self._rows.active_by_ids([other_id])
        if not found:
            return False
        other = found[0]
        if item.understanding and other.understanding:
            mine, theirs = _understood(item), _understood(other)
            # One may name its subject with a joining word ("a homonym of quick"): one word more.
            return len(mine ^ theirs) <= 1 and (mine <= theirs or theirs <= mine)
        return normalize_key(item.feedback) == normalize_key(other.feedback)

    @property
    def enabled(self) -> bool:
        """False when no clarification may go into a prompt (`max_clarifications` is 0)."""
        return self._settings.max_clarifications > 0

    async def lookup(
        self, user_id: str, text: str, pending_vector: Awaitable[Vector | None]
    ) -> list[ScoredFeedback]:
        """The corrections that apply to `text` (by the user, or shared), best first.
        `pending_vector` is the message's vector, awaited once the rows are read."""
        if not self.enabled:
            return []
        candidates = {c.id: c for c in await self._rows.candidates(user_id, MAX_CANDIDATE_ROWS)}
        vector = await pending_vector
        if not candidates:
            return []
        message = Message.of(text)
        cosines = (await self._semantic(user_id, vector, candidates)
                   if vector is not None and self._cosine_decides(candidates, message) else {})
        kept = {
            c.id: how for c in candidates.values()
            if (how := self._gate(c, message, cosines.get(c.id))) is not None
        }
        if not kept:
            return []
        found = [ScoredFeedback(item, *kept[item.id])
                 for item in await self._rows.active_by_ids(list(kept))]
        return _best(found, self._settings.max_clarifications)

    def _gate(
        self, candidate: Candidate, message: Message, cosine: float | None
    ) -> tuple[float, str] | None:
        """Found by Ω, kept by C: a correction applies where its misunderstanding can recur.
        Returns the score and how it was found."""
        pattern = self._pattern(candidate)
        if same_message(pattern, message):
            return 1.0, SAME_MESSAGE
        if follows_rule(pattern, message):
            return 1.0, YOUR_RULE
        similar = cosine is not None and cosine >= self._settings.similarity
        if pattern.frame:
            wording = self._wording(pattern, message)
            alike = wording >= self._settings.wording_similarity
            if (similar or alike) and fits_frame(pattern, message):
                return max(cosine or 0.0, wording), SAME_REQUEST
            return None
        # No frame to check the wording against: only a close paraphrase is safe.
        return (cosine, SIMILAR) if similar and cosine is not None else None

    def _cosine_decides(self, candidates: dict[str, Candidate], message: Message) -> bool:
        """Whether a cosine could let a candidate in that its wording does not: one without a
        frame, or one whose frame the message keeps while its wording is not alike enough.
        Most messages keep no frame, and a kept one is mostly alike too: no vector query."""
        for candidate in candidates.values():
            pattern = self._pattern(candidate)
            if not pattern.frame or (
                fits_frame(pattern, message)
                and self._wording(pattern, message) < self._settings.wording_similarity
            ):
                return True
        return False

    def _pattern(self, candidate: Candidate) -> Pattern:
        """Rows never change their key or rule, and a frame only once (learned from another
        correction), so each is tokenized once per frame."""
        pattern = self._patterns.get((candidate.id, candidate.frame))
        if pattern is None:
            pattern = Pattern.of(candidate.key_text, candidate.frame, candidate.rule)
            self._patterns[(candidate.id, candidate.frame)] = pattern
        return pattern

    def _wording(self, pattern: Pattern, message: Message) -> float:
        """The lexical lookup, for short messages only (where a few words decide)."""
        if len(message.words) > self._settings.wording_max_words:
            return 0.0
        return wording_similarity(pattern, message)

    async def _semantic(
        self, user_id: str, vector: Vector, candidates: dict[str, Candidate]
    ) -> dict[str, float]:
        """Cosine similarity of the nearest keys, searched exactly in memory: the few nearest
        of the user's own, and of the shared ones."""
        own = [c.id for c in candidates.values() if c.user_id == user_id]
        # Another user's shared keys are read from the shared collection.
        shared = [c.id for c in candidates.values() if c.shared]
        held = await self._keys.of({user_id: own,
                                    EVERYONE: [i for i in shared if candidates[i].user_id
                                               != user_id]})
        scores: dict[str, float] = {}
        for ids in (own, shared):
            present = [i for i in ids if i in held]
            units = np.stack([held[i] for i in present]) if present else np.zeros((0, 0))
            for row, cosine in nearest(units, vector, SEMANTIC_CANDIDATES):
                scores[present[row]] = max(cosine, scores.get(present[row], -1.0))
        return scores

    async def _index_rows(self, rows: list[Candidate]) -> None:
        """Index rows by their key: in their owner's collection, and the shared one if shared."""
        vectors = await self._embedder.embed([row.key_text for row in rows])
        self._keys.put([row.id for row in rows], vectors)
        for row, vector in zip(rows, vectors, strict=True):
            for owner in [row.user_id] + ([EVERYONE] if row.shared else []):
                await self._index.upsert(owner, [row.id], [vector], [row.key_text],
                                         [{"owner": row.user_id}])
        await self._rows.mark_indexed([row.id for row in rows])

    async def reindex(self) -> int:
        """Index every active correction the index may miss (a failed write, a rebuilt index);
        returns how many. The sweep runs it: a lookup only reads."""
        repaired = 0
        while stale := await self._rows.unindexed():
            await self._index_rows(stale)
            repaired += len(stale)
        return repaired

    async def _unindex(self, user_id: str, ids: list[str]) -> None:
        if ids:
            await self._index.delete(user_id, ids)
            await self._index.delete(EVERYONE, ids)

    async def list_mine(self, user_id: str) -> list[Feedback]:
        return await self._rows.active_of(user_id)

    async def list_all(self, limit: int = 50) -> list[Feedback]:
        return await self._rows.active_everywhere(limit)

    async def given_in_round(self, user_id: str, round_id: int) -> Feedback | None:
        return await self._rows.given_in_round(user_id, round_id)

    async def find(self, id_prefix: str, user_id: str | None) -> Feedback:
        """One active correction by id prefix: the user's, or anyone's (`user_id` None)."""
        matches = await self._rows.with_id_prefix(id_prefix.lower(), user_id)
        if len(matches) != 1:
            raise LookupError("no feedback" if not matches else "more than one")
        return matches[0]

    async def forget(self, user_id: str, feedback_id: str | None = None) -> int:
        """Forget one of the user's corrections, or all of them; returns how many."""
        gone = await self._rows.delete(user_id, feedback_id)
        if feedback_id is None:
            await self._index.delete(user_id, None)  # the user's whole collection
        await self._index.delete(EVERYONE, gone)
        if feedback_id is not None:
            await self._index.delete(user_id, gone)
        return len(gone)

    async def retract(self, user_id: str, feedback_id: str) -> bool:
        """Stop applying one of the user's own corrections (said to be wrong); kept for audit.
        Lookups read active rows only, so its vectors need not go."""
        return await self._rows.retract(user_id, feedback_id)

    async def restore(self, user_id: str, id_prefix: str) -> Feedback | None:
        """Undo a retraction of one of the user's corrections (its vectors never left)."""
        return await self._rows.restore(user_id, id_prefix)

    async def set_shared(self, item: Feedback, shared: bool) -> None:
        """Let one user's correction apply to everyone (an admin's call), or stop that."""
        await self._rows.set_shared(item.id, shared)
        if shared:
            await self._index_rows([replace(_candidate(item), shared=True)])
        else:
            await self._index.delete(EVERYONE, [item.id])
            await self._rows.mark_indexed([item.id])


def _candidate(item: Feedback) -> Candidate:
    return Candidate(item.id, item.user_id, item.key, item.frame, item.rule, item.shared)


def _best(found: list[ScoredFeedback], limit: int) -> list[ScoredFeedback]:
    """The clarification that applies best, alone: two of another kind would tell the model two
    readings of one message, and a wrong one is worse than none. The same message comes first,
    then those found for a message of the corrected one's shape (a stated rule before a frame),
    then those close in meaning only. Rules about different phrases of the message may apply
    together. When the best two found alike (both by shape, or both by meaning, not stated)
    say different things about as strongly, none is kept. Two corrections of one request's shape
    (one frame) are not two readings: the newer is the user's latest word on it."""
    ranked = sorted(found, key=lambda s: (s.how == SAME_MESSAGE, s.how in SHAPED,
                                          s.how in STATED, s.score, s.feedback.created_at),
                    reverse=True)
    newest_of_frame = {}
    for scored in sorted(found, key=lambda s: s.feedback.created_at):
        newest_of_frame[scored.feedback.frame] = scored.feedback.id
    distinct: list[ScoredFeedback] = []
    seen: set[str] = set()
    for scored in ranked:
        text = normalize_key(scored.feedback.feedback)
        frame = scored.feedback.frame
        if scored.how == SAME_REQUEST and newest_of_frame[frame] != scored.feedback.id:
            continue
        if text not in seen:
            seen.add(text)
            distinct.append(scored)
    if not distinct:
        return []
    best = distinct[0]
    if best.how == YOUR_RULE:
        return _rules_apart(distinct, limit)
    runner_up = distinct[1] if len(distinct) > 1 else None
    if (best.how not in STATED and runner_up is not None and runner_up.how == best.how
            and best.score - runner_up.score < UNCLEAR_MARGIN):
        return []
    return [best][:limit]


def _rules_apart(ranked: list[ScoredFeedback], limit: int) -> list[ScoredFeedback]:
    """The best rule, and others whose phrases share no word with a kept one."""
    kept: list[ScoredFeedback] = []
    used: set[str] = set()
    for scored in ranked:
        if scored.how != YOUR_RULE:
            continue
        phrase = set(scored.feedback.rule.split())
        if not phrase & used:
            kept.append(scored)
            used |= phrase
    return kept[:limit]


def _understood(item: Feedback) -> set[str]:
    """The words of the stated understanding that are not the message's: what was understood
    of the request, without its subject ("you want a homonym", with or without "of quick")."""
    own = set(words(item.key.lower()))
    return {w for w in words((item.understanding or "").lower()) if w not in own}
