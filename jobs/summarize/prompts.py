"""The summary and merge prompts of the topic-memory paper (Tables II and III), in our voices."""

from __future__ import annotations

from collections.abc import Sequence

from jobs.summarize.drafts import Voices
from memory.types import Round


def summary_prompt(rounds: Sequence[Round], voices: Voices) -> str:
    """Table II: list the topics of the conversation, one line each."""
    return (f"{_topics_request(voices)}You cannot fabricate content.\n"
            f"=====\n{transcript(rounds, voices)}\n=====")


def window_prompt(rounds: Sequence[Round], voices: Voices) -> str:
    """Table II and the facts in one call: the topics, then a line "Facts:" and the facts."""
    return (
        f"{_topics_request(voices)}Then write a line \"{FACTS_HEADER}\" and under it the facts "
        f"worth remembering, one per line:\n{_fact_kinds(voices)} If there is no fact to "
        f"remember, write \"None\" under \"{FACTS_HEADER}\". You cannot fabricate content.\n"
        f"=====\n{transcript(rounds, voices)}\n====="
    )


FACTS_HEADER = "Facts:"


def _topics_request(voices: Voices) -> str:
    """Table II's request, without its last rule."""
    user = voices.user
    return (
        f"You are {voices.companion}. Please summarize the specific topics of your conversation "
        f"with the {user} below and list them in the simplest possible language.\n"
        "Try to summarize the name of each topic with a noun as much as possible. Each topic "
        "should be summarized in the following format, for example, if there are two topics, "
        "the summary should be output as follows:\n"
        f"1. The {user} and I talked about **, and the {user} said: **\n"
        f"2. The {user} and I talked about **, and the {user} said: **\n"
    )


def _fact_kinds(voices: Voices) -> str:
    """What a fact is, and how each is written."""
    user = voices.user
    return (
        f"- what the {user} said about themselves and their life (people, pets, places, dates, "
        f"plans, likes, events), as \"{user.capitalize()}: <the fact>\";\n"
        "- what you suggested or answered that names something (a title, a place, a person, "
        "advice), and what you said about yourself (your tastes, your favourites), as "
        "\"You: <the fact>\".\n"
        "Keep each fact to one short sentence in the words that were used. Leave out greetings, "
        "thanks, agreement and small talk."
    )


def merge_prompt(descriptions: Sequence[str], voices: Voices) -> str:
    """Table III: one sentence that keeps the history and states the latest view."""
    user = voices.user
    records = "\n".join(f"{i}. {d}" for i, d in enumerate(descriptions, start=1))
    return (
        f"You are {voices.companion}, please summarize all the information about the same topic "
        f"with the {user} based on the conversation records below.\n"
        "The records are in sequential order, so you need to summarize all the information "
        "from the initial conversation on this topic to the present.\n"
        "Summarize it in one sentence, keep consistent with the original format, and output "
        "the following sentence:\n"
        f"1. The {user} and I talked about *, and the {user} said: **\n"
        "You cannot fabricate content.\n"
        f"=====\n{records}\n====="
    )


def merge_many_prompt(topics: Sequence[Sequence[str]], voices: Voices) -> str:
    """Table III for several labels at once: one sentence per topic, numbered as they are."""
    user = voices.user
    records = "\n".join(
        f"Topic {n}:\n" + "\n".join(f"{i}. {d}" for i, d in enumerate(descriptions, start=1))
        for n, descriptions in enumerate(topics, start=1))
    return (
        f"You are {voices.companion}, please summarize all the information about each topic "
        f"with the {user} based on the conversation records below.\n"
        "The records of each topic are in sequential order, so you need to summarize all the "
        "information from the initial conversation on that topic to the present.\n"
        f"{MERGE_MANY_ASK}, keep consistent with the original format, and output one line "
        "per topic, numbered as the topics are:\n"
        f"1. The {user} and I talked about *, and the {user} said: **\n"
        "You cannot fabricate content.\n"
        f"=====\n{records}\n====="
    )


MERGE_MANY_ASK = "Summarize each topic in one sentence"


def transcript(rounds: Sequence[Round], voices: Voices) -> str:
    lines = []
    for round_ in rounds:
        if round_.user_text:  # a conversation may open with the companion's message
            lines.append(f"{voices.user.capitalize()}: {round_.user_text}")
        if round_.reply_text:
            lines.append(f"{voices.companion}: {round_.reply_text}")
    return "\n".join(lines)


def facts_prompt(rounds: Sequence[Round], voices: Voices) -> str:
    """Facts beside the paper's topics: one statement a line, kept in the words said."""
    return (
        f"You are {voices.companion}. List the facts worth remembering from your conversation "
        f"with the {voices.user} below, one per line:\n{_fact_kinds(voices)} If there is "
        "nothing to remember, answer \"None\". You cannot fabricate content.\n"
        f"=====\n{transcript(rounds, voices)}\n====="
    )
