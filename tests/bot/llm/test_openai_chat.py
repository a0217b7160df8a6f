"""The OpenAI-compatible chat client against the scripted server: streaming, retries, errors."""

from __future__ import annotations

import asyncio

import pytest

from bot.errors import ModelUnavailable
from bot.llm.openai_chat import Endpoint, OpenAIChat
from memory.protocols import CUT_SHORT
from tests.fakes.openai_server import Error, Reply, ScriptedLLM

MESSAGES = [{"role": "system", "content": "be nice"}, {"role": "user", "content": "hi"}]


def _chat(base_url: str, *, retries: int = 2, timeout: float = 10) -> OpenAIChat:
    endpoint = Endpoint(base_url=base_url, api_key="x", timeout_seconds=timeout,
                        max_retries=retries)
    return OpenAIChat(endpoint, "fake-model", temperature=0.5, max_tokens=50)


async def _collect(chat: OpenAIChat) -> list[str]:
    return [piece async for piece in chat.stream(MESSAGES)]  # type: ignore[arg-type]


async def test_reply_streams_in_pieces_with_the_prompt_sent(llm: ScriptedLLM) -> None:
    llm.enqueue("Hello there, friend")
    pieces = await _collect(_chat(llm.base_url))
    assert pieces == ["Hello", " there,", " friend"]
    request = llm.chat_requests[-1]
    assert request["messages"] == MESSAGES
    assert request["model"] == "fake-model"
    assert (request["stream"], request["temperature"]) == (True, 0.5)


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_transient_errors_are_retried_with_backoff(llm: ScriptedLLM, status: int) -> None:
    llm.enqueue(Error(status), Error(status), "finally")
    assert await _collect(_chat(llm.base_url, retries=2)) == ["finally"]
    assert len(llm.chat_requests) == 3


async def test_a_kept_alive_connection_the_server_closed_is_no_failure(llm: ScriptedLLM) -> None:
    llm.enqueue(*(Reply(f"reply {n}", close_after=True) for n in range(5)))
    chat = _chat(llm.base_url, retries=0)
    assert ["".join(await _collect(chat)) for _ in range(5)] == [f"reply {n}" for n in range(5)]
    await chat.aclose()


def test_one_client_answers_in_one_event_loop_after_another(llm: ScriptedLLM) -> None:
    chat = _chat(llm.base_url)  # as a command that runs one loop, then another
    llm.enqueue("first", "second")
    assert asyncio.run(_collect(chat)) == ["first"]
    assert asyncio.run(_collect(chat)) == ["second"]


async def test_a_refused_request_is_not_asked_again(llm: ScriptedLLM) -> None:
    llm.enqueue(Error(400, "bad request"), "never read")
    with pytest.raises(ModelUnavailable, match=r"answered with an error \(400\)"):
        await _collect(_chat(llm.base_url, retries=3))
    assert len(llm.chat_requests) == 1


async def test_the_key_is_sent_as_a_bearer_token(llm: ScriptedLLM) -> None:
    llm.enqueue("hello")
    await _collect(_chat(llm.base_url))
    assert llm.headers[-1]["Authorization"] == "Bearer x"


async def test_a_reader_that_stops_early_stops_the_server_writing(llm: ScriptedLLM) -> None:
    llm.enqueue(Reply("one two three four five six seven eight", delay=0.2))
    chat = _chat(llm.base_url)
    stream = chat.stream(MESSAGES)  # type: ignore[arg-type]
    assert await anext(stream) == "one"
    await stream.aclose()
    for _ in range(100):  # the server notices at its next piece
        if llm.in_flight == 0:
            break
        await asyncio.sleep(0.05)
    assert llm.in_flight == 0
    await chat.aclose()


async def test_persistent_outage_gives_a_clear_message(llm: ScriptedLLM) -> None:
    llm.enqueue(Error(503), Error(503))
    with pytest.raises(ModelUnavailable, match=r"answered with an error \(503\)"):
        await _collect(_chat(llm.base_url, retries=1))


async def test_unreachable_model_names_the_address() -> None:
    with pytest.raises(ModelUnavailable, match=r"127\.0\.0\.1:9/v1.*cannot be reached"):
        await _collect(_chat("http://127.0.0.1:9/v1", retries=0))


async def test_slow_model_times_out(llm: ScriptedLLM) -> None:
    llm.enqueue(Reply("too late", delay=2.0))
    with pytest.raises(ModelUnavailable, match="took too long"):
        await _collect(_chat(llm.base_url, retries=0, timeout=0.5))


async def test_connection_dropped_mid_reply_is_reported(llm: ScriptedLLM) -> None:
    llm.enqueue(Reply("one two three four", fail_after=2))
    chat = _chat(llm.base_url, retries=0)
    received: list[str] = []
    with pytest.raises(ModelUnavailable):
        async for piece in chat.stream(MESSAGES):  # type: ignore[arg-type]
            received.append(piece)
    assert received == ["one", " two"]


async def test_bad_api_key_is_explained(llm: ScriptedLLM) -> None:
    llm.enqueue(Error(401, "invalid key"))
    with pytest.raises(ModelUnavailable, match="refused our API key"):
        await _collect(_chat(llm.base_url))


async def test_a_reply_cut_by_the_token_limit_ends_visibly(llm: ScriptedLLM) -> None:
    llm.enqueue(Reply("I went swimm", finish="length"), "All done.")
    chat = _chat(llm.base_url)
    assert "".join(await _collect(chat)) == "I went swimm" + CUT_SHORT
    assert "".join(await _collect(chat)) == "All done."
