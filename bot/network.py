"""Why a connection failed, in the system's few words rather than a wrapper's message."""

from __future__ import annotations

import os
import re


def root_cause(error: BaseException) -> str:
    """The root cause in a few words ("Connection refused"), not the wrapper's "All connection
    attempts failed"; else the error's own message."""
    current: BaseException | None = error
    for _ in range(10):  # a chain of causes, never a cycle
        if current is None:
            break
        if isinstance(current, OSError) and isinstance(current.errno, int):
            # Positive: the system's words; negative: a name lookup (socket.gaierror).
            return os.strerror(current.errno) if current.errno > 0 else str(current.strerror)
        current = current.__cause__ or current.__context__
    return _errno_text(str(error) or type(error).__name__)


def _errno_text(message: str) -> str:
    """'Connection refused' out of "Can't connect to ... ([Errno 111] Connection refused)"."""
    found = re.search(r"\[Errno -?\d+\] ([^)\]]+)", message)
    return found.group(1).strip() if found else message
