"""Topic labels: the everyday label a statement is closest to in meaning, and the key a new label
joins (its own, or a near-synonym the user already has)."""

from __future__ import annotations

import numpy as np
import pytest

from jobs.summarize.labels import EverydayLabels, LabelResolver
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file


@pytest.fixture(scope="module")
def minilm_embedder() -> OnnxMiniLM:
    return OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())


@pytest.fixture(scope="module")
def minilm_labels(minilm_embedder: OnnxMiniLM) -> EverydayLabels:
    return EverydayLabels(minilm_embedder)


@pytest.mark.parametrize(("said", "accepted"), [
    ("My uncle is visiting from Canada", {"family", "travel"}),
    ("I'm reading a thriller by Tana French", {"books"}),
    ("My laptop battery died during the call", {"technology", "work"}),
    ("We got a kitten last week", {"pets"}),
])
async def test_everyday_labels_name_a_statement_as_a_person_would(
    minilm_labels: EverydayLabels, minilm_embedder: OnnxMiniLM, said: str, accepted: set[str]
) -> None:
    [vector] = await minilm_embedder.embed([said])
    assert await minilm_labels.best(np.array(vector)) in accepted


async def test_near_synonym_labels_share_a_key(minilm_embedder: OnnxMiniLM) -> None:
    resolver = LabelResolver(minilm_embedder, similarity=0.75)
    keys = await resolver.keys_for(
        ["Hobbies and sports", "Work", "job", "travel", "trips", "cats"], ["hobby"])
    assert keys == ["hobby", "work", "work", "travel", "travel", "cat"]
