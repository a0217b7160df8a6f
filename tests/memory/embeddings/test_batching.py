"""One model run for many callers (memory/embeddings/batching.py), with the packaged MiniLM: a
message alone goes to the model at once, without waiting for company; what arrives while the
model works shares its next run, a person's message before upkeep's long requests; a text
embedded lately is not embedded again."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from memory.embeddings.batching import BatchedEmbedding
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.protocols import Vector

WAIT = 10.0  # seconds: how long a test waits for the model thread before it says it hung


class GatedModel:
    """The real MiniLM, run in the batching thread, which records every run and can be held
    inside a run until the test lets it go."""

    def __init__(self) -> None:
        self._model = OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
        self.runs: list[list[str]] = []
        self.entered = threading.Event()
        self.released = threading.Event()
        self.released.set()

    def embed_blocking(self, texts: list[str]) -> list[Vector]:
        self.runs.append(list(texts))
        self.entered.set()
        assert self.released.wait(WAIT), "the test never let the model go"
        return self._model.embed_blocking(texts)


@pytest.fixture
def model() -> GatedModel:
    return GatedModel()


@pytest.fixture
def batched(model: GatedModel) -> Iterator[BatchedEmbedding]:
    embedding = BatchedEmbedding(model.embed_blocking)
    yield embedding
    model.released.set()
    embedding.close()


async def test_a_message_alone_goes_to_the_model_at_once(
    model: GatedModel, batched: BatchedEmbedding
) -> None:
    model.released.clear()
    pending = asyncio.ensure_future(batched.embed(["How is my cat today?"]))
    # Nothing else is asked: the run starts anyway, it does not wait for company.
    assert await asyncio.to_thread(model.entered.wait, WAIT)
    assert model.runs == [["How is my cat today?"]]
    model.released.set()
    [vector] = await pending
    assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-4)


async def test_what_arrives_while_the_model_works_shares_its_next_run_messages_first(
    model: GatedModel, batched: BatchedEmbedding
) -> None:
    model.released.clear()
    first = asyncio.ensure_future(batched.embed(["first message"]))
    assert await asyncio.to_thread(model.entered.wait, WAIT)
    window = [f"fact {i} of a summarized window" for i in range(5)]
    upkeep = asyncio.ensure_future(batched.embed(window))
    others = [asyncio.ensure_future(batched.embed([f"message of user {u}"])) for u in (1, 2)]
    await asyncio.sleep(0)  # all three are waiting for the model now
    model.released.set()
    done = await asyncio.gather(first, upkeep, *others)
    assert model.runs == [["first message"],
                          ["message of user 1", "message of user 2", *window]]
    # Each caller got the vectors of its own texts.
    alone = model._model.embed_blocking(["message of user 2", window[3]])
    assert np.allclose(done[3][0], alone[0], atol=1e-4)
    assert np.allclose(done[1][3], alone[1], atol=1e-4)


async def test_a_text_embedded_lately_is_not_embedded_again(
    model: GatedModel, batched: BatchedEmbedding
) -> None:
    [before] = await batched.embed(["I adopted a cat named Miso."])
    again = await batched.embed(["I adopted a cat named Miso.", "She likes boxes."])
    assert model.runs == [["I adopted a cat named Miso."], ["She likes boxes."]]
    assert again[0] == before
