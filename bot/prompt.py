"""Build the chat messages for one reply, following Table I of the topic-memory paper.

Pure: the same persona, recall and message always give the same messages.
"""

from __future__ import annotations

from bot.llm.base import ChatMessage
from memory.types import Recall, Round, ScoredTopic, Topic
from personas.loader import Persona

NOTHING_YET = "(nothing yet)"
RULE = "====="


def build_messages(
    persona: Persona,
    recall: Recall,
    message: str,
    *,
    user_name: str = "host",
    recency_max_chars: int = 16_000,
) -> list[ChatMessage]:
    """A system message (role prompt + Recency, Relevance, Latest_topics) and the user's message.

    Recency keeps the newest rounds that fit in `recency_max_chars`.
    """
    recency = _recency(recall.recent, persona.display_name, user_name, recency_max_chars)
    sections = [
        persona.role_prompt.strip(),
        f"Firstly, this is the recent chat between you and the {user_name}:",
        _block(recency),
        f"Then, these are the topics most relevant to what the {user_name} just said:",
        _block(_relevance(recall.relevant)),
        f"Finally, here are a few topics recently discussed with the {user_name}:",
        _block(_latest(recall.latest)),
        f"You need to reply to the {user_name} based on the above background. In your reply, "
        "you should try to ask questions that may be of interest and related to the current "
        "chat to make the chat interesting and helpful. And you need to infer whether the "
        f"{user_name} still wants to chat based on their response.",
    ]
    if persona.style_notes:
        sections.append(f"Style: {persona.style_notes.strip()}")
    return [
        {"role": "system", "content": "\n".join(sections)},
        {"role": "user", "content": message},
    ]


def _block(body: str) -> str:
    return f"{RULE}\n{body}\n{RULE}"


def _recency(
    rounds: tuple[Round, ...], companion_name: str, user_name: str, max_chars: int
) -> str:
    kept: list[str] = []
    used = 0
    for round_ in reversed(rounds):  # newest first, until the budget is spent
        lines = f"{user_name.capitalize()}: {round_.user_text}"
        if round_.reply_text:
            lines += f"\n{companion_name}: {round_.reply_text}"
        if used + len(lines) > max_chars:
            if not kept:  # the newest round alone is too long: keep its end
                kept.append("…" + lines[-max_chars:])
            break
        kept.append(lines)
        used += len(lines) + 1
    return "\n".join(reversed(kept)) or NOTHING_YET


def _relevance(scored: tuple[ScoredTopic, ...]) -> str:
    return "\n".join(f"- {s.topic.description}" for s in scored) or NOTHING_YET


def _latest(topics: tuple[Topic, ...]) -> str:
    return "\n".join(f"- {t.description}" for t in topics) or NOTHING_YET
