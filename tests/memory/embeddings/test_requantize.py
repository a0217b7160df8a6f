"""The MiniLM requantized for int8 arithmetic: built once, safely, and as good as the packaged
model at telling what is related."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file, packaged_minilm_file
from memory.embeddings.requantize import requantized_minilm_file

SENTENCES = [
    "My sister Lea lives in Lisbon",
    "Where does my sister live?",
    "I adopted a grey cat called Luna",
    "What is my cat's name?",
    "I work as a nurse at the city hospital",
    "What do I do for a living?",
    "We are flying to Japan in April",
    "When is our trip?",
]


def test_two_processes_building_at_once_get_one_whole_model_that_is_then_reused(
    tmp_path: Path,
) -> None:
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(requantized_minilm_file, [tmp_path, tmp_path])
    assert first == second
    built_at = first.stat().st_mtime_ns
    assert OnnxMiniLM(first, minilm_tokenizer_file()).embed_blocking(["hello"])[0]
    assert requantized_minilm_file(tmp_path).stat().st_mtime_ns == built_at
    assert [path.name for path in tmp_path.iterdir()] == [first.name]  # no half-built files


def test_its_vectors_stay_close_to_the_packaged_models_and_pick_the_same_answers() -> None:
    packaged = np.array(OnnxMiniLM(packaged_minilm_file(), minilm_tokenizer_file())
                        .embed_blocking(SENTENCES))
    requantized = np.array(OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
                           .embed_blocking(SENTENCES))
    assert ((packaged * requantized).sum(axis=1) > 0.98).all()
    for vectors in (packaged, requantized):
        facts, questions = vectors[0::2], vectors[1::2]
        assert ((questions @ facts.T).argmax(axis=1) == np.arange(len(facts))).all()
