"""build_messages follows Table I: role prompt, then Recency, Relevance and Latest_topics."""

from datetime import UTC, datetime

from bot.prompt import NOTHING_YET, build_messages, fit_recent
from memory.types import Recall, Round, RoundStatus, ScoredTopic, Topic
from personas.loader import load_personas

NOW = datetime(2026, 1, 1, tzinfo=UTC)
PERSONA = load_personas()["companion"]


def _round(i: int, user: str, reply: str | None) -> Round:
    status = RoundStatus.ANSWERED if reply else RoundStatus.FAILED
    return Round(i, "u", "u", "companion", user, reply, status, NOW)


def _topic(label: str, description: str) -> Topic:
    return Topic(label, "u", label, description, NOW, NOW)


def test_sections_follow_table_one_in_order() -> None:
    recall = Recall(
        recent=(_round(1, "I started swimming", "How was the pool?"),),
        relevant=(ScoredTopic(_topic("hobbies", "The host likes table tennis."), 0.8),),
        latest=(_topic("work", "The host works nights."),),
    )
    system, user = build_messages(PERSONA, recall, "Do you know my latest hobby?")

    assert user == {"role": "user", "content": "Do you know my latest hobby?"}
    text = system["content"]
    assert system["role"] == "system"
    assert text.startswith(PERSONA.role_prompt)
    positions = [
        text.index("recent chat between you and the host"),
        text.index("Host: I started swimming"),
        text.index("Mia: How was the pool?"),
        text.index("most relevant to what the host just said"),
        text.index("- The host likes table tennis."),
        text.index("topics recently discussed with the host"),
        text.index("- The host works nights."),
        text.index("You need to reply to the host based on the above background"),
    ]
    assert positions == sorted(positions)


def test_empty_memory_says_nothing_yet_in_each_slot() -> None:
    [system, _] = build_messages(PERSONA, Recall.empty(), "hello")
    assert system["content"].count(NOTHING_YET) == 3


def test_failed_round_keeps_the_users_words_without_a_reply() -> None:
    recall = Recall(recent=(_round(1, "are you there?", None),), relevant=(), latest=())
    [system, _] = build_messages(PERSONA, recall, "hello")
    assert "Host: are you there?\n=====" in system["content"]


def test_user_name_is_configurable() -> None:
    [system, _] = build_messages(PERSONA, Recall.empty(), "hi", user_name="friend")
    assert "recent chat between you and the friend" in system["content"]
    assert "You need to reply to the friend" in system["content"]
    assert "what the host just said" not in system["content"]


def test_recency_keeps_the_newest_rounds_that_fit_the_budget() -> None:
    rounds = [_round(i, f"message {i} " + "x" * 80, f"reply {i}") for i in range(10)]
    kept = fit_recent(rounds, 300)
    assert [r.id for r in kept] == [7, 8, 9]
    assert fit_recent(rounds, 10) == (rounds[-1],)  # the newest round always stays
    assert fit_recent([], 10) == ()


def test_one_huge_round_is_cut_to_the_budget_keeping_its_end() -> None:
    recall = Recall(recent=(_round(1, "start " + "y" * 5000 + " the end", "ok"),), relevant=(),
                    latest=())
    [system, _] = build_messages(PERSONA, recall, "hi", recency_max_chars=300)
    recency = system["content"].split("=====")[1]
    assert len(recency) < 320
    assert "Mia: ok" in recency and "start" not in recency
