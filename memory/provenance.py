"""What each reply used, kept with its round in SQL: `/why` and `/wrong` then work in every
process, after a restart, and after memories were forgotten.

Only ids and scores are kept, never a memory's text: a memory forgotten after the reply is
shown as gone (its number stays, so `/wrong <n>` still points where `/why` said), and
`/forget all`, which deletes the rounds, leaves nothing to explain.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.facts.rows import SQLFactRows
from memory.feedback.rows import SQLFeedbackRows
from memory.plans.rows import SQLPlanRows
from memory.pool.rows import SQLPoolRows
from memory.sql.rounds import SQLRoundStore
from memory.topics.rows import SQLTopicRows
from memory.types import Fact, Feedback, Found, Recall, Round, ScoredFeedback, Speaker, Topic

log = logging.getLogger(__name__)

# Set in a reply's record once `/why` has shown it.
EXPLAINED = "explained"
GONE = "(no longer kept: forgotten, merged or said to be wrong since this reply)"


@dataclass(frozen=True, slots=True)
class LastReply:
    """What `/why` explains and `/wrong` fixes: the user's last reply, the message it answered
    and the numbers of the memories it cited."""

    recall: Recall
    asked: str
    cited: tuple[int, ...] = ()
    # `/why` showed this reply and no message of the user came since: their next message may
    # say "No, that's wrong: ..." about it.
    explained: bool = False


def used_record(recall: Recall, asked: str, cited: Sequence[int]) -> str:
    """The JSON kept with a reply's round: what the prompt held, by id, in its order."""
    return json.dumps({
        "asked": asked,
        "cited": list(cited),
        "recent": len(recall.recent),
        "relevant": [{"kind": "topic" if isinstance(f.memory, Topic) else "fact",
                      "id": f.memory.id, "score": f.score, "similarity": f.similarity,
                      "words": f.words, "tokens": f.tokens, "newest_on": f.newest_on,
                      "earlier": f.earlier} for f in recall.relevant],
        "latest": [topic.id for topic in recall.latest],
        "clarifications": [{"id": c.feedback.id, "score": c.score, "how": c.how}
                           for c in recall.clarifications],
        "to_check": [fact.id for fact in recall.to_check],
        "examples": [entry.id for entry in recall.examples],
        "words_only": recall.words_only,
        "short_prompt": recall.short_prompt,
        "follow_up": recall.follow_up.id if recall.follow_up is not None else None,
    }, ensure_ascii=False)


class ReplyUses:
    """Reads back the newest reply's record and the memories it names, as they are now."""

    def __init__(self, rounds: SQLRoundStore, topics: SQLTopicRows, facts: SQLFactRows,
                 feedback: SQLFeedbackRows, pool: SQLPoolRows, plans: SQLPlanRows) -> None:
        self._rounds = rounds
        self._topics = topics
        self._facts = facts
        self._feedback = feedback
        self._pool = pool
        self._plans = plans

    async def last(self, user_id: str) -> LastReply | None:
        """The user's newest reply (in any process), or None when there is none to explain."""
        return await self._newest(user_id, explaining=False)

    async def explain(self, user_id: str) -> LastReply | None:
        """`last`, for `/why`: the record is marked explained, so the user's next message may
        say "No, that's wrong: ..." about it, whichever process takes that message."""
        return await self._newest(user_id, explaining=True)

    async def _newest(self, user_id: str, *, explaining: bool) -> LastReply | None:
        found = await self._rounds.last_used(user_id)
        if found is None:
            return None
        round_, text, newest = found
        try:
            record = json.loads(text)
            last = await self._rebuilt(round_, record, newest and record.get(EXPLAINED) is True)
        except (ValueError, KeyError, TypeError) as error:  # a record we cannot read
            log.warning("The record of what round %s used is unreadable: %r", round_.id, error)
            return None
        if explaining and record.get(EXPLAINED) is not True:
            await self._rounds.keep_used(round_.id, json.dumps({**record, EXPLAINED: True},
                                                               ensure_ascii=False))
        return last

    async def _rebuilt(self, round_: Round, record: dict[str, Any], explained: bool
                       ) -> LastReply:
        user_id = round_.user_id
        relevant = record["relevant"]
        topic_ids = [r["id"] for r in relevant if r["kind"] == "topic"] + record["latest"]
        fact_ids = [r["id"] for r in relevant if r["kind"] == "fact"] + record["to_check"]
        follow_up = record.get("follow_up")  # None in records before plans were kept
        recent, topics, facts, feedback, examples, plan = await asyncio.gather(
            self._rounds.recent_rounds(user_id, record["recent"], before_id=round_.id),
            self._topics.active_by_ids(user_id, topic_ids),
            self._facts.active_by_ids(user_id, fact_ids),
            self._feedback.active_by_ids([c["id"] for c in record["clarifications"]]),
            asyncio.gather(*(self._pool.get(entry_id) for entry_id in record["examples"])),
            self._plans.by_id(user_id, follow_up) if follow_up else _nothing(),
        )
        topic_of = {t.id: t for t in topics}
        fact_of = {f.id: f for f in facts}
        # A correction shown to this user: their own, or one shared with everyone.
        feedback_of = {f.id: f for f in feedback if f.user_id == user_id or f.shared}
        when = round_.created_at

        def topic(topic_id: str) -> Topic:
            return topic_of.get(topic_id) or _gone_topic(topic_id, user_id, when)

        def fact(fact_id: str) -> Fact:
            return fact_of.get(fact_id) or _gone_fact(fact_id, user_id, when)

        recall = Recall(
            recent=tuple(recent),
            relevant=tuple(Found(topic(r["id"]) if r["kind"] == "topic" else fact(r["id"]),
                                 r["score"], r["similarity"], r["words"], r["tokens"],
                                 r.get("newest_on"), bool(r.get("earlier")))
                           for r in relevant),
            latest=tuple(topic(topic_id) for topic_id in record["latest"]),
            clarifications=tuple(
                ScoredFeedback(feedback_of.get(c["id"]) or _gone_feedback(c["id"], user_id, when),
                               c["score"], c["how"]) for c in record["clarifications"]),
            to_check=tuple(fact(fact_id) for fact_id in record["to_check"]),
            examples=tuple(entry for entry in examples if entry is not None),
            words_only=record["words_only"],
            short_prompt=record.get("short_prompt", False),  # records before it was kept
            follow_up=plan,
        )
        return LastReply(recall, record["asked"], tuple(record["cited"]), explained)


async def _nothing() -> None:
    return None


def _gone_topic(topic_id: str, user_id: str, when: datetime) -> Topic:
    return Topic(topic_id, user_id, "gone", GONE, when, when)


def _gone_fact(fact_id: str, user_id: str, when: datetime) -> Fact:
    return Fact(fact_id, user_id, GONE, Speaker.USER, when, ())


def _gone_feedback(feedback_id: str, user_id: str, when: datetime) -> Feedback:
    return Feedback(feedback_id, user_id, key="", feedback=GONE, understanding=None, frame="",
                    rule="", persona="", shared=False, created_at=when)
