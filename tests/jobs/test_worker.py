"""Memory upkeep end to end: the memory worker of a whole companion runs the summary and merge
jobs (and hands them back when it stops); real stores, real embedder, the scripted model as the
summarizer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.app import Companion, open_companion
from bot.core.inbound import Incoming
from jobs.queue import FAILED, PENDING, JobQueue, LostClaim
from jobs.summarize.writes import TopicWrites
from jobs.worker import BACKGROUND_AT_ONCE
from memory.days import undated
from memory.sql.tables import topics as topics_table
from memory.statements import self_statements, split_sentences
from memory.types import Exchange, Topic
from tests.conftest import make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM
from tests.jobs.chats import SUBJECTS, three_subject_chat

FACTS_PROMPT = "List the facts worth remembering"

TENNIS_THEN_SWIMMING = [
    "I developed an interest in table tennis because I admire the athlete Zhendong Fan.",
    "I recently started trying to learn table tennis.",
    "Work is so busy that I no longer enjoy sports and even dislike table tennis now.",
    "I have taken up swimming as a new sport recently.",
    "I have already learned how to swim!",
]


def _settings(tmp_path: Path, llm: ScriptedLLM, **memory: Any) -> Any:
    """Scripted replies answer the topic prompts; the facts prompt gets "None" here (the facts
    tests give it facts)."""
    llm.answers[FACTS_PROMPT] = "None"
    return make_settings(tmp_path, llm, memory={"retry_seconds": 0, **memory},
                         llm={"max_retries": 0, "timeout_seconds": 2})


async def _import(companion: Companion, user: str, chat: list[tuple[str, str]]) -> None:
    exchanges = [Exchange(u, r) for u, r in chat]
    await companion.rounds.import_rounds(user, "companion", exchanges)


async def _history(companion: Companion, user: str) -> list[dict[str, Any]]:
    engine = companion.rounds._engine
    query = select(topics_table).where(topics_table.c.user_id == user)
    async with engine.connect() as conn:
        return [dict(row) for row in (await conn.execute(query)).mappings()]


async def test_120_rounds_make_two_summaries_and_twenty_wait(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async with open_companion(_settings(tmp_path, llm, summarizer="extractive")) as companion:
        await _import(companion, "ana", three_subject_chat(120))
        report = await companion.worker.upkeep("ana")
        assert report.summarized == 2
        jobs = [j for j in await companion.worker.queue.jobs() if j.kind == "summarize"]
        assert [(j.first_round_id, j.last_round_id, j.status) for j in jobs] == [
            (1, 50, "done"), (51, 100, "done")]
        assert await companion.rounds.count_unsummarized("ana") == 20
        before = await companion.topics.list_topics("ana")
        assert before

        again = await companion.worker.sweep()  # nothing is summarized twice
        assert (again.summarized, again.merged) == (0, 0)
        assert await companion.topics.list_topics("ana") == before
        assert [j.id for j in await companion.worker.queue.jobs() if j.kind == "summarize"] == [
            j.id for j in jobs]


async def test_extractive_topics_quote_the_user_and_nothing_else(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    chat = three_subject_chat(100)
    said = {s for user, _ in chat for s in self_statements(user)}
    async with open_companion(_settings(tmp_path, llm, summarizer="extractive")) as companion:
        await _import(companion, "ana", chat)
        await companion.worker.upkeep("ana")
        topics = await companion.topics.list_topics("ana")
    assert llm.chat_requests == []  # no model involved
    quoted = [split_sentences(undated(t.description.split("said: ", 1)[1])) for t in topics]
    assert all(sentence in said for sentences in quoted for sentence in sentences)
    for subject, sentences in SUBJECTS.items():
        assert any(set(q) & set(sentences) for q in quoted), f"no topic about {subject}"
    assert {t.label for t in topics} == {"hobbies", "work", "home"}


async def test_chatting_past_the_window_summarizes_in_the_background(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = _settings(tmp_path, llm, summarizer="extractive", summarize_every=4)
    async with open_companion(settings) as companion:
        for text in TENNIS_THEN_SWIMMING[:4]:
            async for _ in companion.dialogue.respond(Incoming("ana", text)):
                pass
        await companion.worker.wait_idle()
        topics = await companion.topics.list_topics("ana")
        assert [t.label for t in topics] == ["hobbies"]
        assert "Zhendong Fan" in topics[0].description
        assert await companion.rounds.count_unsummarized("ana") == 0


async def test_two_labels_ready_together_are_merged_in_one_model_call(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    work = ["The host and I talked about work, and the host said: I work as a nurse.",
            "The host and I talked about work, and the host said: night shifts are hard.",
            "The host and I talked about work, and the host said: my ward is short of staff.",
            "The host and I talked about work, and the host said: I got a new ward.",
            "The host and I talked about work, and the host said: I now work days."]
    merged_hobbies = ("The host and I talked about hobbies, and the host said he liked table "
                      "tennis because of Zhendong Fan and has now learned to swim.")
    merged_work = ("The host and I talked about work, and the host said: I work as a nurse, "
                   "got a new ward and now work days.")
    llm.enqueue(f"1. {merged_hobbies}\n2. {merged_work}")
    async with open_companion(_settings(tmp_path, llm, summarizer="llm")) as companion:
        for sentence in TENNIS_THEN_SWIMMING:
            await companion.add_topic(
                "ana", "hobbies", f"The host and I talked about hobbies, and the host said: "
                f"{sentence}")
        for description in work:
            await companion.add_topic("ana", "work", description)
        asked = len(llm.chat_requests)
        report = await companion.worker.merge_now("ana")
        assert report.merged == 2 and report.failed == 0
        assert len(llm.chat_requests) == asked + 1
        prompt = llm.chat_requests[-1]["messages"][0]["content"]
        assert "Topic 1:" in prompt and "Topic 2:" in prompt
        active = {t.label: t.description for t in await companion.topics.list_topics("ana")}
        assert active == {"hobbies": merged_hobbies, "work": merged_work}


async def test_five_descriptions_merge_into_one_that_memory_then_shows(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    labels = ["hobbies", "Hobby", "hobbies", "HOBBIES!", "hobby"]
    merged_text = ("The host and I talked about hobbies, and the host said he liked table tennis "
                   "because of Zhendong Fan, came to dislike it, and has now learned to swim.")
    llm.enqueue(f"1. {merged_text}")
    async with open_companion(_settings(tmp_path, llm, summarizer="llm")) as companion:
        await companion.add_topic("ana", "work", "The host and I talked about work; nurse.")
        for label, sentence in zip(labels, TENNIS_THEN_SWIMMING, strict=True):
            await companion.add_topic(
                "ana", label, f"The host and I talked about {label}, and the host said: {sentence}")
        report = await companion.worker.merge_now("ana")
        assert report.merged == 1
        active = await companion.topics.list_topics("ana")
        assert [t.description for t in active if t.label != "work"] == [merged_text]
        [merged] = [t for t in active if t.label != "work"]
        history = [row for row in await _history(companion, "ana") if row["status"] == "merged"]
        assert len(history) == 5 and {row["merged_into"] for row in history} == {merged.id}
        assert merged.id in [t.id for t in await companion.topics.latest("ana", 5)]
        recall, _ = await companion.prepare("ana", "Do you know my latest hobby?")
        # The newest topic, and the one about hobbies: in Relevance, so not in Latest_topics.
        assert merged in [f.memory for f in recall.relevant] and merged not in recall.latest
        in_prompt = [f.memory.id for f in recall.relevant] + [t.id for t in recall.latest]
        assert not {r["id"] for r in history} & set(in_prompt)
        assert await companion.worker.undo_merge("ana", merged.id) == 5  # an admin's undo
        restored = await companion.topics.list_topics("ana")
        assert sorted(t.label for t in restored) == sorted([*labels, "work"])
        assert merged.id not in [s.topic.id for s in await companion.search_topics("ana", "swim")]
    merge_prompt = llm.chat_requests[-1]["messages"][0]["content"]
    assert merge_prompt.index("Zhendong Fan") < merge_prompt.index("learned how to swim")


async def test_paper_example_summaries_then_merge_answer_the_latest_hobby(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    """Table-tennis-then-swimming rounds, summarized by the model in five windows and merged."""
    chat = [(s, "Tell me more!") for s in TENNIS_THEN_SWIMMING for _ in range(2)]
    for sentence in TENNIS_THEN_SWIMMING:
        llm.enqueue(f"1. The host and I talked about hobbies, and the host said: {sentence}")
    llm.enqueue("1. The host and I talked about hobbies, and the host said that he liked table "
                "tennis because he admires Zhendong Fan, but work made him dislike it, and he "
                "has now learned to swim.")
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=2)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", chat)
        report = await companion.worker.upkeep("ana")
        assert (report.summarized, report.merged, report.failed) == (5, 1, 0)
        recall, messages = await companion.prepare("ana", "Do you know my latest hobby?")
    # The only topic left: in Relevance, so not in Latest_topics.
    [merged] = [f.memory for f in recall.relevant]
    assert isinstance(merged, Topic) and not recall.latest
    assert "learned to swim" in merged.description
    assert "has now learned to swim" in messages[0]["content"]


async def test_unusable_model_output_stores_nothing_and_is_retried(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.enqueue("1. The host and I talked about **, and the host said:**\n" * 5,  # echo
                "zxcv qwer !!!",  # garbage
                Reply("too slow", delay=3.0))  # a timeout
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=2, max_attempts=4)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", [(s, "ok") for s in TENNIS_THEN_SWIMMING[:2]])
        for attempt in (1, 2, 3):
            await companion.worker.upkeep("ana")
            [job] = await companion.worker.queue.jobs()
            assert (job.status, job.attempts) == (PENDING, attempt)
            assert await companion.topics.count("ana") == 0
            assert await companion.rounds.count_unsummarized("ana") == 2
        assert "ModelUnavailable" in ((await companion.worker.queue.jobs())[0].last_error or "")
        llm.enqueue("1. The host and I talked about hobbies, and the host said: he admires "
                    "Zhendong Fan and plays table tennis.")
        report = await companion.worker.sweep()
        assert report.summarized == 1
        assert [t.label for t in await companion.topics.list_topics("ana")] == ["hobbies"]
        assert await companion.rounds.count_unsummarized("ana") == 0


async def test_a_job_failing_every_time_ends_failed_for_admins(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.default = "no topics here at all"
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=2, max_attempts=2)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", [(s, "ok") for s in TENNIS_THEN_SWIMMING[:2]])
        await companion.worker.upkeep("ana")
        await companion.worker.upkeep("ana")
        [job] = await companion.worker.queue.jobs()
        assert (job.status, job.attempts) == (FAILED, 2)
        assert "NothingUsable" in (job.last_error or "")
        await companion.worker.sweep()  # a failed job is not retried forever
        [job] = await companion.worker.queue.jobs()
        assert (job.status, job.attempts) == (FAILED, 2)


async def test_auto_falls_back_to_quoting_the_user_when_the_model_echoes(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.enqueue("1. The host and I talked about **, and the host said:**")
    settings = _settings(tmp_path, llm, summarizer="auto", summarize_every=2)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", [(s, "ok") for s in TENNIS_THEN_SWIMMING[:2]])
        report = await companion.worker.upkeep("ana")
        [topic] = await companion.topics.list_topics("ana")
    assert (report.summarized, report.failed) == (1, 0)
    assert TENNIS_THEN_SWIMMING[0] in topic.description


async def test_a_worker_that_died_mid_job_is_taken_over_and_cannot_commit_later(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = _settings(tmp_path, llm, summarizer="extractive", summarize_every=2,
                         lease_minutes=0.001)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", [(s, "ok") for s in TENNIS_THEN_SWIMMING[:2]])
        queue = companion.worker.queue
        await queue.enqueue_summaries("ana", 2)
        dead = JobQueue(companion.rounds._engine, worker_id="dead-worker",
                        lease=timedelta(minutes=0.001), max_attempts=5,
                        retry_base=timedelta(0))
        claimed = await dead.claim_next()  # claimed, then the process "dies"
        assert claimed is not None
        await asyncio.sleep(0.1)  # the lease runs out

        report = await companion.worker.sweep()
        assert report.summarized == 1
        # The dead worker wakes up and commits what it had made: fenced off, nothing written.
        late_writes = TopicWrites(companion.rounds._engine, dead)
        read = await late_writes.rounds_of(claimed)
        late = Topic("b" * 32, "ana", "hobbies", "a late duplicate", datetime.now(UTC),
                     datetime.now(UTC))
        with pytest.raises(LostClaim):
            await late_writes.commit_summary(claimed, read, [late], ["hobby"], [])
        assert len(await companion.topics.list_topics("ana")) == 1


async def test_topics_committed_but_not_indexed_are_repaired_by_the_sweep(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async with open_companion(_settings(tmp_path, llm, summarizer="extractive")) as companion:
        rows = companion.topics._rows
        now = datetime.now(UTC)
        stranded = Topic("a" * 32, "ana", "hobbies",
                         "The host and I talked about hobbies, and the host said: I swim.",
                         now, now)
        await rows.insert([stranded])  # as a job killed between its commit and the index would
        assert await companion.search_topics("ana", "swimming") == []
        report = await companion.worker.sweep()
        assert report.reindexed == 1
        [found] = await companion.search_topics("ana", "swimming")
        assert found.topic.id == stranded.id


async def test_shutting_down_mid_job_hands_the_job_back(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply("1. The host and I talked about hobbies.", delay=2.0))  # a slow model
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=2)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", [(s, "ok") for s in TENNIS_THEN_SWIMMING[:2]])
        companion.worker.round_stored("ana", 2)  # as the dialogue does after a round
        while not llm.chat_requests:
            await asyncio.sleep(0.02)
        assert companion.worker.is_busy("ana")
        await companion.worker.aclose(grace_seconds=0.1)
        [job] = await companion.worker.queue.jobs()
        assert job.status == PENDING  # not stuck as "running" until a lease expires
        assert await companion.rounds.count_unsummarized("ana") == 2


async def test_forgetting_everything_while_a_summary_runs_leaves_nothing_behind(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply("1. The host and I talked about hobbies, and the host said: he admires "
                      "Zhendong Fan and learns table tennis.", delay=0.3))
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=2)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", [(s, "ok") for s in TENNIS_THEN_SWIMMING[:2]])
        running = asyncio.create_task(companion.worker.upkeep("ana"))
        while not llm.chat_requests:  # the job has read the rounds and asked the model
            await asyncio.sleep(0.02)
        forgotten = await companion.commands.run("ana", "/forget all yes")
        assert "Forgotten: 2 rounds" in forgotten.text
        await running
        assert await companion.topics.count("ana") == 0
        assert await companion.search_topics("ana", "table tennis") == []
        [job] = await companion.worker.queue.jobs()
        assert job.status == "done" and "obsolete" in (job.last_error or "")


async def test_windows_waiting_for_a_background_slot_are_queued_before_the_process_stops(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.default = "1. The host and I talked about hobbies."
    llm.delay = 2.0  # a slow model: every background slot stays busy
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=2)
    users = [f"user{i}" for i in range(BACKGROUND_AT_ONCE + 3)]
    async with open_companion(settings) as companion:
        for user in users:
            await _import(companion, user, [(s, "ok") for s in TENNIS_THEN_SWIMMING[:2]])
            companion.worker.round_stored(user, 2)  # as the dialogue does after a round
        while len(llm.chat_requests) < BACKGROUND_AT_ONCE:
            await asyncio.sleep(0.02)
        await companion.worker.aclose(grace_seconds=0.1)  # the process stops
        queued = {job.user_id for job in await companion.worker.queue.jobs()}
    assert queued == set(users)  # the next sweep runs them all; before, three were not queued
