"""Extractive topics: each sentence dated by its day; merging keeps the newest view, summarizes
the history and makes nothing up."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jobs.summarize.drafts import Voices
from jobs.summarize.extractive import ExtractiveSummarizer
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.types import Round, RoundStatus

PAPER_DESCRIPTIONS = [  # the five hobby descriptions of the paper, as a model writes them
    "The host and I talked about hobbies, and he said he developed an interest in table tennis "
    "because he admires the athlete Zhendong Fan.",
    "The host and I talked about hobbies, and he mentioned that he recently started trying to "
    "learn table tennis.",
    "The host and I talked about hobbies, and he expressed that due to his busy work schedule, "
    "he no longer enjoys sports and even dislikes table tennis as a sport.",
    "The host and I talked about hobbies, and he shared that he has taken up swimming as a new "
    "sport recently.",
    "The host and I talked about hobbies, and he mentioned that he has already learned how to "
    "swim.",
]


@pytest.fixture(scope="module")
def minilm_embedder() -> OnnxMiniLM:
    return OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())


@pytest.fixture(scope="module")
def summarizer(minilm_embedder: OnnxMiniLM) -> ExtractiveSummarizer:
    return ExtractiveSummarizer(minilm_embedder)


async def test_merge_keeps_the_latest_view_in_time_order(
    summarizer: ExtractiveSummarizer,
) -> None:
    merged = await summarizer.merge("hobbies", PAPER_DESCRIPTIONS, Voices())
    assert merged.startswith("The host and I talked about hobbies, and the host said: ")
    assert merged.count("talked about") == 1  # the template is not nested
    said = merged.split("said: ", 1)[1]
    assert "learned how to swim" in said  # the newest attitude always survives
    assert len(merged) <= 280
    parts = [p for p in ("table tennis", "swimming", "learned how to swim") if p in said]
    assert parts == sorted(parts, key=said.index)  # told in the order it happened
    sources = " ".join(PAPER_DESCRIPTIONS).lower()
    assert all(sentence.lower() in sources for sentence in said.split(". ") if sentence)


async def test_each_topic_sentence_carries_the_day_it_was_said(
    summarizer: ExtractiveSummarizer,
) -> None:
    said = [(datetime(2023, 5, 8, 13, tzinfo=UTC), "I adopted a grey cat called Miso."),
            (datetime(2023, 5, 20, 9, tzinfo=UTC), "Miso the cat sleeps on my keyboard."),
            (datetime(2023, 6, 2, 18, tzinfo=UTC), "I joined a table tennis club downtown.")]
    rounds = [Round(i, "ana", "ana", "companion", text, "ok", RoundStatus.ANSWERED, when)
              for i, (when, text) in enumerate(said, start=1)]
    topics = await summarizer.summarize(rounds, Voices())
    text = " ".join(t.description for t in topics)
    assert "(8 May 2023) I adopted a grey cat called Miso." in text
    assert "(20 May 2023) Miso the cat sleeps on my keyboard." in text
    assert "(2 June 2023) I joined a table tennis club downtown." in text
    [cat] = [t for t in topics if "Miso" in t.description]
    assert (cat.said_from, cat.said_until) == (said[0][0], said[1][0])  # the days it spans
