"""Upkeep across real processes: a worker killed mid-job, two workers on one MariaDB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import Reply, ScriptedLLM
from tests.jobs.chats import three_subject_chat

COMPANION = str(Path(sys.executable).parent / "companion")


def _env(tmp_path: Path, llm: ScriptedLLM, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env |= {"COMPANION_DATA_DIR": str(tmp_path / "data"), "COMPANION_LLM__PROVIDER": "openai",
            "COMPANION_LLM__BASE_URL": llm.base_url, "COMPANION_LLM__MAX_RETRIES": "0",
            # the chroma server is shared by the whole session: a prefix per test
            "COMPANION_VECTOR__COLLECTION": f"t{uuid.uuid4().hex[:12]}",
            "COMPANION_BELIEFS__JUDGE": "heuristic"}  # the scripted model answers chat only
    return env | {f"COMPANION_{k.upper()}": v for k, v in settings.items()}


def _companion(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([COMPANION, *args], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def _write_chat(path: Path, rounds: int) -> Path:
    with path.open("w") as out:
        for user, reply in three_subject_chat(rounds):
            out.write(json.dumps({"role": "user", "text": user}) + "\n")
            out.write(json.dumps({"role": "assistant", "text": reply}) + "\n")
    return path


def _report(env: dict[str, str], shown: int = 10) -> dict[str, Any]:
    return json.loads(_companion(env, "memory", "--user", "ana", "--json", "--rounds",
                                 str(shown)).stdout)


def test_a_worker_killed_mid_job_loses_nothing(tmp_path: Path, llm: ScriptedLLM) -> None:
    env = _env(tmp_path, llm, memory__summarizer="llm", memory__summarize_every="10",
               memory__lease_minutes="0.01")
    _companion(env, "ingest", str(_write_chat(tmp_path / "chat.jsonl", 10)), "--user", "ana",
               "--no-jobs")
    llm.enqueue(Reply("The host and I talked about hobbies.", delay=5.0))  # the model hangs...
    worker = subprocess.Popen([COMPANION, "memory", "summarize", "--user", "ana"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not llm.chat_requests and time.monotonic() < deadline:
        time.sleep(0.05)
    worker.kill()  # ...and the worker dies in the middle of its job
    worker.wait(10)
    assert llm.chat_requests, "the worker never reached the model"
    assert _report(env)["topics_total"] == 0

    time.sleep(1)  # the dead worker's lease (0.6 s) runs out
    llm.answers["List the facts worth remembering"] = "Host: I play table tennis every Tuesday."
    llm.enqueue("1. The host and I talked about hobbies, and the host said: he plays table "
                "tennis every Tuesday at the club.")
    swept = _companion(env, "memory", "sweep")
    assert "summarized 1 window," in swept.stdout
    report = _report(env)
    assert (report["topics_total"], report["rounds_unsummarized"]) == (1, 0)
    assert [f["text"] for f in report["newest_facts"]] == ["I play table tennis every Tuesday."]
    jobs = _companion(env, "memory", "jobs", "--all").stdout
    assert "done" in jobs and "attempts=2" in jobs


@pytest.mark.mysql
def test_two_workers_on_mariadb_never_summarize_a_window_twice(
    tmp_path: Path, llm: ScriptedLLM, mysql_url: str, chroma_url: str
) -> None:
    env = _env(tmp_path, llm, sql__url=mysql_url, vector__url=chroma_url,
               memory__summarizer="extractive")
    _companion(env, "ingest", str(_write_chat(tmp_path / "chat.jsonl", 150)), "--user", "ana",
               "--no-jobs")
    # Both workers queue and run the same three windows at the same moment.
    workers = [subprocess.Popen([COMPANION, "memory", "sweep"], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for _ in range(2)]
    outputs = [w.communicate(timeout=300) for w in workers]
    assert [w.returncode for w in workers] == [0, 0], outputs
    summarized = sum(int(out.split("summarized ")[1].split()[0]) for out, _ in outputs)
    assert summarized == 3  # each window exactly once, between the two of them

    jobs = _companion(env, "memory", "jobs", "--all").stdout.splitlines()
    assert len([line for line in jobs if " summarize " in line]) == 3
    # ...and the checks of the beliefs those windows gave, each run once too.
    assert all(" done " in line and "attempts=1" in line for line in jobs)
    report = _report(env, shown=1000)
    assert report["rounds_unsummarized"] == 0
    descriptions = [t["description"] for t in report["topics"]]
    assert len(descriptions) == 3 * 3  # three subjects in each of the three windows
    facts = [(f["text"], tuple(f["rounds"])) for f in report["newest_facts"]]
    assert facts and len(facts) == report["facts_total"] == len(set(facts))  # each made once
