"""Who may chat and how fast: allowlist, blocklist, admins and the per-user rate limit."""

from __future__ import annotations

import socket

import pytest

from bot.core.access import AccessPolicy, Admission
from bot.settings import load_settings
from memory.sql.engine import open_engine
from memory.sql.message_counts import SQLMessageCounts
from memory.sql.migrations import migrate


async def test_a_user_over_the_rate_is_told_to_slow_down_and_others_are_not() -> None:
    policy = AccessPolicy(admins=[], messages_per_minute=3)
    assert [await policy.admit("telegram:1") for _ in range(4)] == [
        Admission.ACCEPT, Admission.ACCEPT, Admission.ACCEPT, Admission.TOO_FAST
    ]
    assert await policy.admit("telegram:2") == Admission.ACCEPT
    assert await policy.admit("discord:1") == Admission.ACCEPT  # the same number elsewhere


async def test_blocked_users_are_ignored_and_an_allowlist_keeps_strangers_out() -> None:
    policy = AccessPolicy(admins=["discord:9"], allow=["telegram:1"], block=["telegram:2"])
    assert await policy.admit("telegram:2") == Admission.BLOCKED
    assert await policy.admit("telegram:1") == Admission.ACCEPT
    assert await policy.admit("telegram:3") == Admission.NOT_ALLOWED
    assert await policy.admit("discord:9") == Admission.ACCEPT  # admins are always let in


def test_admins_come_from_each_platforms_ids_and_the_terminal_names() -> None:
    settings = load_settings(
        None, telegram={"admin_ids": [11]}, discord={"admin_ids": [22]},
        access={"terminal_admins": ["me"]},
    )
    policy = AccessPolicy.from_settings(settings)
    assert [policy.is_admin(u) for u in ("telegram:11", "discord:22", "me")] == [True] * 3
    assert [policy.is_admin(u) for u in ("discord:11", "telegram:22", "11", "local")] == [
        False
    ] * 4


@pytest.mark.mysql
async def test_two_processes_on_one_database_share_one_rate_limit(mysql_url: str) -> None:
    engine = open_engine(mysql_url)
    await migrate(engine)
    try:
        first, second = (AccessPolicy(admins=[], messages_per_minute=3,
                                      shared=SQLMessageCounts(engine)) for _ in range(2))
        said = [await policy.admit("telegram:1") for policy in (first, second, first, second)]
        assert said == [Admission.ACCEPT] * 3 + [Admission.TOO_FAST]
        assert await second.admit("telegram:2") == Admission.ACCEPT
    finally:
        await engine.dispose()


async def test_when_the_shared_count_fails_this_process_still_limits_the_rate() -> None:
    gone = open_engine(f"mysql+aiomysql://root@127.0.0.1:{_closed_port()}/test")
    policy = AccessPolicy(admins=[], messages_per_minute=2, shared=SQLMessageCounts(gone))
    try:
        assert [await policy.admit("telegram:1") for _ in range(3)] == [
            Admission.ACCEPT, Admission.ACCEPT, Admission.TOO_FAST]
    finally:
        await gone.dispose()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends
