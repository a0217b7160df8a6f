"""Retries for calls to a chat platform: network errors back off, flood waits wait as told."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from telegram.error import BadRequest, NetworkError, RetryAfter
from telegram.warnings import PTBDeprecationWarning
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    before_sleep_log,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 5
_backoff = wait_exponential(multiplier=0.5, max=8)


def _retryable(error: BaseException) -> bool:
    # BadRequest is a NetworkError in PTB, but retrying a request Telegram refused cannot help.
    return isinstance(error, RetryAfter) or (
        isinstance(error, NetworkError) and not isinstance(error, BadRequest)
    )


def _wait(state: RetryCallState) -> float:
    error = state.outcome.exception() if state.outcome else None
    if isinstance(error, RetryAfter):
        with warnings.catch_warnings():  # PTB warns that the type will become timedelta
            warnings.simplefilter("ignore", PTBDeprecationWarning)
            after = error.retry_after
        return after.total_seconds() if isinstance(after, timedelta) else float(after)
    return _backoff(state)


async def telegram_call(call: Callable[[], Awaitable[T]]) -> T:
    """Run one Bot API call, retrying flood waits and network errors (5 attempts in all)."""
    async for attempt in AsyncRetrying(
        retry=retry_if_exception(_retryable),
        wait=_wait,
        stop=stop_after_attempt(ATTEMPTS),
        before_sleep=before_sleep_log(log, logging.WARNING),
        reraise=True,
    ):
        with attempt:
            return await call()
    raise AssertionError("unreachable: tenacity reraises the last error")
