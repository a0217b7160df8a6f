"""The pool's retriever trains itself: a new version is used when it ranks entries it did not
see better than cosine and at least as well as the one in use (on a tie, when it learned from
more), and every training is kept on record."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from bot.app import open_companion
from bot.cli.pool import in_use_line
from jobs.pool.retraining import due_after
from jobs.queue import DONE, RETRAIN
from memory.pool.reranker import same_kind_at_1
from memory.pool.store import entry_id
from memory.types import PoolEntry, PoolStatus
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

WORDS = ["brave", "happy", "tired", "ancient", "generous", "calm", "bright", "quick", "rude",
         "humble", "clever", "gloomy", "fragile", "loyal", "noisy", "polite", "shy", "stubborn",
         "tidy", "vague"]


def _entry(number: int, kind: str, word: str) -> PoolEntry:
    prompt = (f"What's another word for {word}?" if kind == "synonym"
              else f"What's the opposite of {word}?")
    return PoolEntry(id=entry_id("test", number), prompt=prompt, answer="...", persona="tutor",
                     domain="words", kind=kind, status=PoolStatus.SHARED, source="chat")


def _pool_where_cosine_picks_the_same_word() -> list[PoolEntry]:
    """Synonym and antonym requests about the same words. The newest fifth (held back) asks
    about words the rest holds only with the other kind, so the embedder's nearest entry is the
    same word asked the other way."""
    entries = [_entry(n, kind, w) for n, (kind, w) in enumerate(
        [("synonym", w) for w in WORDS[:12]] + [("antonym", w) for w in WORDS[:12]]
        + [("antonym", w) for w in WORDS[12:16]] + [("synonym", w) for w in WORDS[16:20]])]
    held_back = [("synonym", w) for w in WORDS[12:16]] + [("antonym", w) for w in WORDS[16:20]]
    return entries + [_entry(100 + n, kind, w) for n, (kind, w) in enumerate(held_back)]


async def test_a_new_version_replaces_the_old_only_when_better(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, sharing={"retrain_every": 20})
    async with open_companion(settings) as companion:
        pool = companion.pool
        assert await companion.examples.model() is None  # plain cosine at first
        await pool.pool.add_written(_pool_where_cosine_picks_the_same_word())
        _, entries = await pool.pool.labelled()
        learn, test = entries.subset(range(len(entries) - 8)), entries.subset(
            range(len(entries) - 8, len(entries)))
        assert same_kind_at_1(None, test, learn, by_domain=True) <= 0.5

        report = await companion.worker.retrain_if_due()
        assert report.retrained == 1
        [first] = await pool.trainings()
        assert first.accepted and first.score > first.previous_score  # over plain cosine
        assert first.cosine_score == first.previous_score
        assert first.entries == len(entries) and first.held_back == len(entries)  # cross-validated
        companion.examples.forget_model()
        assert await companion.examples.model() is not None
        [job] = [j for j in await companion.worker.queue.jobs() if j.kind == RETRAIN]
        assert job.status == DONE and "now in use" in (job.last_error or "")

        # Nothing new: not due, and a training forced anyway learned from no more entries than
        # the one in use, which ranks every entry at least as well (it saw them all).
        assert (await companion.worker.retrain_if_due()).retrained == 0
        second = (await pool.retrain()).trained
        assert second is not None and not second.accepted
        assert second.score <= second.previous_score

        # More entries of the same kinds: the version trained on them takes over on a tie.
        more = [_entry(200 + n, "synonym", w) for n, w in enumerate(WORDS[:10])]
        await pool.pool.add_written(more)
        third = (await pool.retrain()).trained
        assert third is not None and third.accepted, third
        assert third.score >= third.previous_score and third.entries == len(entries) + 10
        trainings = await pool.trainings()
        assert [t.version for t in trainings] == [third.version, second.version, first.version]
        assert [t.version for t in trainings if t.accepted] == [third.version, first.version]
        shown = in_use_line(await pool.training_in_use())  # what `companion pool` says first
        assert shown.startswith(f"Retriever in use: version {third.version}, trained on "
                                f"{third.entries} entries"), shown
        assert f"{third.cosine_score:.3f} for plain cosine" in shown


async def test_the_trained_retriever_finds_the_kind_asked_for(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async with open_companion(make_settings(tmp_path, llm)) as companion:
        asked = "What's another word for fragile?"
        await companion.pool.pool.add_written(  # it holds "the opposite of fragile" only
            [e for e in _pool_where_cosine_picks_the_same_word() if e.prompt != asked])
        await companion.pool.retrain()
        companion.examples.forget_model()
        [vector] = await companion.embedder.embed([asked])

        async def ready() -> list[float]:
            return vector

        found = await companion.examples.find("words", asked, ready())
        assert found[0].kind == "synonym"
        nearest = await companion.pool.pool.nearest(["words"], vector, 1)
        assert nearest[0].document == "What's the opposite of fragile?"  # cosine's first
        assert np.isclose(nearest[0].score, 1.0, atol=0.3)


async def test_a_large_pool_trains_again_when_a_tenth_of_it_is_new(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    """Every `retrain_every` (25) new entries in a small pool, a tenth of it in a large one: a
    training of a large pool costs seconds of CPU and 25 entries would teach it little."""
    def entries(first: int, count: int) -> list[PoolEntry]:
        return [_entry(n, "synonym" if n % 2 else "antonym", f"{WORDS[n % len(WORDS)]} {n}")
                for n in range(first, first + count)]

    async with open_companion(make_settings(tmp_path, llm)) as companion:
        await companion.pool.pool.add_written(entries(0, 300))  # beside the personas' own
        assert (await companion.worker.retrain_if_due()).retrained == 1
        [first] = await companion.pool.trainings()
        tenth = math.ceil(first.entries / 10)
        assert tenth > 25
        await companion.pool.pool.add_written(entries(300, tenth - 1))
        assert (await companion.worker.retrain_if_due()).retrained == 0
        await companion.pool.pool.add_written(entries(300 + tenth - 1, 1))
        assert (await companion.worker.retrain_if_due()).retrained == 1
        assert [t.entries for t in await companion.pool.trainings()] == [
            first.entries + tenth, first.entries]
    assert [due_after(last, 25) for last in (0, 50, 240, 300, 10_000)] == [
        50, 75, 265, 330, 11_000]
