"""Retries for calls to a chat platform: network errors back off, flood waits wait as told."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
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
LONGEST_FLOOD_WAIT = 60.0  # seconds; a longer wait fails the call instead of holding the reply
_backoff = wait_exponential(multiplier=0.5, max=8)


def _retryable(error: BaseException) -> bool:
    if isinstance(error, RetryAfter):
        return _seconds(error) <= LONGEST_FLOOD_WAIT
    # BadRequest: Telegram refused the request, so sending it again cannot help. TimedOut: it
    # may have arrived, and sending it again could show the user the same message twice.
    return isinstance(error, NetworkError) and not isinstance(error, BadRequest | TimedOut)


def _seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB warns that the type will become timedelta
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        after = error.retry_after
    return after.total_seconds() if isinstance(after, timedelta) else float(after)


def _wait(state: RetryCallState) -> float:
    error = state.outcome.exception() if state.outcome else None
    if isinstance(error, RetryAfter):
        return _seconds(error)
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
