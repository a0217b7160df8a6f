"""The periodic sweep runs on APScheduler with its job kept in the database."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from bot.app import open_companion
from jobs.scheduler import SWEEP_JOB_ID, sync_url
from memory.types import Exchange
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM
from tests.jobs.chats import three_subject_chat


async def test_work_left_behind_is_done_by_the_sweep_at_start(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, memory={"summarizer": "extractive"})
    async with open_companion(settings) as companion:  # rounds stored, no upkeep ran
        chat = [Exchange(u, r) for u, r in three_subject_chat(50)]
        await companion.rounds.import_rounds("ana", "companion", chat)
    for _restart in range(2):
        async with open_companion(settings, sweep=True) as companion:
            for _ in range(300):
                if await companion.topics.count("ana"):
                    break
                await asyncio.sleep(0.05)
            assert await companion.topics.count("ana") == 3
    engine = create_engine(sync_url(settings.sql_url))
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT id FROM apscheduler_jobs")).scalars().all()
    engine.dispose()
    assert stored == [SWEEP_JOB_ID]  # one durable job, replaced on every start


async def test_a_sweep_cut_short_by_the_process_stopping_logs_no_failure(
    tmp_path: Path, llm: ScriptedLLM, caplog: pytest.LogCaptureFixture
) -> None:
    # `companion run` whose bot cannot start stops at once, often during the first sweep:
    # APScheduler logged that as a failed job with a traceback, under the one line that says why.
    caplog.set_level(logging.INFO)
    settings = make_settings(tmp_path, llm, memory={"summarizer": "llm"})
    async with open_companion(settings) as companion:
        chat = [Exchange(u, r) for u, r in three_subject_chat(50)]
        await companion.rounds.import_rounds("ana", "companion", chat)
    llm.delay = 3.0  # the summary's model call is still under way when the process stops
    async with open_companion(settings, sweep=True):
        for _ in range(300):
            if llm.in_flight:
                break
            await asyncio.sleep(0.05)
        assert llm.in_flight
    await asyncio.sleep(0.2)  # the cancelled sweep ends
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert "Memory sweep stopped with the process" in caplog.text


def test_job_store_urls_use_the_sync_drivers() -> None:
    assert sync_url("sqlite+aiosqlite:////tmp/c.db") == "sqlite:////tmp/c.db"
    assert sync_url("mysql+aiomysql://root:pw@127.0.0.1:3306/test?charset=utf8mb4") == (
        "mysql+pymysql://root:pw@127.0.0.1:3306/test?charset=utf8mb4")
