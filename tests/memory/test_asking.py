"""The asking gate: a question with no word for the person can still ask about them ("and the
hamster's name?"); a question about the world, or a request for advice, does not. The packaged
gate on the packaged MiniLM."""

from __future__ import annotations

import pytest

from memory.asking import AskingGate
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.plans.gate import GateWeights


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLM:
    return OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())


async def _asks(minilm: OnnxMiniLM, message: str) -> bool:
    [vector] = await minilm.embed([message])
    return AskingGate().asks(message, vector)


@pytest.mark.parametrize("message", [
    pytest.param("and the hamster's name?", marks=pytest.mark.xfail(
        strict=True, reason="a known miss: the gate is not sure enough (held out, it catches "
        "14 of the 19 such questions the rules miss)")),
    "who's the one starting a new job next week?",
    "which town was it again",
    "what's my sister called?",  # the rules' own
])
async def test_a_question_about_the_person_asks(minilm: OnnxMiniLM, message: str) -> None:
    assert await _asks(minilm, message)


@pytest.mark.parametrize("message", [
    "what's the fastest bird in the world?",
    "who painted the ceiling of the Sistine Chapel",
    "how do I get wax out of a carpet?",  # advice: never asked of the gate
    "my sister's name is Lea",  # no question at all
])
async def test_a_question_about_the_world_or_no_question_does_not(minilm: OnnxMiniLM,
                                                                  message: str) -> None:
    assert not await _asks(minilm, message)


def test_it_reads_only_the_vectors_it_was_trained_on(minilm: OnnxMiniLM) -> None:
    assert AskingGate().fits(minilm)
    assert not AskingGate(GateWeights("another-model", (0.0,) * 384, 0.0, 0.7)).fits(minilm)
