"""The pool's scrubber as the product runs it: Presidio's rules and the learned look, reading
the packaged MiniLM's word states (from the embedder's own session when the embedder is that
model). Nothing is imported or loaded until the first text to scrub
(`memory.pool.scrub.PresidioScrubber`)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from memory.pool.scrub import PresidioScrubber
from memory.protocols import Embedder

if TYPE_CHECKING:
    from memory.pool.presidio import PresidioEngines


def packaged_scrubber(embedder: Embedder | None = None) -> PresidioScrubber:
    """`embedder`: the process's, whose MiniLM session the look shares when it is the packaged
    MiniLM."""
    return PresidioScrubber(functools.partial(packaged_engines, embedder))


def packaged_engines(embedder: Embedder | None = None) -> PresidioEngines:
    """The engines with the packaged learned look (`memory.pool.tagger`); the list of places
    is read once for both."""
    from memory.embeddings.onnx_minilm import OnnxMiniLM
    from memory.embeddings.packaged import minilm_tokenizer_file
    from memory.embeddings.requantize import requantized_minilm_file
    from memory.embeddings.token_states import MiniLMWordStates
    from memory.places import place_names
    from memory.pool.first_names import first_names
    from memory.pool.presidio import PresidioEngines
    from memory.pool.tagger import TaggerWeights, WordLook

    places = place_names()
    states = (embedder.word_states() if isinstance(embedder, OnnxMiniLM)
              else MiniLMWordStates.from_files(requantized_minilm_file(), minilm_tokenizer_file()))
    look = WordLook(TaggerWeights.from_file(), states, first_names(), places)
    return PresidioEngines(look, places)
