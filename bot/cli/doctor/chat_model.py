"""The chat model part: the model answers a short request, or why not and what to change."""

from __future__ import annotations

import asyncio
import os
import time
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli.doctor.check import Check, Where
from bot.cli.doctor.timeouts import CHAT_TIMEOUT
from bot.errors import ConfigError, ModelAnswered, ModelUnavailable
from bot.network import root_cause
from bot.settings import Settings
from memory.protocols import ChatMessage

if TYPE_CHECKING:
    from bot.settings import LLMSettings

PROBE: list[ChatMessage] = [{"role": "user", "content": "Say hello in one word."}]
SETUP = "run companion setup, or "  # the guided setup fixes most model settings in one go


async def check_chat_model(settings: Settings, where: Where) -> Check:
    """The model answers a short request; the time to its first token is shown."""
    from bot.app import build_chat_model

    # No retries and a short timeout: doctor reports a failure at once instead of waiting.
    chosen = settings.llm.model_copy(update={
        "max_retries": 0, "timeout_seconds": min(settings.llm.timeout_seconds, CHAT_TIMEOUT)})
    if chosen.provider != "openai" and chosen.local_model_path:
        path = Path(chosen.local_model_path)
        if not path.is_file():  # llama.cpp would say so only after the first request
            return Check("chat model", False, f"the model file is missing: {path}",
                         _local_fix(where))
    try:
        model = build_chat_model(chosen)
    except ConfigError as error:  # the bundled model not installed, or an OpenAI URL without key
        return Check("chat model", False, str(error), _chat_fix(chosen, where))
    started = time.perf_counter()
    try:
        async with asyncio.timeout(CHAT_TIMEOUT), aclosing(model.stream(PROBE)) as pieces:
            first = await anext(pieces, None)  # one token tells; the rest is not waited for
    except TimeoutError:
        return Check("chat model", False, f"no answer within {CHAT_TIMEOUT:g} s",
                     _chat_fix(chosen, where))
    except ModelUnavailable as error:
        return _chat_failure(chosen, error, where)
    finally:
        await model.aclose()
    took = (time.perf_counter() - started) * 1000
    if chosen.provider == "openai":
        named = f"{chosen.model} at {chosen.base_url}"
    else:
        named = f"{model.name} ({chosen.local_model_path or 'the bundled demo model'}, local)"
    if first is None:
        return Check("chat model", False, f"{named} answered with an empty reply",
                     _chat_fix(chosen, where))
    return Check("chat model", True, f"{named}, first token in {took:.0f} ms")


def _local_fix(where: Where) -> str:
    return (f"run: bash .ci/setup, or set {where('llm.local_model_path')} to a GGUF file that "
            "exists (empty: the bundled demo model)")


def _chat_fix(chosen: LLMSettings, where: Where) -> str:
    if chosen.provider != "openai":
        return _local_fix(where)
    return (f"{SETUP}check {where('llm.base_url')}, llm.model and the environment variable "
            f"{chosen.api_key_env} (named by llm.api_key_env)")


def _chat_failure(chosen: LLMSettings, error: ModelUnavailable, where: Where) -> Check:
    """The reason the model's client gave (the user-facing message is too general here)."""
    cause = error.__cause__
    base = chosen.base_url
    if chosen.provider != "openai" or cause is None:
        return Check("chat model", False, str(error), _chat_fix(chosen, where))
    if isinstance(cause, TimeoutError):
        return Check("chat model", False, f"{base} did not answer within "
                     f"{chosen.timeout_seconds:g} s", _chat_fix(chosen, where))
    if not isinstance(cause, ModelAnswered):  # no answer at all: the connection failed
        return Check("chat model", False, f"cannot reach {base} ({root_cause(cause)})",
                     f"start the model server, or {SETUP}correct {where('llm.base_url')}")
    said = f"{cause.status}: {cause.message}"
    key = chosen.api_key_env
    if cause.status in (401, 403):
        unset = "" if os.environ.get(key) else " (it is not set now)"
        return Check("chat model", False, f"{base} refused the API key ({said})",
                     f"{SETUP}set the environment variable {key} (named by llm.api_key_env) "
                     f"to a valid key{unset}")
    if cause.status == 404:
        return Check("chat model", False, f"{base} has no model '{chosen.model}' ({said})",
                     f"{SETUP}correct {where('llm.model')}, or llm.base_url (usually ending "
                     "in /v1)")
    return Check("chat model", False, f"{base} answered with an error ({said})",
                 _chat_fix(chosen, where))
