"""What a statement is about, by meaning, with the packaged embedder: phrasings no hand-written
claim reads still land on their subject, and what is not said of the speaker as now lands on
none."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from memory.beliefs.subjects import Subjects
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.protocols import Vector


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLM:
    return OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())


@pytest.mark.parametrize(("text", "subject"), [
    ("finally hung the pictures in our new flat in Turin", "home"),
    ("we're not in Rome any more, it's Vienna now", "home"),
    ("first week at Nordwind done, the people are lovely", "work"),
    # A near tie that the int8 model turned over: "my name is Alex" 0.364 against the
    # partner sentence 0.349 (the packaged model: 0.337 against 0.347). Kept as a known miss
    # rather than answered with a sentence written for it; strict, so a fix is noticed.
    pytest.param("I'm seeing someone called Sam", "partner", marks=pytest.mark.xfail(
        strict=True, reason="lands on 'name' by 0.015 with MiniLM's int8 arithmetic")),
    ("just picked up the keys to my new Tesla", "car"),
    ("been going to the climbing gym three times a week", "hobby"),
])
async def test_a_statement_lands_on_its_subject_in_any_words(
    embedder: OnnxMiniLM, text: str, subject: str
) -> None:
    subjects = await Subjects(embedder).load()
    assert await subjects.of([text]) == [subject]


@pytest.mark.parametrize("text", [
    "off to Lisbon for a week with my sister",
    "I might move to Leeds one day",
    "I used to live in Madrid",
    "Do I still live in Paris?",
    "what a day, I'm exhausted lol",
])
async def test_what_is_not_said_of_the_speaker_as_now_has_no_subject(
    embedder: OnnxMiniLM, text: str
) -> None:
    subjects = await Subjects(embedder).load()
    assert await subjects.of([text]) == [None]


async def test_a_question_finds_the_subject_it_asks_about(embedder: OnnxMiniLM) -> None:
    subjects = await Subjects(embedder).load()
    [vector] = await embedder.embed(["Which city am I in these days?"])
    assert subjects.nearest(vector) == "home"


class CountingEmbedder:
    """The packaged embedder, counting the texts it is asked for."""

    def __init__(self, model: OnnxMiniLM) -> None:
        self._model = model
        self.name = model.name
        self.texts = 0

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.texts += len(texts)
        await asyncio.sleep(0)  # others come in while it works, as under load
        return await self._model.embed(texts)

    def readable(self, text: str) -> float:
        return self._model.readable(text)


async def test_turns_that_start_together_load_the_subjects_once(embedder: OnnxMiniLM) -> None:
    counting = CountingEmbedder(embedder)
    subjects = Subjects(counting)  # type: ignore[arg-type]
    await asyncio.gather(*(subjects.load() for _ in range(20)))
    once = counting.texts
    assert 50 < once < 200  # the subjects' sentences, once, not twenty times
    assert subjects.closest((await embedder.embed(["where do I live now?"]))[0], 1, 0.2) == [
        "home"]


async def test_agreement_is_highest_for_the_statement_on_the_same_part_of_life(
    embedder: OnnxMiniLM
) -> None:
    """Soft: it holds where no subject is named ("fixie" is close to none of the sentences)."""
    subjects = await Subjects(embedder).load()
    question, *said = await embedder.embed([
        "what kind of bike do i ride?", "rode my yellow fixie through the snow today",
        "my flatmate drank my oat milk again", "I've been vegetarian since I was 14"])
    agreement = subjects.agreement(question, said)
    assert agreement.argmax() == 0
    assert all(0.0 <= value <= 1.0 for value in agreement)
