"""The synthetic memories and messages of the turn studies (turn_overhead, vs_mem0), and one
timed turn.

Topics and facts are made from the word lists below with a seeded `random.Random`, each
numbered so that every one is its own; the messages are what the measured turns say.
"""

from __future__ import annotations

import random
import time
from contextlib import aclosing

from bot.app import Companion
from bot.core.inbound import Incoming

USER = "bench"

SUBJECTS = ["hobbies", "work", "family", "food", "travel", "music", "pets", "health", "books",
            "movies", "sports", "weather", "friends", "school", "money", "garden", "games"]
FACTS = ["likes", "is tired of", "started", "wants to try", "stopped", "talks often about",
         "is worried about", "is proud of", "dreams about", "shared a story about"]
THINGS = ["table tennis", "swimming", "night shifts", "a new job", "ramen", "a trip to Japan",
          "the violin", "a cat named Miso", "running", "a novel by Le Guin", "chess",
          "the garden tomatoes", "a sister's wedding", "saving for a house", "a sore knee"]
MESSAGES = ["Do you know my latest hobby?", "I'm so tired after work today",
            "What should I cook tonight?", "My cat knocked over a plant again",
            "I finally booked the flights!", "Can you recommend a book?",
            "I went swimming this morning", "My knee still hurts a bit",
            "We won the chess tournament!", "I'm thinking about a new job"]


def topic_text(rng: random.Random, i: int) -> tuple[str, str]:
    subject = rng.choice(SUBJECTS)
    fact = f"{rng.choice(FACTS)} {rng.choice(THINGS)}"
    return subject, f"The host and I talked about {subject}, and the host said he {fact} (#{i})."


FACT_OPENINGS = ["I", "My sister", "My friend Sam", "We", "My boss", "My mother"]
FACT_VERBS = ["started", "stopped", "loves", "booked", "talked about", "cooked", "painted",
              "visited", "read about", "is saving for"]
FACT_WHEN = ["last week", "this morning", "in May", "after work", "on Sunday", "with the kids"]


def fact_text(rng: random.Random, i: int) -> str:
    return (f"{rng.choice(FACT_OPENINGS)} {rng.choice(FACT_VERBS)} {rng.choice(THINGS)} "
            f"{rng.choice(FACT_WHEN)} (note {i}).")


async def one_turn(companion: Companion, text: str) -> float:
    started = time.perf_counter()
    async with aclosing(companion.dialogue.respond(Incoming(USER, text))) as events:
        async for _ in events:
            pass
    return (time.perf_counter() - started) * 1000
