"""`companion doctor` as a user runs it: a real process, against real parts, or parts really
stopped (a port nothing listens on, a model file that is not there)."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pymysql
import pytest

from bot.cli.doctor.diagnose import PARTS
from memory.sql.migrations import MIGRATIONS
from tests.conftest import MYSQL
from tests.fakes.openai_server import Error, ScriptedLLM
from tests.fakes.telegram_server import FakeTelegram

COMPANION = str(Path(sys.executable).parent / "companion")
NEEDED = ("settings", "sql", "vector", "embedder", "chat model", "data")


def _doctor(env: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMPANION, *options, "doctor"], env=env, capture_output=True, text=True, timeout=120,
        cwd=env["COMPANION_DATA_DIR"],
    )


def _lines(stdout: str) -> dict[str, tuple[str, str]]:
    """Each part's (status, the rest of its line), as the aligned columns show them."""
    found = {}
    for line in stdout.splitlines():
        for part in PARTS:
            if line.startswith(f"{part:<11}"):
                found[part] = (line[11:17].strip(), line[17:])
    assert list(found) == list(PARTS), stdout  # every part, once, in order
    return found


def _free_port() -> int:
    """A port nothing listens on: bound, read, and closed again."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def env(tmp_path: Path, llm: ScriptedLLM) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("COMPANION_") and k not in {"TELEGRAM_BOT_TOKEN",
                                                              "DISCORD_BOT_TOKEN"}}
    return clean | {
        "COMPANION_DATA_DIR": str(tmp_path),
        "COMPANION_LLM__PROVIDER": "openai",
        "COMPANION_LLM__BASE_URL": llm.base_url,
        "COMPANION_LLM__MODEL": "fake-chat",
        "NO_PROXY": "127.0.0.1,localhost",  # the fakes are local, whatever proxy is set
    }


def test_everything_ok_on_a_fresh_machine_then_after_a_chat(
    env: dict[str, str], llm: ScriptedLLM, tmp_path: Path
) -> None:
    (tmp_path / "config.toml").write_text('[chat]\nuser_name = "host"\n')
    llm.enqueue("Hello!")
    fresh = _doctor(env)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    lines = _lines(fresh.stdout)
    for part in NEEDED:
        assert lines[part][0] == "OK", fresh.stdout
    assert lines["settings"][1].startswith(f"{tmp_path / 'config.toml'}, with 4 COMPANION_*")
    assert lines["sql"][1] == f"sqlite {tmp_path / 'companion.db'} will be created when " \
                              "Companion starts"
    assert lines["vector"][1] == f"embedded chromadb in {tmp_path / 'chroma'} (created when " \
                                 "Companion starts)"
    assert lines["embedder"][1] == "minilm-l6-qint8, 384 dimensions"
    assert lines["chat model"][1].startswith(f"fake-chat at {llm.base_url}, first token in ")
    assert lines["chat model"][1].endswith(" ms")
    assert lines["jobs"] == ("OK", "0 pending, 0 failed (no database yet)")
    assert lines["telegram"] == ("--", "TELEGRAM_BOT_TOKEN not set (needed only for companion "
                                       "run --telegram)")
    assert lines["discord"][0] == "--"
    assert fresh.stdout.splitlines()[-1] == "Ready to chat."
    assert llm.chat_requests[-1]["stream"]  # it really asked the model
    # It only looked: nothing was created for it.
    assert not (tmp_path / "companion.db").exists() and not (tmp_path / "chroma").exists()

    chatted = subprocess.run([COMPANION, "say", "hi"], env=env, capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
    assert chatted.returncode == 0, chatted.stderr
    with sqlite3.connect(tmp_path / "companion.db") as db:  # a job that failed for good
        db.execute("INSERT INTO memory_jobs (job_key, kind, user_id, status, attempts, "
                   "next_attempt_at, created_at, last_error) VALUES ('summarize:x:1-2', "
                   "'summarize', 'local', 'failed', 5, '2025-01-01', '2025-01-01', 'boom')")
    after = _doctor(env)
    assert after.returncode == 0, after.stdout  # a failed job does not stop the chat
    lines = _lines(after.stdout)
    assert lines["sql"] == ("OK", f"sqlite {tmp_path / 'companion.db'}, schema up to date "
                                  f"({len(MIGRATIONS)} migrations)")
    assert lines["jobs"] == ("WARN", "0 pending, 1 failed — fix: companion memory jobs shows why "
                                     "(those rounds wait for their memories; the chat works)")
    assert lines["data"][0] == "OK" and lines["data"][1].startswith(f"{tmp_path}, ")
    assert lines["data"][1].endswith(("KB", "MB"))
    assert after.stdout.splitlines()[-1] == "Ready to chat. (See the WARN lines above.)"


def test_a_stopped_database_server_is_named_with_the_fix(env: dict[str, str]) -> None:
    port = _free_port()
    said = _doctor(env | {"COMPANION_SQL__URL": f"mysql+aiomysql://root@127.0.0.1:{port}/test"})
    assert said.returncode == 1
    lines = _lines(said.stdout)
    status, text = lines["sql"]
    assert status == "FAIL"
    assert text.startswith(f"cannot connect to mysql at 127.0.0.1:{port} (")
    assert text.endswith("— fix: start the server (e.g. sudo systemctl start mariadb) or correct "
                         "sql.url (set by the environment variable COMPANION_SQL__URL)")
    assert lines["jobs"][0] == "--"
    assert lines["chat model"][0] == "OK"  # the other parts are still checked
    assert said.stdout.splitlines()[-1] == "Not ready to chat: fix the FAIL lines above."
    assert "Traceback" not in said.stdout + said.stderr


@pytest.mark.mysql
def test_a_new_mariadb_database_is_ok_and_left_unmigrated(
    env: dict[str, str], mysql_url: str
) -> None:
    said = _doctor(env | {"COMPANION_SQL__URL": mysql_url})
    assert said.returncode == 0, said.stdout
    database = mysql_url.rsplit("/", 1)[1]
    assert _lines(said.stdout)["sql"] == (
        "OK", f"mysql at 127.0.0.1:3306/{database}, {len(MIGRATIONS)} migrations not yet "
              "applied; they are applied when Companion starts")
    with pymysql.connect(**MYSQL, database=database) as db, db.cursor() as cursor:
        cursor.execute("SHOW TABLES")
        assert cursor.fetchall() == ()  # doctor read; Companion migrates when it starts


def test_a_missing_local_model_file_fails_with_the_fix(env: dict[str, str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    said = _doctor(env | {"COMPANION_LLM__PROVIDER": "local",
                          "COMPANION_LLM__LOCAL_MODEL_PATH": str(missing)})
    assert said.returncode == 1
    assert _lines(said.stdout)["chat model"] == (
        "FAIL", f"the model file is missing: {missing} — fix: run: bash .ci/setup, or set "
                "llm.local_model_path (set by the environment variable "
                "COMPANION_LLM__LOCAL_MODEL_PATH) to a GGUF file that exists (empty: the bundled "
                "demo model)")
    assert said.stdout.splitlines()[-1] == "Not ready to chat: fix the FAIL lines above."


@pytest.mark.parametrize(("error", "shown", "fix"), [
    (Error(401, "Incorrect API key provided"),
     "refused the API key (401: Incorrect API key provided)",
     "set the environment variable OPENAI_API_KEY (named by llm.api_key_env) to a valid key"),
    (Error(404, "The model 'fake-chat' does not exist"),
     "has no model 'fake-chat' (404: The model 'fake-chat' does not exist)",
     "correct llm.model (set by the environment variable COMPANION_LLM__MODEL)"),
    (Error(500, "out of memory"), "answered with an error (500: out of memory)",
     "check llm.base_url"),
])
def test_a_model_server_that_answers_an_error_fails_saying_why(
    env: dict[str, str], llm: ScriptedLLM, error: Error, shown: str, fix: str
) -> None:
    llm.enqueue(error)
    said = _doctor(env)
    assert said.returncode == 1
    status, text = _lines(said.stdout)["chat model"]
    assert status == "FAIL"
    assert text.startswith(f"{llm.base_url} {shown} — fix: run companion setup, or ")
    assert fix in text
    assert len(llm.chat_requests) == 1  # asked once: no retries from doctor


def test_an_unreachable_model_server_and_chroma_server_fail(env: dict[str, str]) -> None:
    llm_url = f"http://127.0.0.1:{_free_port()}/v1"
    chroma_url = f"http://127.0.0.1:{_free_port()}"
    said = _doctor(env | {"COMPANION_LLM__BASE_URL": llm_url, "COMPANION_VECTOR__URL": chroma_url})
    assert said.returncode == 1
    lines = _lines(said.stdout)
    assert lines["chat model"][0] == "FAIL"
    assert lines["chat model"][1].startswith(f"cannot reach {llm_url} (")
    assert "— fix: start the model server, or run companion setup, or correct llm.base_url" \
        in lines["chat model"][1]
    assert lines["vector"][0] == "FAIL"
    assert lines["vector"][1].startswith(f"cannot reach the chroma server at {chroma_url} (")
    assert "correct vector.url (set by the environment variable COMPANION_VECTOR__URL)" \
        in lines["vector"][1]


def test_a_running_chroma_server_is_ok(env: dict[str, str], chroma_url: str) -> None:
    said = _doctor(env | {"COMPANION_VECTOR__URL": chroma_url})
    assert said.returncode == 0, said.stdout
    status, text = _lines(said.stdout)["vector"]
    assert status == "OK" and text.startswith("chroma server ")
    assert text.endswith(f" at {chroma_url} answers")


def test_bad_settings_fail_first_naming_the_setting(env: dict[str, str], tmp_path: Path) -> None:
    config = tmp_path / "mine.toml"
    config.write_text('[chat]\nrecency_rounds = "many"\n')
    said = _doctor(env, "--config", str(config))
    assert said.returncode == 1
    lines = _lines(said.stdout)
    status, text = lines["settings"]
    assert status == "FAIL"
    assert text.startswith(f"Invalid setting 'chat.recency_rounds' (COMPANION_CHAT__RECENCY_ROUNDS)"
                           f" in {config} or the environment")
    assert text.endswith(f"— fix: correct what the message names, in {config} or the environment")
    assert {lines[part] for part in PARTS[1:]} == {("--", "not checked: the settings must load "
                                                          "first")}
    assert "Traceback" not in said.stdout + said.stderr


async def _doctor_async(env: dict[str, str]) -> tuple[int, str, str]:
    """The doctor process, while this test's event loop serves the fake Telegram."""
    process = await asyncio.create_subprocess_exec(
        COMPANION, "doctor", env=env, cwd=env["COMPANION_DATA_DIR"],
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return int(process.returncode or 0), out.decode(), err.decode()


async def test_telegram_tokens_are_checked_and_never_printed(env: dict[str, str]) -> None:
    secret = "987654:SECRET-never-to-be-printed-anywhere-at-all"
    async with FakeTelegram(token="123456:RIGHT-token-of-the-shape-botfather-gives") as telegram:
        env = env | {"COMPANION_TELEGRAM__BASE_URL": telegram.base_url,
                     "TELEGRAM_BOT_TOKEN": secret}
        code, out, err = await _doctor_async(env)
        assert code == 0, out  # a refused token does not stop the chat
        assert _lines(out)["telegram"] == (
            "WARN", "TELEGRAM_BOT_TOKEN refused by Telegram (401: Unauthorized) — fix: set "
                    "TELEGRAM_BOT_TOKEN to the token @BotFather gave (needed only for companion "
                    "run --telegram)")
        assert secret not in out + err and "SECRET" not in out + err

        code, out, _ = await _doctor_async(env | {"TELEGRAM_BOT_TOKEN": telegram.token})
        assert _lines(out)["telegram"] == ("OK", "TELEGRAM_BOT_TOKEN accepted "
                                                 "(@companion_test_bot)")
        assert telegram.token not in out

        asked = len(telegram.calls)
        code, out, err = await _doctor_async(env | {"TELEGRAM_BOT_TOKEN": '"123456:AAH-cut'})
        status, text = _lines(out)["telegram"]
        assert (status, text.startswith("TELEGRAM_BOT_TOKEN does not look like a Telegram bot "
                                        "token")) == ("WARN", True)
        assert "AAH-cut" not in out + err and len(telegram.calls) == asked  # never sent

    closed = f"http://127.0.0.1:{_free_port()}/bot"
    code, out, err = await _doctor_async(env | {"COMPANION_TELEGRAM__BASE_URL": closed})
    status, text = _lines(out)["telegram"]
    assert (status, text.startswith("TELEGRAM_BOT_TOKEN present, not checked: no network (")) \
        == ("--", True)
    assert secret not in out + err
