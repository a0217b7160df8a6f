"""Setting `[vector] url` switches to chroma's server mode with nothing else changed."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app import open_companion
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

CHROMA = str(Path(sys.executable).parent / "chroma")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    folder = tmp_path_factory.mktemp("chroma-server")
    server = subprocess.Popen(
        [CHROMA, "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{url}/api/v2/heartbeat")
        yield url
    finally:
        server.terminate()
        server.wait(10)


def _wait_for(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


async def test_topics_live_on_the_chroma_server(
    chroma_url: str, tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, vector={"url": chroma_url})
    async with open_companion(settings) as companion:
        await companion.add_topic("ana", "hobbies", "The host plays table tennis every week.")
        await companion.add_topic("ben", "hobbies", "The host plays the drums in a band.")
        found = await companion.search_topics("ana", "Which sport do I play?")
        assert [s.topic.description for s in found] == ["The host plays table tennis every week."]
        assert await companion.topics.forget("ana") == 1
        assert await companion.search_topics("ana", "Which sport do I play?") == []
        assert len(await companion.search_topics("ben", "drums")) == 1
    assert not (tmp_path / "data" / "chroma").exists()  # nothing was embedded locally
