"""Any OpenAI-compatible chat endpoint: OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import cast

import openai
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionMessageParam

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
            response = await self._client.chat.completions.create(
                model=self._model,
                messages=cast("list[ChatCompletionMessageParam]", list(messages)),
                temperature=self._temperature,
                max_tokens=self._max_tokens,
                stream=True,
            )
            try:
                async for chunk in response:
                    if not chunk.choices:
                        continue
                    if piece := chunk.choices[0].delta.content:
                        yield piece
                    if chunk.choices[0].finish_reason == "length":
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
