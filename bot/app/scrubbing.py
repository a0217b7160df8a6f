"""The pool's scrubber as the product runs it: Presidio's rules and the learned look, reading
the packaged MiniLM's word states. Nothing is imported or loaded until the first text to scrub
(`memory.pool.scrub.PresidioScrubber`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.pool.scrub import PresidioScrubber

if TYPE_CHECKING:
    from memory.pool.presidio import PresidioEngines


def packaged_scrubber() -> PresidioScrubber:
    return PresidioScrubber(packaged_engines)


def packaged_engines() -> PresidioEngines:
    """The engines with the packaged learned look (`memory.pool.tagger`); the list of places
    is read once for both."""
    from memory.embeddings.packaged import minilm_tokenizer_file
    from memory.embeddings.requantize import requantized_minilm_file
    from memory.embeddings.token_states import MiniLMWordStates
    from memory.places import place_names
    from memory.pool.first_names import first_names
    from memory.pool.presidio import PresidioEngines
    from memory.pool.tagger import TaggerWeights, WordLook

    places = place_names()
    states = MiniLMWordStates(requantized_minilm_file(), minilm_tokenizer_file())
    look = WordLook(TaggerWeights.from_file(), states, first_names(), places)
    return PresidioEngines(look, places)
