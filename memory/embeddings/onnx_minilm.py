"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: offline, no torch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort

from memory.embeddings.batching import BatchedEmbedding
from memory.embeddings.readability import WordPieceReadability
from memory.protocols import Vector
from memory.tokens import wordpiece_tokenizer

MAX_TOKENS = 256  # what all-MiniLM-L6-v2 was trained on; longer texts are truncated
# Padded tokens in one run of the model. A run pads every text to its longest; its activations
# (attention grows with texts x length^2) set what onnxruntime's arena keeps for the life of the
# process. Texts are sorted by length and run in groups under this bound, so short texts are not
# padded to a long one's length. 150 calls of 1-32 texts (most of 3-20 words, some up to 200):
# one run per call took 85 s and grew the process from 224 to 1,101 MB; runs of at most 512
# tokens 17 s and 265 MB (1,024: 23 s, 319 MB; 2,048: 32 s, 388 MB; 256: as fast as 512).
MAX_RUN_TOKENS = 512


class OnnxMiniLM:
    """`Embedder` running the int8 MiniLM in-process, in one thread of its own, batching the
    calls that come together (see batching.py)."""

    name = "minilm-l6-int8"

    def __init__(self, model_file: Path, tokenizer_file: Path, threads: int = 0) -> None:
        # Shared with the token counter; padded per run and truncated below.
        self._tokenizer = wordpiece_tokenizer(tokenizer_file)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        # Spinning worker threads slow the next CPU step (a chroma query) on small machines.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._batched = BatchedEmbedding(self.embed_blocking)
        self._readability = WordPieceReadability(tokenizer_file)

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        return await self._batched.embed(texts)

    def readable(self, text: str) -> float:
        """MiniLM reads English word pieces: Hindi, Punjabi, Russian or emoji it does not."""
        return self._readability.share(text)

    async def aclose(self) -> None:
        """The model's thread ends; the session lives as long as the process."""
        self._batched.close()

    def embed_blocking(self, texts: list[str]) -> list[Vector]:
        """Embed in the calling thread; for benchmarks and worker threads only."""
        token_ids = [_truncated(encoding.ids)
                     for encoding in self._tokenizer.encode_batch(texts)]
        vectors: list[Vector] = [[] for _ in texts]
        for run in runs_by_length([len(ids) for ids in token_ids], MAX_RUN_TOKENS):
            for index, vector in zip(run, self._run([token_ids[i] for i in run]), strict=True):
                vectors[index] = vector
        return vectors

    def _run(self, token_ids: list[list[int]]) -> list[Vector]:
        """One run of the model over texts padded to the longest of them."""
        longest = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), longest), dtype=np.int64)
        for row, text_ids in enumerate(token_ids):
            ids[row, :len(text_ids)] = text_ids
        mask = (np.arange(longest)[None, :] < np.array([len(t) for t in token_ids])[:, None]
                ).astype(np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: list[Vector] = (pooled / np.clip(norms, 1e-12, None)).tolist()
        return vectors


def _truncated(ids: list[int]) -> list[int]:
    """At most MAX_TOKENS, the closing [SEP] kept (as the tokenizer's own truncation does)."""
    return ids if len(ids) <= MAX_TOKENS else [*ids[:MAX_TOKENS - 1], ids[-1]]


def runs_by_length(lengths: list[int], max_tokens: int) -> list[list[int]]:
    """The indexes of texts of these token lengths, shortest first, in runs whose padded size
    (texts x the longest) stays within `max_tokens`; a text longer than that runs alone."""
    runs: list[list[int]] = []
    for index in sorted(range(len(lengths)), key=lengths.__getitem__):
        if runs and (len(runs[-1]) + 1) * lengths[index] <= max_tokens:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs
