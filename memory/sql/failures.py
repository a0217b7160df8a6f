"""What a failed SQL statement means: the database went away (say so, try later), or a lock
race was lost (run the transaction again)."""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

DEADLOCK, LOCK_WAIT_TIMEOUT = 1213, 1205
# MySQL/MariaDB: can't connect (2002, 2003), server gone or connection lost (2006, 2013, 2055),
# server shutting down (1053), connection killed (1927).
_AWAY = {2002, 2003, 2006, 2013, 2055, 1053, 1927}


def _code(error: BaseException) -> object:
    return (getattr(getattr(error, "orig", None), "args", None) or (None,))[0]


def lost_a_lock(error: BaseException) -> bool:
    """True for a deadlock or a lock wait timeout: nothing was committed, try again."""
    return isinstance(error, DBAPIError) and _code(error) in (DEADLOCK, LOCK_WAIT_TIMEOUT)


def database_away(error: BaseException) -> bool:
    """True when the database could not be reached or dropped the connection (not a mistake in
    a statement): no free connection in time, a refused or lost connection, a restart."""
    if isinstance(error, PoolTimeout | ConnectionError):
        return True
    return isinstance(error, DBAPIError) and (error.connection_invalidated
                                              or _code(error) in _AWAY)


# Random waits, so that the two sides of a deadlock do not meet again at once.
again_after_deadlock = retry(
    retry=retry_if_exception(lost_a_lock),
    stop=stop_after_attempt(6),
    wait=wait_random_exponential(multiplier=0.02, max=1.0),
    reraise=True,
)
