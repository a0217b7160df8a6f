"""Faults with real parts: the chroma server stopped and started again during replies and
during a summary job, and a process killed mid-reply. Nothing is lost, people still get
replies, the sweep repairs the index."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app import open_companion
from jobs.queue import DONE, SUMMARIZE
from memory.types import RoundStatus
from tests.chatting import say
from tests.conftest import CHROMA, _free_port, _wait_for, make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM


class ChromaServer:
    """A chroma server of the test's own, stopped and started on the same port and folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._process = subprocess.Popen(
            [CHROMA, "run", "--path", str(self.folder), "--host", "127.0.0.1",
             "--port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for(f"{self.url}/api/v2/heartbeat")

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(10)
            self._process = None


@pytest.fixture
def chroma(tmp_path: Path) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path / "chroma-server")
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_replies_go_on_while_the_chroma_server_is_down_and_the_sweep_repairs_the_index(
    tmp_path: Path, llm: ScriptedLLM, chroma: ChromaServer
) -> None:
    settings = make_settings(tmp_path, llm, vector={"url": chroma.url},
                             memory={"summarize_every": 4, "retry_seconds": 0})
    async with open_companion(settings) as companion:
        await companion.add_topic("ben", "music", "The host plays the drums in a band.")
        chroma.stop()
        said = []
        for text in ("My cat Tofu knocked over a plant today.", "Tofu is three years old.",
                     "I think Tofu likes the balcony best.", "How is my cat doing?"):
            llm.enqueue(f"Noted: {text[:10]}")
            reply, finished = await say(companion, text, "ana")
            assert finished is not None, reply  # answered from Recency and words
            said.append(reply)
        reply, finished = await say(companion, "What do I play?", "ben")
        assert finished is not None  # others are served too
        await companion.worker.wait_idle()  # the summary job ran while the store was down
        rounds = await companion.rounds.recent_rounds("ana", 10)
        assert [r.status for r in rounds] == [RoundStatus.ANSWERED] * 4  # nothing lost
        [job] = [j for j in await companion.worker.queue.jobs(user_id="ana")
                 if j.kind == SUMMARIZE]
        assert job.status == DONE  # its topics are in SQL, the index waits for the sweep
        assert await companion.search_topics("ana", "Tofu the cat") == []

        chroma.start()
        report = await companion.worker.sweep()
        assert report.reindexed >= 1
        found = await companion.search_topics("ana", "Tofu the cat")
        assert found and "Tofu" in found[0].topic.description
        assert (await companion.search_topics("ben", "drums"))[0].topic.label == "music"


def test_a_process_killed_mid_reply_loses_no_message(tmp_path: Path, llm: ScriptedLLM) -> None:
    """`companion say` is killed (SIGKILL) while the reply streams; the next process answers,
    and the message said before the kill is in its Recency."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")} | {
        "COMPANION_DATA_DIR": str(tmp_path), "COMPANION_LLM__PROVIDER": "openai",
        "COMPANION_LLM__BASE_URL": llm.base_url, "COMPANION_LLM__MAX_RETRIES": "0"}
    companion = str(Path(sys.executable).parent / "companion")
    llm.enqueue(Reply("Sailing sounds wonderful, tell me more about", delay=1.0))
    killed = subprocess.Popen([companion, "say", "--user", "ana", "I love sailing on lakes."],
                              env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while llm.in_flight == 0:  # the reply is streaming
        assert time.monotonic() < deadline and killed.poll() is None
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait(10)

    llm.enqueue("Yes: you love sailing on lakes.")
    again = subprocess.run([companion, "say", "--user", "ana", "Did you get my last message?"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Yes: you love sailing on lakes.\n"
    assert "Host: I love sailing on lakes." in llm.last_system_prompt
    shown = subprocess.run([companion, "memory", "--user", "ana", "--json"], env=env,
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    said = [r["user"] for r in json.loads(shown.stdout)["recent_rounds"]]
    assert said == ["I love sailing on lakes.", "Did you get my last message?"]


async def test_a_model_failing_mid_stream_fails_one_reply_while_others_are_answered(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async with open_companion(make_settings(tmp_path, llm)) as companion:
        llm.enqueue(Reply("Let me think about your garden and", delay=0.05, fail_after=3),
                    Reply("Good morning to you too!", delay=0.05))

        async def ben_while_anas_reply_streams() -> tuple[str, object]:
            while not llm.chat_requests:  # Ana's reply has the first scripted answer
                await asyncio.sleep(0.01)
            return await say(companion, "Good morning!", "ben")

        (ana_said, ana_done), (ben_said, ben_done) = await asyncio.gather(
            say(companion, "What should I plant in May?", "ana"), ben_while_anas_reply_streams())
        assert ana_said.startswith("Let me think") and ana_done is None
        assert ana_said.endswith("Your message is saved; please try again.")
        assert "Traceback" not in ana_said
        assert (ben_said, ben_done is not None) == ("Good morning to you too!", True)
        [ana_round] = await companion.rounds.recent_rounds("ana", 5)
        assert ana_round.status is RoundStatus.FAILED
        assert ana_round.user_text == "What should I plant in May?"
        # What the person read before the apology stays with the round.
        assert ana_round.reply_text and ana_said.startswith(ana_round.reply_text)
