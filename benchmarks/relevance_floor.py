"""Calibrate `chat.relevance_floor` for the packaged MiniLM embedder (or multilingual-e5).

Messages a user might send are scored against paper-style topic descriptions. For each floor it
prints the share of related (message, topic) pairs kept and of unrelated pairs let in.

    python -m benchmarks.relevance_floor
    python -m benchmarks.relevance_floor --embeddings e5

The last line is `floor=<the highest floor that keeps at least 85% of related pairs>`.
"""

from __future__ import annotations

import argparse

import numpy as np

from bot.app import build_embedder
from bot.settings import load_settings

TOPICS = {
    "hobbies": "The host and I talked about hobbies, and the host said he likes to play table "
    "tennis because he admires Zhendong Fan.",
    "work": "The host and I talked about work, and the host said she is a night-shift nurse at "
    "the city hospital.",
    "food": "The host and I talked about food, and the host said his favourite dish is ramen.",
    "pets": "The host and I talked about pets, and the host said she adopted a cat named Miso.",
    "travel": "The host and I talked about travel, and the host said he is planning a trip to "
    "Japan in spring.",
    "family": "The host and I talked about family, and the host said his sister just had a baby.",
    "music": "The host and I talked about music, and the host said she plays the violin in an "
    "orchestra.",
}
MESSAGES = {
    "hobbies": ["Do you know my latest hobby?", "Which sport do I play?",
                "Want to play ping pong later?", "What do I do for fun?"],
    "work": ["I'm so tired after my shift", "What is my job?", "Work was hard today"],
    "food": ["What should I eat tonight?", "Do you remember my favourite food?", "I'm hungry"],
    "pets": ["My cat is sick", "Do you remember my pet's name?"],
    "travel": ["Where am I going on holiday?", "I booked my flights!"],
    "family": ["I'm an uncle now!", "How is my sister doing?"],
    "music": ["I have a concert tonight", "What instrument do I play?"],
    "": ["What's the weather like?", "Tell me a joke", "How are you today?", "hello",
         "What is 2+2?"],
}
FLOORS = [0.10, 0.15, 0.20, 0.25, 0.30, 0.35]
TARGET_KEPT = 0.85


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embeddings", choices=["local", "e5"], default="local",
                        help="embeddings.provider: the packaged MiniLM, or multilingual-e5")
    provider = parser.parse_args().embeddings
    embedder = build_embedder(load_settings(None, embeddings={"provider": provider}).embeddings)
    labels = list(TOPICS)
    topic_vectors = np.array(embedder.embed_blocking([TOPICS[k] for k in labels]))
    related, unrelated = [], []
    for subject, messages in MESSAGES.items():
        scores = np.array(embedder.embed_blocking(messages)) @ topic_vectors.T
        for row in scores:
            for label, score in zip(labels, row, strict=True):
                (related if label == subject else unrelated).append(score)
    kept_related = {f: float(np.mean(np.array(related) >= f)) for f in FLOORS}
    print(f"{len(related)} related and {len(unrelated)} unrelated (message, topic) pairs\n")
    print("| floor | related kept | unrelated let in |\n|---:|---:|---:|")
    for floor in FLOORS:
        let_in = float(np.mean(np.array(unrelated) >= floor))
        print(f"| {floor:.2f} | {kept_related[floor]:.0%} | {let_in:.1%} |")
    good_enough = [f for f in FLOORS if kept_related[f] >= TARGET_KEPT]
    print(f"floor={max(good_enough, default=min(FLOORS)):.2f}")


if __name__ == "__main__":
    main()
