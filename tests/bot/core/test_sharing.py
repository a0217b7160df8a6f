"""The shared pool (Memory Sharing): what is scored, what is shared and with whom, what a person
can see and take back; a whole companion (chats, commands and the memory worker), with the real
stores, the real scrubber, embedder and job queue, and the scripted model as the scorer."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.app import Companion, open_companion
from bot.core.sharing import NOT_SHARING
from jobs.queue import DONE, PENDING, SCORE
from memory.types import PoolEntry, PoolStatus
from tests.chatting import run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM

ADMIN = "telegram:1"
SCORING = "Here is the rubric for grading"  # in the scorer's prompt, never in a chat's
BRAVE = "Give me a synonym for brave, please. I'm Ana Kowalski from Leeds."
BRAVE_ANSWER = "Sure, Ana: try valiant, bold or fearless. Good luck in Leeds!"


async def _open(tmp_path: Path, llm: ScriptedLLM, sql_url: str = "",
                **sharing: Any) -> AsyncIterator[Companion]:
    settings = make_settings(tmp_path, llm, sql_url, memory={"retry_seconds": 0},
                             telegram={"admin_ids": [1]}, sharing=sharing)
    async with open_companion(settings) as opened:
        yield opened


@pytest.fixture
async def pool(tmp_path: Path, llm: ScriptedLLM, sql_url: str) -> AsyncIterator[Companion]:
    async for opened in _open(tmp_path, llm, sql_url):
        yield opened


async def _user(companion: Companion, user: str, persona: str = "tutor", *,
                shares: bool = False) -> None:
    await run(companion, f"/persona {persona}", user)
    if shares:
        await run(companion, "/share on", user)


async def _exchange(companion: Companion, llm: ScriptedLLM, user: str, text: str,
                    reply: str) -> None:
    llm.enqueue(reply)
    await say(companion, text, user)
    await companion.worker.wait_idle()


async def _entries(companion: Companion, status: PoolStatus) -> list[PoolEntry]:
    return [e for e in await companion.pool.pool.rows.listed(status, 100)
            if e.source != "example"]


def _examples_in(prompt: str) -> str:
    start = prompt.find("Here are examples of good answers")
    return prompt[start:] if start >= 0 else ""


async def test_a_good_score_makes_a_scrubbed_candidate_that_only_an_admin_shares(
    pool: Companion, llm: ScriptedLLM
) -> None:
    await _user(pool, "ana", shares=True)
    await _user(pool, "bob")
    llm.answers[SCORING] = "score: 85\nkind: synonym"
    await _exchange(pool, llm, "ana", BRAVE, BRAVE_ANSWER)

    [candidate] = await _entries(pool, PoolStatus.CANDIDATE)
    assert (candidate.score, candidate.kind, candidate.rubric_version) == (85, "synonym", 1)
    stored = candidate.prompt + candidate.answer
    for detail in ("Ana", "Kowalski", "Leeds"):
        assert detail not in stored
    assert "valiant, bold or fearless" in candidate.answer

    llm.enqueue("Try gallant.")
    await say(pool, "a synonym for brave?", "bob")
    assert "valiant" not in llm.last_system_prompt  # waiting for review

    refused = await run(pool, f"/admin pool approve {candidate.id[:8]}", "bob")
    assert "only for this bot's admins" in refused
    listing = await run(pool, "/admin pool", ADMIN)
    assert candidate.id[:8] in listing and "1 candidate" in listing
    assert "Shared" in await run(pool, f"/admin pool approve {candidate.id[:8]}", ADMIN)

    llm.enqueue("Try gallant.")
    await say(pool, "a synonym for brave?", "bob")
    examples = _examples_in(llm.last_system_prompt)
    assert "valiant, bold or fearless" in examples
    assert "Ana" not in llm.last_system_prompt and "Leeds" not in llm.last_system_prompt
    assert "valiant" in await run(pool, "/why", "bob")


async def test_a_low_score_keeps_nothing_and_auto_mode_shares_a_high_one(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async for companion in _open(tmp_path, llm, mode="auto", threshold=70):
        await _user(companion, "ana", shares=True)
        llm.answers[SCORING] = "score: 40\nkind: synonym"
        await _exchange(companion, llm, "ana", "synonym for happy?", "Glad, cheerful.")
        assert await companion.pool.pool.rows.of_user("ana") == []

        llm.answers[SCORING] = "score: 90\nkind: antonym"
        await _exchange(companion, llm, "ana", "opposite of ancient?", "Modern, new.")
        [shared] = await _entries(companion, PoolStatus.SHARED)
        assert (shared.kind, shared.score) == ("antonym", 90)


async def test_an_unreadable_or_late_score_changes_nothing_and_is_tried_again(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async for companion in _open(tmp_path, llm, score_timeout_seconds=0.5):
        await _user(companion, "ana", shares=True)
        llm.answers[SCORING] = "What a lovely pair! I'd give it a high score."
        await _exchange(companion, llm, "ana", BRAVE, BRAVE_ANSWER)
        [job] = await companion.worker.queue.jobs(user_id="ana")
        assert (job.kind, job.status) == (SCORE, PENDING)
        assert "ScoreUnusable" in (job.last_error or "")
        assert await companion.pool.pool.rows.of_user("ana") == []

        llm.answers.clear()
        llm.enqueue(Reply("score: 88\nkind: synonym", delay=1.0))  # longer than the timeout
        await companion.worker.sweep()
        [job] = await companion.worker.queue.jobs(user_id="ana")
        assert job.status == PENDING and "did not score" in (job.last_error or "")
        assert await companion.pool.pool.rows.of_user("ana") == []

        llm.answers[SCORING] = "score: 88\nkind: synonym"
        await companion.worker.sweep()
        [job] = await companion.worker.queue.jobs(user_id="ana")
        assert job.status == DONE
        [candidate] = await _entries(companion, PoolStatus.CANDIDATE)
        assert candidate.score == 88


async def test_thumbs_up_without_opting_in_stores_nothing(
    pool: Companion, llm: ScriptedLLM
) -> None:
    await _user(pool, "bob")
    await _user(pool, "carol")
    await _exchange(pool, llm, "bob", "synonym for brave? zebracorn", "Plucky zebracorn!")
    assert await run(pool, "/good", "bob") == NOT_SHARING
    assert await pool.pool.pool.rows.of_user("bob") == []
    assert not [r for r in llm.requests if SCORING in json.dumps(r)]  # never even scored
    await _exchange(pool, llm, "carol", "synonym for brave? zebracorn", "Gallant.")
    assert "Plucky" not in llm.last_system_prompt


async def test_good_and_bad_and_opting_out(tmp_path: Path, llm: ScriptedLLM) -> None:
    async for companion in _open(tmp_path, llm, scorer="off"):
        await _user(companion, "ana", shares=True)
        await _exchange(companion, llm, "ana", "synonym for brave?", "Valiant.")
        assert "candidate" in await run(companion, "/good", "ana")
        [candidate] = await _entries(companion, PoolStatus.CANDIDATE)
        assert (candidate.votes, candidate.score, candidate.kind) == (1, None, None)

        await _exchange(companion, llm, "ana", "opposite of brave?", "Cowardly, you coward.")
        assert "never be shown" in await run(companion, "/bad", "ana")
        [rejected] = await _entries(companion, PoolStatus.REJECTED)
        assert rejected.prompt == "opposite of brave?" and rejected.votes == -1

        exported = (await companion.commands.run("ana", "/export")).attachment
        assert exported is not None
        data = json.loads(exported.content)
        assert {e["status"] for e in data["shared_pool"]} == {"candidate", "rejected"}
        assert data["sharing_since"] is not None

        answer = await run(companion, "/share off", "ana")
        assert "took 2 of your exchanges out" in answer
        assert await companion.pool.pool.rows.of_user("ana") == []
        assert "Sharing is off" in await run(companion, "/share", "ana")


async def test_forget_all_takes_the_users_entries_out_of_the_pool(
    pool: Companion, llm: ScriptedLLM
) -> None:
    await _user(pool, "ana", shares=True)
    llm.answers[SCORING] = "score: 85\nkind: synonym"
    await _exchange(pool, llm, "ana", BRAVE, BRAVE_ANSWER)
    [candidate] = await _entries(pool, PoolStatus.CANDIDATE)
    await run(pool, f"/admin pool approve {candidate.id[:8]}", ADMIN)
    assert "1 shared exchange." in await run(pool, "/forget all yes", "ana")
    assert await pool.pool.pool.rows.of_user("ana") == []
    await _user(pool, "bob")
    await _exchange(pool, llm, "bob", "a synonym for brave?", "Gallant.")
    assert "valiant" not in llm.last_system_prompt


COACHING = "Help me plan my study week, my exams start on Monday."
COACHING_ANSWER = "Block three 50-minute sessions a day, hardest subject first, zebrafinch."


async def _shared_coaching_entry(companion: Companion, llm: ScriptedLLM) -> None:
    await _user(companion, "ana", "coach", shares=True)
    llm.answers[SCORING] = "score: 90\nkind: study plan"
    await _exchange(companion, llm, "ana", COACHING, COACHING_ANSWER)
    [candidate] = await _entries(companion, PoolStatus.CANDIDATE)
    await run(companion, f"/admin pool approve {candidate.id[:8]}", ADMIN)
    llm.answers.clear()


async def test_domain_scope_keeps_coach_examples_out_of_the_tutors_prompt(
    pool: Companion, llm: ScriptedLLM
) -> None:
    await _shared_coaching_entry(pool, llm)
    await _user(pool, "bob", "tutor")
    await _exchange(pool, llm, "bob", "plan my study week before exams", "Let's look at words.")
    examples = _examples_in(llm.last_system_prompt)
    assert examples and "zebrafinch" not in examples and "Study 45 minutes" not in examples
    await _user(pool, "carol", "coach")
    await _exchange(pool, llm, "carol", "plan my study week before exams", "Sure.")
    assert "zebrafinch" in _examples_in(llm.last_system_prompt)


async def test_a_single_pool_serves_every_persona(tmp_path: Path, llm: ScriptedLLM) -> None:
    async for companion in _open(tmp_path, llm, scope="all"):
        await _shared_coaching_entry(companion, llm)
        await _user(companion, "bob", "tutor")
        await _exchange(companion, llm, "bob", "plan my study week before exams", "Words!")
        assert "zebrafinch" in _examples_in(llm.last_system_prompt)


# Exchanges full of personal details, each detail listed: none may reach the pool.
PERSONAL = [
    ("Hi, I'm Priya Raman, 34, from Manchester. Synonym for tired? Email me at "
     "priya.raman@example.com", "Weary, Priya! I'll not email priya.raman@example.com.",
     ["Priya", "Raman", "34", "Manchester", "priya.raman@example.com"]),
    ("My husband Tomasz and I moved to 221B Baker Street on 3 March 2024. Opposite of calm?",
     "Agitated. Congratulations to you and Tomasz on Baker Street!",
     ["Tomasz", "221B", "Baker", "3 March 2024"]),
    ("Text me on +44 7700 900123 or @jo_bloggs, I'm Jo. What does laconic mean?",
     "Using few words, Jo. I can't text +44 7700 900123.",
     ["7700 900123", "@jo_bloggs", "Jo"]),
    ("I'm Mehmet, 29, born 14/02/1995 in Izmir. Use resilient in a sentence.",
     "Mehmet, resilient people from Izmir bounce back.",
     ["Mehmet", "29", "14/02/1995", "Izmir"]),
    ("my daughter sofia turns 7 on june 5th in boston; another word for happy?",
     "Joyful, like Sofia on her birthday in Boston.",
     ["sofia", "Sofia", "7", "june 5th", "boston", "Boston"]),
]


async def test_personal_details_never_reach_the_pool(pool: Companion, llm: ScriptedLLM) -> None:
    await _user(pool, "ana")
    for text, reply, _ in PERSONAL:
        await _exchange(pool, llm, "ana", text, reply)
    for round_ in await pool.rounds.recent_rounds("ana", 10):
        assert "Shared" in await run(pool, f"/admin pool share {round_.id}", ADMIN)
    entries = await pool.pool.pool.rows.of_user("ana")
    assert len(entries) == len(PERSONAL)
    stored = "\n".join(e.prompt + "\n" + e.answer for e in entries)
    for _, _, details in PERSONAL:
        for detail in details:  # as a word: "Jo" may be taken out, "Joyful" stays
            assert not re.search(rf"(?<!\w){re.escape(detail)}(?!\w)", stored), detail
    assert "[name]" in stored and "[email]" in stored


async def test_the_demo_model_never_scores(tmp_path: Path, llm: ScriptedLLM) -> None:
    settings = make_settings(tmp_path, llm, llm={"provider": "local"})
    async with open_companion(settings) as companion:
        await run(companion, "/share on", "ana")
        assert not await companion.pool.wants_score("ana")


async def test_a_round_an_admin_shares_is_scored_for_its_kind(
    pool: Companion, llm: ScriptedLLM
) -> None:
    await _user(pool, "bob")  # never opted in: only an admin can share his rounds
    await _exchange(pool, llm, "bob", "what does laconic mean?", "Using very few words.")
    assert not [r for r in llm.requests if SCORING in json.dumps(r)]
    llm.answers[SCORING] = "score: 80\nkind: definition"
    [round_] = await pool.rounds.recent_rounds("bob", 1)
    await run(pool, f"/admin pool share {round_.id}", ADMIN)
    await pool.worker.wait_idle()
    [entry] = await pool.pool.pool.rows.of_user("bob")
    assert (entry.status, entry.kind, entry.score) == (PoolStatus.SHARED, "definition", 80)
