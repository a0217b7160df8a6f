"""What MiniLM makes of each word of a text in its context: the mean of its word pieces' last
states. The scrubber's learned look reads them (`memory.pool.tagger`): "Grace" in "Grace says
hi" and in "poses for grace and balance" get different states."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from memory.embeddings.onnx_minilm import minilm_session, token_states, truncated
from memory.tokens import wordpiece_tokenizer

DIMENSIONS = 384


class MiniLMWordStates:
    """The int8 MiniLM (the packaged embedder's model): the embedder's own session when it is
    that model (`OnnxMiniLM.word_states`; onnxruntime runs calls from several threads), else
    one of its own (`from_files`)."""

    name = "minilm-l6-qint8"

    def __init__(self, session: ort.InferenceSession, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = {i.name for i in self._session.get_inputs()}

    @classmethod
    def from_files(cls, model_file: Path, tokenizer_file: Path) -> MiniLMWordStates:
        """A session of its own (about 40 MB), one thread."""
        return cls(minilm_session(model_file), wordpiece_tokenizer(tokenizer_file))

    def of_spans(self, text: str, spans: Sequence[tuple[int, int]]
                 ) -> tuple[np.ndarray, list[int]]:
        """For each character span of `text` (a word), the mean state of the word pieces in it
        (spans x 384; zeros past the model's 256 pieces) and how many pieces it has."""
        encoding = self._tokenizer.encode(text)
        ids = truncated(encoding.ids)
        states = token_states(self._session, self._inputs, ids)
        means = np.zeros((len(spans), DIMENSIONS), dtype=np.float32)
        pieces = []
        for row, (start, end) in enumerate(spans):
            # [CLS] and [SEP] have empty offsets; a piece past the truncation has no state.
            inside = [i for i, (a, b) in enumerate(encoding.offsets)
                      if b > a and a < end and start < b]
            stated = [i for i in inside if i < len(ids) - 1]
            if stated:
                means[row] = states[stated].mean(axis=0)
            pieces.append(len(inside))
        return means, pieces
