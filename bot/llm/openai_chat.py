"""Any OpenAI-compatible chat endpoint: OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any

import openai
from openai import AsyncOpenAI

from bot.errors import ModelUnavailable
from memory.protocols import CUT_SHORT, ChatMessage


class OpenAIChat:
    """`ChatModel` over the OpenAI API.

    The client itself retries connection errors, 408, 429 and 5xx with exponential backoff
    (`max_retries` on the client) before a reply starts; a failure after that is reported.
    """

    def __init__(
        self, client: AsyncOpenAI, model: str, *, temperature: float, max_tokens: int
    ) -> None:
        self._client = client
        self._model = model
        self._temperature = temperature
        self._max_tokens = max_tokens
        self.name = model

    async def stream(self, messages: Sequence[ChatMessage]) -> AsyncGenerator[str, None]:
        try:
            # Each piece is read as the JSON it is: the typed chunks of
            # `chat.completions.create` cost 0.09 ms more a piece to build (a reply of 150
            # tokens, 13 ms of CPU), and only a piece's text and end are read.
            response = await self._client.post(
                "/chat/completions",
                body={"model": self._model, "messages": list(messages),
                      "temperature": self._temperature, "max_tokens": self._max_tokens,
                      "stream": True},
                cast_to=object, stream=True, stream_cls=openai.AsyncStream[object])
            try:
                async for chunk in response:
                    choice = _first_choice(chunk)
                    if piece := (choice.get("delta") or {}).get("content"):
                        yield piece
                    if choice.get("finish_reason") == "length":
                        yield CUT_SHORT
            finally:  # a caller that stops early must not leave the server generating
                await response.close()
        except openai.APITimeoutError as error:
            raise ModelUnavailable("The language model took too long to answer.") from error
        except openai.APIConnectionError as error:
            raise ModelUnavailable(
                f"The language model at {self._client.base_url} cannot be reached."
            ) from error
        except openai.AuthenticationError as error:
            raise ModelUnavailable("The language model refused our API key.") from error
        except openai.RateLimitError as error:
            raise ModelUnavailable("The language model is busy (rate limited).") from error
        except openai.APIStatusError as error:
            raise ModelUnavailable(
                f"The language model answered with an error ({error.status_code})."
            ) from error
        except openai.OpenAIError as error:
            raise ModelUnavailable("The language model failed to answer.") from error

    async def aclose(self) -> None:
        await self._client.close()


def _first_choice(chunk: object) -> dict[str, Any]:
    """A streamed chunk's first choice ({} for a chunk without one, such as usage)."""
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    return choices[0] if choices and isinstance(choices[0], dict) else {}
