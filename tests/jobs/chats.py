"""Scripted conversations for the memory-job tests and benchmarks."""

from __future__ import annotations

SUBJECTS = {
    "table tennis": [
        "I play table tennis every Tuesday at the club.",
        "I started playing table tennis because I admire Zhendong Fan.",
        "My backhand topspin is getting much better lately.",
        "I won my first table tennis match in the league yesterday.",
    ],
    "nursing": [
        "I work night shifts as a nurse at the city hospital.",
        "My ward was short of staff again last night.",
        "I am thinking about applying for a head nurse position.",
        "My colleague Priya covered my shift so I could rest.",
    ],
    "garden": [
        "I grow tomatoes and basil in my small garden.",
        "My tomatoes finally turned red this week.",
        "I built a raised bed for the garden from old pallets.",
        "We had slugs eating my lettuce in the garden.",
    ],
}
SMALL_TALK = ["hello!", "haha ok", "what do you think?", "thanks!", "see you later"]
REPLIES = ["That sounds great, tell me more!", "Oh, how did that feel?", "Interesting!"]


def three_subject_chat(rounds: int = 100) -> list[tuple[str, str]]:
    """(user, reply) pairs cycling through three subjects with some small talk between."""
    subjects = list(SUBJECTS.values())
    chat = []
    for i in range(rounds):
        if i % 5 == 4:
            user = SMALL_TALK[i % len(SMALL_TALK)]
        else:
            block = subjects[(i // 10) % 3]
            user = block[i % len(block)]
        chat.append((user, REPLIES[i % len(REPLIES)]))
    return chat
