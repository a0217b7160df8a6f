"""Relevance: both searches fused by rank, best first, no memory twice, within the budget."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.app.stores import Stores
from memory.recall import Recaller
from memory.relevance import fuse
from memory.types import Fact, Speaker, Topic

SAID = datetime(2023, 5, 8, tzinfo=UTC)


def _fact(n: int, text: str, user: str = "ana") -> Fact:
    return Fact(f"{n:032x}", user, text, Speaker.USER, SAID, (n,))


def test_a_memory_found_both_ways_ranks_first_and_keeps_both_scores() -> None:
    a, b, c = _fact(1, "a"), _fact(2, "b"), _fact(3, "c")
    found = fuse(by_meaning=[(a, 0.9), (b, 0.8)], by_words=[(b, 7.0), (c, 6.0)])
    assert [f.memory for f in found] == [b, a, c]
    assert (found[0].similarity, found[0].words, found[0].how) == (0.8, 7.0, "words and meaning")
    assert (found[1].how, found[2].how) == ("meaning", "words")


async def test_what_repeats_a_memory_already_taken_is_left_out(
    stores: Stores, recaller: Recaller
) -> None:
    await stores.facts.add_facts([
        _fact(1, "I moved to Xiamen in 2019 with my sister."),
        _fact(2, "I moved to Xiamen in 2019 with my sister!"),  # the same words again
        _fact(3, "My sister loves the food in Xiamen."),
        _fact(4, "Xiamen has lovely beaches, my sister says.", user="ben"),
    ])
    await stores.topics.add_topic(
        "ana", "travel", "The host and I talked about travel, and the host said: I moved to "
        "Xiamen in 2019 with my sister.", at=SAID)
    recall = await recaller.recall("ana", "When did I move to Xiamen with my sister?",
                                  domain="everyday")
    texts = [getattr(f.memory, "text", None) or f.memory.description for f in recall.relevant]
    assert sum("moved to Xiamen in 2019" in t for t in texts) == 1
    assert "My sister loves the food in Xiamen." in texts
    assert all(f.memory.user_id == "ana" for f in recall.relevant)
    assert isinstance(recall.relevant[0].memory, Topic | Fact)



async def test_a_persons_summarized_fact_and_topic_are_found_by_meaning_alone(
    stores: Stores, recaller: Recaller
) -> None:
    """Past the first summary, the index holds the person's facts and topics: what shares no
    word with the message is still found (the searches skipped for a new person are made)."""
    await stores.facts.add_facts([_fact(1, "My daughter started violin lessons.")])
    await stores.topics.add_topic(
        "ana", "music", "The host and I talked about music, and the host said: the violin "
        "practice happens every evening after school.", at=SAID)
    recall = await recaller.recall("ana", "Which instrument is my kid learning?",
                                  domain="everyday")
    found = {getattr(f.memory, "text", None) or f.memory.description: f.how
             for f in recall.relevant}
    assert found.get("My daughter started violin lessons.") == "meaning"
    assert any(isinstance(f.memory, Topic) for f in recall.relevant)
