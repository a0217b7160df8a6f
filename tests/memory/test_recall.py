"""The recall step (memory/recall.py) on the stores alone, with no model: Recency, Relevance,
Latest_topics, the clarifications, the pool's examples and the belief question a reply is given;
each user's own memories only; what the short prompt leaves out; a message the embedder cannot
read; the lookup started before the round is stored; a group chat's recall."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from bot.app.stores import Stores
from memory.beliefs.belief import Settlement
from memory.feedback.store import Correction
from memory.pool.store import entry_id
from memory.recall import Recaller, fit_recent
from memory.types import (
    Fact,
    PoolEntry,
    PoolStatus,
    Round,
    RoundStatus,
    Speaker,
    Topic,
    memory_text,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)
DOMAIN = "everyday"  # the companion persona's


def _round(i: int, user: str, reply: str | None) -> Round:
    status = RoundStatus.ANSWERED if reply else RoundStatus.FAILED
    return Round(i, "u", "u", "companion", user, reply, status, NOW)


def _fact(n: int, user: str, text: str) -> Fact:
    return Fact(f"{n:032x}", user, text, Speaker.USER, NOW, (n,))


async def _chatted(stores: Stores, user: str, texts: list[str], conversation: str = "") -> None:
    """Rounds the user said, in order, each answered "ok"."""
    for text in texts:
        said = await stores.rounds.start_round(user_id=user, conversation_id=conversation or user,
                                               persona="companion", text=text)
        await stores.rounds.finish_round(said, "ok")


async def _message(stores: Stores, user: str, text: str, conversation: str = "") -> Round:
    """The round of the message being answered, stored as the dialogue stores it."""
    return await stores.rounds.start_round(user_id=user, conversation_id=conversation or user,
                                           persona="companion", text=text)


def test_recency_keeps_the_newest_rounds_that_fit_the_budget() -> None:
    rounds = [_round(i, f"message {i} " + "x" * 80, f"reply {i}") for i in range(10)]
    kept = fit_recent(rounds, 300)
    assert [r.id for r in kept] == [7, 8, 9]
    assert fit_recent(rounds, 10) == (rounds[-1],)  # the newest round always stays
    assert fit_recent([], 10) == ()


async def test_recency_holds_the_users_last_rounds_before_the_message_oldest_first(
    stores: Stores, recaller: Recaller
) -> None:
    for n in range(4):
        await _chatted(stores, "ana", [f"ana {n}"])
        await _chatted(stores, "bob", [f"bob {n}"])
    message = await _message(stores, "ana", "and now?")
    await _chatted(stores, "ana", ["sent while this message was answered"])
    recall = await recaller.recall("ana", "and now?", domain=DOMAIN, before_round=message.id)
    assert [r.user_text for r in recall.recent] == ["ana 0", "ana 1", "ana 2", "ana 3"]
    assert [r.reply_text for r in recall.recent] == ["ok"] * 4


async def test_recency_keeps_only_the_newest_rounds_that_fit_its_budget(
    stores: Stores, recaller: Recaller
) -> None:
    await _chatted(stores, "ana", [f"wall {n} " + "w" * 200 for n in range(5)])
    recaller.settings = replace(recaller.settings, recency_max_chars=500)
    recall = await recaller.recall("ana", "still there?", domain=DOMAIN)
    assert [r.user_text[:6] for r in recall.recent] == ["wall 3", "wall 4"]


async def test_relevance_latest_topics_and_clarifications_are_the_users_own_only(
    stores: Stores, recaller: Recaller
) -> None:
    asked = "My parrot Kiwi sings every morning, what should I feed him?"
    await stores.topics.add_topic("bob", "pets", "The host has a parrot named Kiwi who sings.")
    await stores.topics.add_topic("bob", "work", "The host repairs bicycles for a living.")
    await stores.facts.add_facts([_fact(1, "bob", "My parrot Kiwi sings every morning.")])
    await stores.feedback.remember(Correction(
        user_id="bob", key=asked, feedback="No, I meant seeds for parrots", understanding=None,
        answer="Here is a recipe.", persona="companion", shared=False))
    await stores.topics.add_topic("ana", "work", "The host works night shifts as a nurse.")
    await stores.facts.add_facts([_fact(2, "ana", "I moved to Lyon last spring.")])

    anas = await recaller.recall("ana", asked, domain=DOMAIN)
    assert {memory.user_id for memory in anas.numbered()} == {"ana"}
    assert not any("Kiwi" in memory_text(memory) for memory in anas.numbered())
    assert [t.label for t in anas.latest] == ["work"]
    assert anas.clarifications == ()

    bobs = await recaller.recall("bob", asked, domain=DOMAIN)  # the same message finds his
    assert any("Kiwi" in memory_text(f.memory) for f in bobs.relevant)
    assert [t.label for t in bobs.latest] == ["work"]  # "pets" is in Relevance: not twice
    assert [c.feedback.feedback for c in bobs.clarifications] == ["No, I meant seeds for parrots"]
    assert {memory.user_id for memory in bobs.numbered()} == {"bob"}


async def test_latest_topics_get_what_relevance_leaves_of_the_one_budget(
    stores: Stores, recaller: Recaller
) -> None:
    await stores.topics.add_topic("ana", "work", "The host works night shifts as a nurse.")
    breads = ["sourdough", "rye", "brioche", "focaccia", "baguette", "ciabatta", "pumpernickel"]
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    await stores.facts.add_facts([
        _fact(n, "ana", f"On {day} I ordered a {bread} loaf from the corner bakery.")
        for n, (bread, day) in enumerate(zip(breads, days, strict=True), start=1)])
    asked = "Which loaf did I order from the corner bakery?"
    plan = stores.relevance.plan

    stores.relevance.plan = replace(plan, tokens=60)  # room for a few facts, no more
    crowded = await recaller.recall("ana", asked, domain=DOMAIN)
    assert crowded.relevant and crowded.latest == ()  # the facts that fit used it all
    assert sum(f.tokens for f in crowded.relevant) <= 60

    stores.relevance.plan = replace(plan, tokens=5_000)  # room for everything
    roomy = await recaller.recall("ana", asked, domain=DOMAIN)
    assert [t.label for t in roomy.latest] == ["work"]

    stores.relevance.plan = replace(plan, mode="topics")  # the paper's layout: its own slot
    paper = await recaller.recall("ana", asked, domain=DOMAIN)
    assert [t.label for t in paper.latest] == ["work"]


async def _a_question(stores: Stores) -> tuple[Fact, Fact]:
    """Two of Ana's beliefs that disagree, to ask her about, as a belief check commits them."""
    paris, lyon = _fact(3, "ana", "I live in Paris."), _fact(4, "ana", "I live in Lyon.")
    await stores.facts.add_facts([paris, lyon])
    [checked] = [b for b in await stores.beliefs.unchecked("ana", 10) if b.id == lyon.id]
    await stores.beliefs.settle(checked, Settlement(ask=(paris.id, lyon.id)))
    return paris, lyon


