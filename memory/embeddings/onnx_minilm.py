"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: offline, no torch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from memory.embeddings.batching import BatchedEmbedding
from memory.embeddings.readability import WordPieceReadability
from memory.protocols import Vector

MAX_TOKENS = 256  # what all-MiniLM-L6-v2 was trained on; longer texts are truncated


class OnnxMiniLM:
    """`Embedder` running the int8 MiniLM in-process, in one thread of its own, batching the
    calls that come together (see batching.py)."""

    name = "minilm-l6-int8"

    def __init__(self, model_file: Path, tokenizer_file: Path, threads: int = 0) -> None:
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        # No fixed length: each batch is padded only to its longest text.
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
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
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: list[Vector] = (pooled / np.clip(norms, 1e-12, None)).tolist()
        return vectors
