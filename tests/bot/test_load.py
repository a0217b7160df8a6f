"""The load benchmark's small run, as CI keeps it: 50 users x 10 messages through two bot
processes on one MariaDB database and one chroma server, each user's window filling during the
run, then messages arriving at random at a quarter, half and three quarters of the rate measured.
Nothing may be lost, stored twice, leaked to another user or answered out of turn."""

from __future__ import annotations

import pytest

from benchmarks.load.__main__ import parse_args, run_all, shown_wrong

pytestmark = pytest.mark.mysql


async def test_fifty_users_on_two_processes_lose_leak_and_double_nothing(chroma_url: str) -> None:
    args = parse_args(["--users", "50", "--messages", "10", "--processes", "2",
                       "--steady-seconds", "4", "--vector-url", chroma_url])
    [run] = await run_all(args)
    assert len(run.sent) == 500
    assert shown_wrong(run.sent) == 0  # every person read the model's reply, no apology
    # The steady phases asked for a quarter, half and three quarters of the measured rate.
    assert [phase.share for phase in run.steady] == [0.25, 0.5, 0.75]
    for phase in run.steady:
        assert abs(len(phase.sent) - phase.rate * 4) <= 1
        assert shown_wrong(phase.sent) == 0
        assert len(phase.overhead) == len(phase.sent)
    audit = run.audit
    assert {key: audit[key] for key in ("lost", "duplicated", "pending", "failed", "leaked",
                                        "overlapped", "windows_twice", "jobs_not_done",
                                        "jobs_left")} == dict.fromkeys(
        ("lost", "duplicated", "pending", "failed", "leaked", "overlapped", "windows_twice",
         "jobs_not_done", "jobs_left"), 0)
    assert audit["windows_summarized"] == audit["windows_expected"] == 50
    assert len(run.overhead) == 500  # the model streamed every reply
    assert run.cpu_ms_per_message > 0
