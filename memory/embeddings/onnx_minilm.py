"""all-MiniLM-L6-v2 (int8 ONNX, requantized for int8 arithmetic) on onnxruntime: offline, no
torch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnxruntime as ort

from memory.embeddings.batching import BatchedEmbedding
from memory.embeddings.readability import WordPieceReadability
from memory.protocols import Vector
from memory.tokens import wordpiece_tokenizer

if TYPE_CHECKING:
    from memory.embeddings.token_states import MiniLMWordStates

MAX_TOKENS = 256  # what all-MiniLM-L6-v2 was trained on; longer texts are truncated
# A chat-length text alone: 3.0 ms of CPU and 3.0 ms of wall time on one thread, against 5.1 ms
# of CPU for 3.9 ms on two (2 cores). A second thread pays off only for long texts (150 word
# pieces: 17.3 ms against 18.7, for 26 ms of CPU against 19), which a chat rarely embeds.
ONE_THREAD = 1


class OnnxMiniLM:
    """`Embedder` running the int8 MiniLM in-process, in one thread of its own that takes the
    calls that come together at once (see batching.py)."""

    name = "minilm-l6-qint8"

    def __init__(self, model_file: Path, tokenizer_file: Path, threads: int = ONE_THREAD
                 ) -> None:
        # Shared with the token counter; truncated below.
        self._tokenizer = wordpiece_tokenizer(tokenizer_file)
        self._session = minilm_session(model_file, threads)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._batched = BatchedEmbedding(self.embed_blocking)
        self._readability = WordPieceReadability(tokenizer_file)

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        return await self._batched.embed(texts)

    def word_states(self) -> MiniLMWordStates:
        """What the model makes of each word of a text, from this embedder's session (the
        scrubber's learned look reads it)."""
        from memory.embeddings.token_states import MiniLMWordStates

        return MiniLMWordStates(self._session, self._tokenizer)

    def readable(self, text: str) -> float:
        """MiniLM reads English word pieces: Hindi, Punjabi, Russian or emoji it does not."""
        return self._readability.share(text)

    async def aclose(self) -> None:
        """The model's thread ends; the session lives as long as the process."""
        self._batched.close()

    def embed_blocking(self, texts: list[str]) -> list[Vector]:
        """Embed in the calling thread; for benchmarks and worker threads only.

        Each text runs alone. The model quantizes its activations over a whole run, so in a run
        of several a text's vector would depend on the texts beside it (cosine down to 0.98);
        and on chat-length texts the padding a run needs costs more than it saves (4.1 ms a
        text alone against 5.7 in runs of nine)."""
        return [self._run(truncated(encoding.ids))
                for encoding in self._tokenizer.encode_batch(texts)]

    def _run(self, token_ids: list[int]) -> Vector:
        """One run of the model: the mean of the text's token states, normalized."""
        pooled = token_states(self._session, self._inputs, token_ids).mean(axis=0)
        vector: Vector = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).tolist()
        return vector


def minilm_session(model_file: Path, threads: int = ONE_THREAD) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    # Spinning worker threads slow the next CPU step (a chroma query) on small machines.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(str(model_file), sess_options=options,
                                providers=["CPUExecutionProvider"])


def token_states(session: ort.InferenceSession, inputs: set[str], token_ids: list[int]
                 ) -> np.ndarray:
    """The model's last state of each word piece (pieces x 384)."""
    ids = np.array([token_ids], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    if "token_type_ids" in inputs:
        feed["token_type_ids"] = np.zeros_like(ids)
    states: np.ndarray = session.run(None, feed)[0][0]
    return states


def truncated(ids: list[int]) -> list[int]:
    """At most MAX_TOKENS, the closing [SEP] kept (as the tokenizer's own truncation does)."""
    return ids if len(ids) <= MAX_TOKENS else [*ids[:MAX_TOKENS - 1], ids[-1]]
