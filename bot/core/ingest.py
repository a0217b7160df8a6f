"""Bring a conversation in from elsewhere: JSONL, one message per line.

Each line is `{"role": "user" | "assistant", "text": "...", "timestamp": ...}` (timestamp
optional: ISO 8601 or seconds since the epoch). A user line and the assistant line after it make
one round; an assistant line with no user line before it (the companion spoke first) is a round
of its own. The whole file is checked before anything is stored, and every round keeps its time.
Importing a file again stores only what is new: the same message at the same time is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.core.inbound import clean_message
from bot.core.wording import counted
from bot.errors import InputRejected
from memory.sql.rounds import naive_utc
from memory.types import Exchange

BATCH = 500
MAX_PROBLEMS = 20  # bad lines named before "... and N more"


@dataclass(frozen=True, slots=True)
class Imported:
    stored: int
    skipped: int  # the same message at the same time was stored before (or twice in the file)


class RoundImports(Protocol):
    """Where imported rounds go (`SQLRoundStore`)."""

    async def imported_already(
        self, user_id: str, exchanges: Sequence[Exchange]
    ) -> set[tuple[datetime, str, str | None]]: ...

    async def import_rounds(
        self, user_id: str, persona: str, exchanges: Sequence[Exchange]
    ) -> int: ...


async def store_exchanges(
    rounds: RoundImports,
    user_id: str,
    persona: str,
    exchanges: Sequence[Exchange],
    *,
    progress: Callable[[int], object] = lambda stored: None,
) -> Imported:
    """Store the rounds as if chatted with `persona` (in batches, `progress` told of each),
    except those stored before."""
    fresh = _not_stored(exchanges, await rounds.imported_already(user_id, exchanges))
    for start in range(0, len(fresh), BATCH):
        batch = fresh[start:start + BATCH]
        await rounds.import_rounds(user_id, persona, batch)
        progress(len(batch))
    return Imported(len(fresh), len(exchanges) - len(fresh))


def _not_stored(exchanges: Sequence[Exchange],
                stored: set[tuple[datetime, str, str | None]]) -> list[Exchange]:
    """The exchanges whose time, message and reply are not stored yet. One without a time
    cannot be told from an earlier import of it: it is stored again."""
    fresh = []
    for exchange in exchanges:
        if exchange.at is not None:
            key = (naive_utc(exchange.at), exchange.user_text, exchange.reply_text)
            if key in stored:
                continue
            stored.add(key)
        fresh.append(exchange)
    return fresh


def read_exchanges(lines: Iterable[str], max_chars: int) -> list[Exchange]:
    """The rounds in a JSONL conversation; raises `InputRejected` naming every bad line (the
    first `MAX_PROBLEMS` of them) by its line number in the file."""
    exchanges: list[Exchange] = []
    problems: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            role, text, at = _message(line, number, max_chars)
        except InputRejected as rejection:
            problems.append(str(rejection))
            continue
        if role == "user":
            exchanges.append(Exchange(text, None, at))
        elif exchanges and exchanges[-1].reply_text is None:
            last = exchanges[-1]
            exchanges[-1] = Exchange(last.user_text, text, last.at)
        else:  # the companion spoke first (a greeting, a check-in): a round without a message
            exchanges.append(Exchange("", text, at))
    if problems:
        more = len(problems) - MAX_PROBLEMS
        raise InputRejected("\n".join(problems[:MAX_PROBLEMS]
                                      + ([f"... and {counted(more, 'more bad line')}"]
                                         if more > 0 else [])))
    return exchanges


def _message(line: str, number: int, max_chars: int) -> tuple[str, str, datetime | None]:
    try:
        record: Any = json.loads(line)
        role, text = record["role"], record["text"]
    except json.JSONDecodeError as error:  # its own position is within the line: left out
        raise InputRejected(f"Line {number}: not JSON ({error.msg})") from error
    except (KeyError, TypeError) as error:
        raise InputRejected(f"Line {number}: not a {{role, text}} JSON object") from error
    if role not in ("user", "assistant") or not isinstance(text, str):
        raise InputRejected(f"Line {number}: role must be 'user' or 'assistant', text a string")
    try:
        cleaned = clean_message(text, max_chars)
    except InputRejected as rejection:
        raise InputRejected(f"Line {number}: {rejection}") from rejection
    return role, cleaned, _timestamp(record.get("timestamp"), number)


def _timestamp(value: Any, number: int) -> datetime | None:
    if value is None:
        return None
    try:
        if isinstance(value, int | float):
            return datetime.fromtimestamp(value, UTC)
        parsed = datetime.fromisoformat(str(value))
    except (ValueError, OverflowError, OSError) as error:
        raise InputRejected(f"Line {number}: unreadable timestamp {value!r}") from error
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
