"""What a statement is about, by meaning, with the packaged embedder: phrasings no hand-written
claim reads still land on their subject, and what is not said of the speaker as now lands on
none."""

from __future__ import annotations

import pytest

from memory.beliefs.subjects import Subjects
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_model_file, minilm_tokenizer_file


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLM:
    return OnnxMiniLM(minilm_model_file(), minilm_tokenizer_file())


@pytest.mark.parametrize(("text", "subject"), [
    ("finally hung the pictures in our new flat in Turin", "home"),
    ("we're not in Rome any more, it's Vienna now", "home"),
    ("first week at Nordwind done, the people are lovely", "work"),
    ("I'm seeing someone called Sam", "partner"),
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
