"""The summary and merge prompts of the topic-memory paper (Tables II and III), in our voices."""

from __future__ import annotations

from collections.abc import Sequence

from jobs.summarize.drafts import Voices
from memory.types import Round


def summary_prompt(rounds: Sequence[Round], voices: Voices) -> str:
    """Table II: list the topics of the conversation, one line each."""
    user = voices.user
    return (
        f"You are {voices.companion}. Please summarize the specific topics of your conversation "
        f"with the {user} below and list them in the simplest possible language.\n"
        "Try to summarize the name of each topic with a noun as much as possible. Each topic "
        "should be summarized in the following format, for example, if there are two topics, "
        "the summary should be output as follows:\n"
        f"1. The {user} and I talked about **, and the {user} said: **\n"
        f"2. The {user} and I talked about **, and the {user} said: **\n"
        "You cannot fabricate content.\n"
        f"=====\n{transcript(rounds, voices)}\n====="
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
    user = voices.user
    return (
        f"You are {voices.companion}. List the facts worth remembering from your conversation "
        f"with the {user} below, one per line:\n"
        f"- what the {user} said about themselves and their life (people, pets, places, dates, "
        f"plans, likes, events), as \"{user.capitalize()}: <the fact>\";\n"
        "- what you suggested or answered that names something (a title, a place, a person, "
        "advice), and what you said about yourself (your tastes, your favourites), as "
        "\"You: <the fact>\".\n"
        "Keep each fact to one short sentence in the words that were used. Leave out greetings, "
        "thanks, agreement and small talk. If there is nothing to remember, answer \"None\". "
        "You cannot fabricate content.\n"
        f"=====\n{transcript(rounds, voices)}\n====="
    )
