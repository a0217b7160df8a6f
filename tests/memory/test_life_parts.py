"""The learned reading of parts of life: a question about the person and the statement that
answers it agree, even with no word in common; small talk agrees with nothing. The packaged
model on the packaged MiniLM."""

from __future__ import annotations

import numpy as np
import pytest

from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.life_parts import LifeParts


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLM:
    return OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())


@pytest.fixture(scope="module")
def parts() -> LifeParts:
    return LifeParts.packaged()


async def test_a_job_said_by_the_work_agrees_with_a_question_about_the_job(
    minilm: OnnxMiniLM, parts: LifeParts
) -> None:
    question, work, chat = await minilm.embed([
        "hang on, what was my job again?",
        "twelve hours stacking shelves at the warehouse, my back is done",
        "bit grey out there this morning",
    ])
    work_agrees, chat_agrees = parts.agreement(question, [work, chat])
    assert work_agrees > 0.5 > chat_agrees


async def test_small_talk_agrees_with_nothing_not_even_small_talk(
    minilm: OnnxMiniLM, parts: LifeParts
) -> None:
    first, second = await minilm.embed(["haha yeah same", "ugh what a day honestly"])
    assert parts.agreement(first, [second])[0] < 0.1


async def test_each_message_reads_as_one_spread_over_the_parts(
    minilm: OnnxMiniLM, parts: LifeParts
) -> None:
    vectors = await minilm.embed(["my rabbit Clover hates carrots, weirdly", "where do I live?"])
    probabilities = parts.probabilities(vectors)
    assert np.allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
    assert parts.labels[int(np.argmax(probabilities[0]))] == "pets"
    assert parts.labels[int(np.argmax(probabilities[1]))] == "home"


def test_it_reads_only_the_vectors_it_was_trained_on(minilm: OnnxMiniLM, parts: LifeParts
                                                     ) -> None:
    assert parts.fits(minilm)
    other = LifeParts("another-model", parts.labels, parts.weights, parts.bias)
    assert not other.fits(minilm)
