"""Any OpenAI-compatible chat endpoint: OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio.

The reply streams over aiohttp, read as server-sent events of plain JSON. Under load the
openai package's client (httpx, httpcore and h11, in Python) was 14% of a bot process's samples
holding the interpreter lock; aiohttp parses HTTP in C (see docs/pages/performance.md).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from bot.errors import ModelAnswered, ModelUnavailable
from memory.protocols import CUT_SHORT, ChatMessage

# What the openai client retries, before a reply starts: a timeout, a lost connection, and these.
RETRIED_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
MAX_RETRY_AFTER = 60.0  # seconds: a longer wait asked for is not trusted (our backoff instead)
CONNECTIONS = 1_000  # open at once, as the openai client allows
READ_BUFFER = 2**20  # bytes: a streamed event is one line


@dataclass(frozen=True)
class Endpoint:
    """Where the model is and how long to wait for it."""

    base_url: str
    api_key: str
    timeout_seconds: float  # to connect, and between two pieces of a reply
    max_retries: int


class _Transient(Exception):
    """An answer worth asking again, maybe after the wait the server asked for."""

    def __init__(self, error: ModelUnavailable, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class OpenAIChat:
    """`ChatModel` over the OpenAI API.

    Connection errors, timeouts, 408, 409, 429 and 5xx are retried with exponential backoff
    (`max_retries`, honouring a server's Retry-After) before a reply starts; a failure after
    that is reported.
    """

    def __init__(
        self, endpoint: Endpoint, model: str, *, temperature: float, max_tokens: int
    ) -> None:
        self._endpoint = endpoint
        self._url = endpoint.base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._session: aiohttp.ClientSession | None = None  # opened at the first reply
        self._loop: asyncio.AbstractEventLoop | None = None  # the session's
        self.name = model

    async def stream(self, messages: Sequence[ChatMessage]) -> AsyncGenerator[str, None]:
        body = {"model": self._model, "messages": list(messages),
                "temperature": self._temperature, "max_tokens": self._max_tokens,
                "stream": True}
        response = await self._start(body)
        finished = False
        try:
            async for chunk in _events(response):
                choice = _first_choice(chunk)
                if piece := (choice.get("delta") or {}).get("content"):
                    yield piece
                if choice.get("finish_reason") == "length":
                    yield CUT_SHORT
            finished = True
        except TimeoutError as error:
            raise ModelUnavailable("The language model took too long to answer.") from error
        except aiohttp.ClientError as error:
            raise ModelUnavailable("The language model stopped answering mid-reply.") from error
        finally:
            if finished:
                response.release()
            else:  # a caller that stops early must not leave the server generating
                response.close()

    async def _start(self, body: dict[str, Any]) -> aiohttp.ClientResponse:
        """The response once the server accepted the request, after the retries it took."""
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(_Transient),
            stop=stop_after_attempt(self._endpoint.max_retries + 1),
            wait=_server_asked_or_backoff, reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._request(body)
        except _Transient as failed:
            raise failed.error from failed.error.__cause__
        raise AssertionError("tenacity ended without an attempt")  # pragma: no cover

    async def _request(self, body: dict[str, Any]) -> aiohttp.ClientResponse:
        try:
            try:
                response = await self._open().post(self._url, json=body)
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as lost:
                if isinstance(lost, aiohttp.ClientConnectorError):  # no connection made at all
                    raise
                # A kept-alive connection the server closed as it was taken (servers close idle
                # ones after a few seconds): once more at once, on another connection.
                response = await self._open().post(self._url, json=body)
        except TimeoutError as error:
            raise _Transient(_caused("The language model took too long to answer.", error)
                             ) from error
        except aiohttp.ClientError as error:
            raise _Transient(_caused(
                f"The language model at {self._endpoint.base_url} cannot be reached.", error)
            ) from error
        if response.status < 400:
            return response
        answered = ModelAnswered(response.status, await _error_message(response))
        failure = _caused(_status_failure(response.status), answered)
        if response.status in RETRIED_STATUSES:
            raise _Transient(failure, _retry_after(response.headers))
        raise failure

    def _open(self) -> aiohttp.ClientSession:
        """The session of the running event loop (a session serves the loop it was made in:
        a command may run one loop after another)."""
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            self._loop = loop
            timeout = self._endpoint.timeout_seconds
            self._session = aiohttp.ClientSession(
                headers={"Authorization": f"Bearer {self._endpoint.api_key}"},
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=timeout,
                                              sock_read=timeout),
                connector=aiohttp.TCPConnector(limit=CONNECTIONS),
                read_bufsize=READ_BUFFER)
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


def _caused(message: str, cause: BaseException) -> ModelUnavailable:
    """What the person is told, with what happened as its cause (kept through the retries)."""
    failure = ModelUnavailable(message)
    failure.__cause__ = cause
    return failure


def _status_failure(status: int) -> str:
    if status == 401:
        return "The language model refused our API key."
    if status == 429:
        return "The language model is busy (rate limited)."
    return f"The language model answered with an error ({status})."


async def _error_message(response: aiohttp.ClientResponse) -> str:
    """The server's own words for an error: OpenAI's `{"error": {"message": ...}}`, or the
    start of its body."""
    try:
        body = await response.text(errors="replace")
    except (aiohttp.ClientError, TimeoutError):
        return response.reason or ""
    finally:
        response.release()
    try:
        said = json.loads(body)
    except ValueError:
        return body.strip()[:200]
    error = said.get("error") if isinstance(said, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return str(message or body.strip())[:200]


def _retry_after(headers: Any) -> float | None:
    """The wait a server asked for (Retry-After in seconds, or retry-after-ms), if any."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return float(headers[name]) * scale
        except (KeyError, ValueError):
            continue
    return None


_backoff = wait_exponential_jitter(multiplier=0.5, max=8.0, jitter=0.25)


def _server_asked_or_backoff(state: RetryCallState) -> float:
    """The server's Retry-After when it gave a reasonable one, else exponential backoff."""
    failure = state.outcome.exception() if state.outcome else None
    asked = failure.retry_after if isinstance(failure, _Transient) else None
    if asked is not None and 0 <= asked <= MAX_RETRY_AFTER:
        return asked
    return float(_backoff(state))


async def _events(response: aiohttp.ClientResponse) -> AsyncIterator[Any]:
    """The JSON of each server-sent event until `[DONE]` (an event's data lines joined)."""
    data: list[str] = []
    async for raw in response.content:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if line:
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value.removeprefix(" "))
            continue
        if not data:
            continue
        text, data = "\n".join(data), []
        if text == "[DONE]":
            return
        yield _chunk(text)
    if data and (text := "\n".join(data)) != "[DONE]":
        yield _chunk(text)


def _chunk(text: str) -> Any:
    try:
        chunk = json.loads(text)
    except ValueError as error:
        raise ModelUnavailable("The language model sent a reply we could not read.") from error
    if isinstance(chunk, dict) and chunk.get("error"):
        raise ModelUnavailable("The language model failed to answer.")
    return chunk


def _first_choice(chunk: object) -> dict[str, Any]:
    """A streamed chunk's first choice ({} for a chunk without one, such as usage)."""
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    return choices[0] if choices and isinstance(choices[0], dict) else {}
