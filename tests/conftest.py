"""Shared fixtures: the scripted OpenAI server, SQL backends (SQLite and the real MariaDB),
settings pointing at temporary folders, and an opened Companion."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest

from bot.app import Companion, open_companion
from bot.settings import Settings, load_settings
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
        yield f"mysql+aiomysql://root@127.0.0.1:3306/{name}"
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
    tmp_path: Path, server: ScriptedLLM, sql_url: str = "", **sections: dict[str, Any]
) -> Settings:
    """Settings on temporary folders with the scripted server as the LLM."""
    llm_section = {"provider": "openai", "base_url": server.base_url, "model": "fake",
                   "max_retries": 2, "timeout_seconds": 10}
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
