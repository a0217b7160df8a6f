"""Embeddings from any OpenAI-compatible `/embeddings` endpoint."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from openai import AsyncOpenAI, OpenAIError

from memory.errors import EmbeddingUnavailable
from memory.protocols import Vector


class OpenAIEmbedder:
    """`Embedder` over HTTP. Vectors are normalized here, whatever the server returns."""

    def __init__(self, client: AsyncOpenAI, model: str) -> None:
        self._client = client
        self._model = model
        # Collection names allow [a-zA-Z0-9._-]: "nomic-embed-text:latest" must not break them.
        self.name = re.sub(r"[^A-Za-z0-9._-]", "-", f"openai-{model}")[:40].strip("-._")

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        try:
            response = await self._client.embeddings.create(model=self._model, input=list(texts))
        except OpenAIError as error:
            raise EmbeddingUnavailable(f"Embeddings endpoint failed: {error}") from error
        vectors = np.array([item.embedding for item in response.data], dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        normalized: list[Vector] = (vectors / np.clip(norms, 1e-12, None)).tolist()
        return normalized

    def readable(self, text: str) -> float:
        """Whether the server's model reads a language cannot be known from here: it is trusted
        (pick a multilingual model for other languages; docs/pages/models.md says which)."""
        return 1.0

    async def aclose(self) -> None:
        await self._client.close()
