"""The periodic memory sweep, on APScheduler 3 with its job kept in the database.

APScheduler stores a job as a reference to an importable function, so the sweep goes through
`run_sweep(name)`, which finds the worker registered under `name` for as long as the scheduler
runs. The job keeps a stable id and is replaced on every start: restarts never pile up copies,
and a sweep missed while the process was down runs once, as soon as it is back.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy.engine import make_url

from jobs.worker import MemoryWorker

log = logging.getLogger(__name__)
SWEEP_JOB_ID = "companion-memory-sweep"
_workers: dict[str, MemoryWorker] = {}  # scheduler name -> its worker, while it runs


async def run_sweep(name: str) -> None:
    """The scheduled job: one sweep by the worker registered under `name`."""
    worker = _workers.get(name)
    if worker is None:
        return
    try:
        report = await worker.sweep()
    except asyncio.CancelledError:
        # The process is stopping (Ctrl+C, or a frontend that could not start). Kept quiet:
        # APScheduler would log it as a failed job, with a traceback, under the message that
        # says why. Nothing is lost: the next sweep does what this one left.
        log.info("Memory sweep stopped with the process; the next one finishes its work")
        return
    if report.jobs or report.failed or report.reindexed or report.abandoned_rounds:
        log.info("Memory sweep: %s", report)


def sync_url(async_url: str) -> str:
    """The job store's (synchronous) URL for the same database."""
    url = make_url(async_url)
    driver = {"sqlite": "sqlite", "mysql": "mysql+pymysql", "mariadb": "mariadb+pymysql"}
    return url.set(drivername=driver.get(url.get_backend_name(), url.drivername)).render_as_string(
        hide_password=False
    )


class SweepScheduler:
    """Starts and stops the periodic sweep for one worker."""

    def __init__(self, worker: MemoryWorker, sql_url: str, minutes: float, name: str = "main"):
        self._name = name
        self._worker = worker
        self._scheduler = AsyncIOScheduler(
            jobstores={"default": SQLAlchemyJobStore(url=sync_url(sql_url))},
            timezone=UTC,
        )
        self._minutes = minutes

    def start(self) -> None:
        _workers[self._name] = self._worker
        self._scheduler.start()
        self._scheduler.add_job(
            run_sweep,
            "interval",
            minutes=self._minutes,
            args=[self._name],
            id=SWEEP_JOB_ID,
            replace_existing=True,
            coalesce=True,
            misfire_grace_time=None,
            next_run_time=datetime.now(UTC),  # catch up on anything left behind, right away
        )

    def stop(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
        _workers.pop(self._name, None)