async def test_the_short_prompt_recalls_no_latest_topics_examples_or_belief_question(
    stores: Stores, recaller: Recaller
) -> None:
    asked = "What is another word for happy, please?"
    await stores.topics.add_topic("ana", "home", "The host moved to a flat by the river.")
    await stores.pool.add_written([PoolEntry(
        id=entry_id("test", 1), prompt="What's another word for happy?",
        answer="Joyful, cheerful or glad.", persona="companion", domain=DOMAIN, kind="synonym",
        status=PoolStatus.SHARED, source="example")])
    paris, lyon = await _a_question(stores)
    full = recaller.settings

    recaller.settings = replace(full, short_prompt=True)
    short = await recaller.recall("ana", asked, domain=DOMAIN, ask=True)
    assert (short.latest, short.examples, short.to_check) == ((), (), ())
    assert short.short_prompt

    recaller.settings = full
    recall = await recaller.recall("ana", asked, domain=DOMAIN, ask=True)
    assert [t.label for t in recall.latest] == ["home"]
    assert [e.answer for e in recall.examples] == ["Joyful, cheerful or glad."]
    assert [f.id for f in recall.to_check] == [paris.id, lyon.id]  # not asked by the short one
    assert not recall.short_prompt


async def test_a_message_the_embedder_cannot_read_still_finds_a_fact_by_its_words(
    stores: Stores, recaller: Recaller
) -> None:
    await stores.facts.add_facts([
        _fact(1, "ana", "My grandmother Xiadani taught me to bake bread."),
        _fact(2, "ana", "I work night shifts as a nurse."),
    ])
    recall = await recaller.recall("ana", "क्या तुम्हें Xiadani याद है?", domain=DOMAIN)
    assert recall.words_only  # mostly Devanagari: MiniLM's vector would say nothing
    assert [memory_text(f.memory) for f in recall.relevant] == [
        "My grandmother Xiadani taught me to bake bread."]
    assert [f.how for f in recall.relevant] == ["words"]


async def test_a_lookup_started_before_the_round_is_stored_recalls_what_recall_does(
    stores: Stores, recaller: Recaller
) -> None:
    await _chatted(stores, "ana", ["I adopted a cat named Miso.", "She sleeps all day."])
    await stores.topics.add_topic("ana", "pets", "The host has a cat named Miso.")
    await stores.facts.add_facts([_fact(1, "ana", "My cat Miso hates the vacuum cleaner.")])
    asked = "What does Miso hate?"
    async with recaller.looking_up("ana", asked, domain=DOMAIN) as lookup:
        message = await _message(stores, "ana", asked)  # the turn stores it meanwhile
        finished = await recaller.finish(lookup, before_round=message.id)
    assert finished == await recaller.recall("ana", asked, domain=DOMAIN,
                                             before_round=message.id)
    assert [r.user_text for r in finished.recent] == ["I adopted a cat named Miso.",
                                                      "She sleeps all day."]
    assert any("vacuum" in memory_text(f.memory) for f in finished.relevant)
    pets = [f.memory for f in finished.relevant if isinstance(f.memory, Topic)]
    assert [t.label for t in [*pets, *finished.latest]] == ["pets"]  # once, not in both


async def test_in_a_group_chat_only_the_users_rounds_of_that_chat_are_recalled(
    stores: Stores, recaller: Recaller
) -> None:
    await stores.topics.add_topic("ana", "health", "The host has asthma.")
    await _chatted(stores, "ana", ["My asthma is worse this week."])
    await _chatted(stores, "ana", ["Hello everyone!"], conversation="group-1")
    await _chatted(stores, "bob", ["Hi Ana!"], conversation="group-1")
    await _chatted(stores, "ana", ["Anyone up for chess?"], conversation="group-2")
    message = await _message(stores, "ana", "How is everyone?", conversation="group-1")
    recall = await recaller.in_chat("ana", "group-1", before_round=message.id)
    assert [r.user_text for r in recall.recent] == ["Hello everyone!"]
    assert (recall.relevant, recall.latest, recall.clarifications) == ((), (), ())
