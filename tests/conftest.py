"""Shared fixtures: the scripted OpenAI server, SQL backends (SQLite and the real MariaDB),
settings pointing at temporary folders, the memory stores alone (no chat model, no memory worker)
with the recall step over them, and an opened Companion."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import chromadb
import pymysql
import pytest
from chromadb.api import ClientAPI

from bot.app import Companion, open_companion
from bot.app.stores import Stores, build_recaller, open_stores, pool_examples
from bot.settings import Settings, load_settings
from memory.recall import Recaller
from memory.types import ScoredTopic
from personas.loader import load_personas
from tests.fakes.openai_server import ScriptedLLM, ServerThread

MYSQL = {"host": "127.0.0.1", "port": 3306, "user": "root", "password": ""}


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see only the settings they set, never the developer's own COMPANION_* variables."""
    for name in list(os.environ):
        if name.startswith("COMPANION_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def llm_server() -> Iterator[ScriptedLLM]:
    server = ServerThread()
    yield server.start()
    server.stop()


@pytest.fixture
def llm(llm_server: ScriptedLLM) -> ScriptedLLM:
    llm_server.reset()
    return llm_server


def _mysql_database() -> Iterator[str]:
    """A fresh database on the real MariaDB, dropped afterwards. Skips only outside CI."""
    name = f"companion_t_{uuid.uuid4().hex[:12]}"
    try:
        admin = pymysql.connect(**MYSQL, autocommit=True)
    except pymysql.err.OperationalError as error:
        if os.environ.get("CI"):
            pytest.fail(f"MariaDB must be reachable in CI: {error}")
        pytest.skip(f"MariaDB not reachable: {error}")
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    try:
        yield f"mysql+asyncmy://root@127.0.0.1:3306/{name}"
    finally:
        admin.close()
        # A new connection: a test may have restarted MariaDB meanwhile.
        with pymysql.connect(**MYSQL, autocommit=True) as admin, admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.fixture(params=["sqlite", pytest.param("mysql", marks=pytest.mark.mysql)])
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'companion.db'}"
    else:
        yield from _mysql_database()


def make_settings(
    tmp_path: Path, server: ScriptedLLM | None, sql_url: str = "", **sections: dict[str, Any]
) -> Settings:
    """Settings on temporary folders with the scripted server as the LLM (`None`: the default
    model, for what opens no chat model, such as the stores alone)."""
    llm_section: dict[str, Any] = {} if server is None else {
        "provider": "openai", "base_url": server.base_url, "model": "fake", "max_retries": 2,
        "timeout_seconds": 10}
    llm_section.update(sections.pop("llm", {}))
    # Tests share one chroma server: a collection prefix of its own keeps each test apart.
    vector = {"collection": f"t{uuid.uuid4().hex[:12]}", **sections.pop("vector", {})}
    # The scripted model answers chat; a test of the model judge asks for it.
    sections.setdefault("beliefs", {"judge": "heuristic"})
    return load_settings(
        None,
        data_dir=str(tmp_path / "data"),
        llm=llm_section,
        sql={"url": sql_url},
        vector=vector,
        **sections,
    )


@pytest.fixture
async def companion(tmp_path: Path, llm: ScriptedLLM) -> AsyncIterator[Companion]:
    async with open_companion(make_settings(tmp_path, llm)) as opened:
        yield opened


@asynccontextmanager
async def opened_stores(settings: Settings) -> AsyncIterator[Stores]:
    """The memory stores of `settings` (SQL, the vector index, the embedder), closed when the
    block ends; no chat model, no memory worker, and the pool's scrubber loads only if a test
    shares a text."""
    async with AsyncExitStack() as stack:
        yield await open_stores(settings, stack)


@pytest.fixture
def store_settings(tmp_path: Path, sql_url: str) -> Settings:
    """Settings of the `stores`: SQLite and the real MariaDB, embedded chromadb in tmp_path, the
    packaged embedder. A module overrides this fixture for other settings."""
    return make_settings(tmp_path, None, sql_url)


@pytest.fixture
async def stores(store_settings: Settings) -> AsyncIterator[Stores]:
    """The memory stores alone, for tests that need no model, dialogue, commands or worker."""
    async with opened_stores(store_settings) as opened:
        yield opened


@pytest.fixture
def recaller(store_settings: Settings, stores: Stores) -> Recaller:
    """The recall step over `stores`, with the shared pool's examples of the packaged personas'
    domains, as a companion recalls for a model other than the demo one."""
    domains = [persona.domain for persona in load_personas().values()]
    return build_recaller(store_settings, stores, pool_examples(store_settings, stores, domains))


async def search_topics(stores: Stores, user_id: str, text: str, limit: int = 3,
                        floor: float = -1.0) -> list[ScoredTopic]:
    """The user's topics most similar to `text`, best first, as `Companion.search_topics`."""
    [vector] = await stores.embedder.embed([text])
    return await stores.topics.search(user_id, vector, limit=limit, floor=floor)


CHROMA = str(Path(sys.executable).parent / "chroma")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
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


def chroma_client(url: str) -> ClientAPI:
    """chromadb's own client of a chroma server: a view of what the product stored there that
    does not go through the product's client. Blocking."""
    parts = urlsplit(url)
    return chromadb.HttpClient(host=parts.hostname or "127.0.0.1", port=parts.port or 8000,
                               settings=chromadb.Settings(anonymized_telemetry=False))


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


@pytest.fixture
def mysql_url() -> Iterator[str]:
    yield from _mysql_database()
