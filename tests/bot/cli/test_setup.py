"""`companion setup` as a person runs it: a real process, in a terminal (a pseudo-terminal) or
from a script, against the scripted OpenAI server and against servers that refuse."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.fakes.openai_server import Error, ScriptedLLM

COMPANION = str(Path(sys.executable).parent / "companion")
PROJECT_CONFIG = Path(__file__).parents[3] / "config.toml"
SECRET = "sk-test-do-not-write-me-4242"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("COMPANION_") and k != "OPENAI_API_KEY"}
    return clean | {"COMPANION_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """The project's own settings file, comments and all, as a newcomer's clone has it."""
    path = tmp_path / "config.toml"
    shutil.copy(PROJECT_CONFIG, path)
    return path


def _companion(
    args: list[str], env: dict[str, str], config: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([COMPANION, "--config", str(config), *args], env=env, text=True,
                          capture_output=True, timeout=120,
                          cwd=Path(env["COMPANION_DATA_DIR"]).parent)


def _port(llm: ScriptedLLM) -> int:
    return int(llm.base_url.rsplit(":", 1)[1].split("/")[0])


def _comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("#")]


def test_in_a_terminal_it_finds_the_server_and_chat_then_uses_it(
    env: dict[str, str], config: Path, llm: ScriptedLLM
) -> None:
    before = config.read_text()
    with _Terminal([COMPANION, "--config", str(config), "setup", "--port", str(_port(llm))],
                   env, config.parent) as terminal:
        listing = terminal.read_until("Use [1]: ")
        [number] = re.findall(rf"(\d+)\. a server on port {_port(llm)} at .*: fake-chat", listing)
        assert "fake-embed-text" not in listing.split(f"port {_port(llm)}")[1].splitlines()[0]
        terminal.answer(number)
        terminal.read_until("Which chat model [1]: ")
        terminal.answer("1")
        models = terminal.read_until("Which embedding model [0]: ")
        assert "1. fake-embed-text" in models
        terminal.answer("1")
        done = terminal.read_to_end()
    assert terminal.returncode == 0, done
    assert "it answered in" in done and "64 dimensions" in done

    written = config.read_text()
    assert _comments(written) == _comments(before)  # every comment kept, in its place
    settings = tomllib.loads(written)
    assert settings["llm"]["provider"] == "openai"
    assert (settings["llm"]["base_url"], settings["llm"]["model"]) == (llm.base_url, "fake-chat")
    assert settings["embeddings"]["model"] == "fake-embed-text"
    assert settings["chat"] == tomllib.loads(before)["chat"]  # the rest as it was

    llm.requests.clear()
    llm.enqueue("Hello from the server you picked!")
    said = _companion(["say", "Hi"], env, config)
    assert said.stdout.strip() == "Hello from the server you picked!", said.stderr
    assert {r.get("model") for r in llm.requests} == {"fake-chat", "fake-embed-text"}


def test_a_script_chooses_with_flags_and_the_key_stays_in_the_environment(
    env: dict[str, str], config: Path, llm: ScriptedLLM
) -> None:
    keyed = env | {"OPENAI_API_KEY": SECRET}
    done = _companion(["setup", "--base-url", llm.base_url, "--model", "fake-chat",
                       "--api-key-env", "OPENAI_API_KEY"], keyed, config)
    assert done.returncode == 0, done.stderr
    written = config.read_text()
    assert SECRET not in written
    assert tomllib.loads(written)["llm"]["api_key_env"] == "OPENAI_API_KEY"
    assert "not in the file" in done.stdout
    llm.enqueue("Scripted hello")
    assert _companion(["say", "Hi"], keyed, config).stdout.strip() == "Scripted hello"


def test_without_a_terminal_or_flags_it_says_what_to_pass(
    env: dict[str, str], config: Path, llm: ScriptedLLM
) -> None:
    before = config.read_bytes()
    done = _companion(["setup", "--port", str(_port(llm))], env, config)
    assert done.returncode == 1
    assert f"a server on port {_port(llm)}" in done.stdout and "fake-chat" in done.stdout
    assert "--base-url URL --model NAME" in done.stderr
    assert config.read_bytes() == before


def test_a_server_that_refuses_leaves_the_file_untouched(
    env: dict[str, str], config: Path, llm: ScriptedLLM
) -> None:
    before = config.read_bytes()
    llm.enqueue(Error(401, "Incorrect API key provided"))
    done = _companion(["setup", "--base-url", llm.base_url, "--model", "fake-chat"], env, config)
    assert done.returncode == 1
    assert ("refused a reply from fake-chat: HTTP 401 (the API key is missing or wrong: name "
            "the variable that holds it with --api-key-env)" in done.stderr)
    assert "Incorrect API key provided" in done.stderr
    assert "The settings file was not changed." in done.stderr
    assert "Traceback" not in done.stderr
    assert config.read_bytes() == before

    llm.models = Error(403, "forbidden")
    listing = _companion(["setup", "--base-url", llm.base_url], env, config)
    assert listing.returncode == 1 and "HTTP 403" in listing.stderr
    assert config.read_bytes() == before


def test_nothing_listening_is_said_plainly(env: dict[str, str], config: Path) -> None:
    before = config.read_bytes()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    done = _companion(["setup", "--base-url", url, "--model", "llama3.2"], env, config)
    assert done.returncode == 1
    assert f"Could not reach {url} (Connection refused). Is the server running?" in done.stderr
    assert config.read_bytes() == before


def _openai_unreachable(env: dict[str, str]) -> dict[str, str]:
    """The environment with api.openai.com out of reach, whatever the network: every HTTPS
    request goes to a proxy that is not there (local servers are still asked directly)."""
    unproxied = {k: v for k, v in env.items() if not k.lower().endswith("_proxy")}
    return unproxied | {"HTTPS_PROXY": f"http://127.0.0.1:{_closed_port()}",
                        "NO_PROXY": "127.0.0.1,localhost"}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_provider_openai_means_openais_own_server(env: dict[str, str], config: Path) -> None:
    before = config.read_bytes()
    offline = _openai_unreachable(env)
    keyless = _companion(["setup", "--provider", "openai", "--model", "gpt-4o-mini"], offline,
                         config)
    assert keyless.returncode == 1
    assert ("https://api.openai.com/v1 needs a key: set the environment variable "
            "OPENAI_API_KEY first") in keyless.stderr

    done = _companion(["setup", "--provider", "openai", "--model", "gpt-4o-mini"],
                      offline | {"OPENAI_API_KEY": SECRET}, config)
    assert done.returncode == 1
    assert done.stdout == "Checking gpt-4o-mini... failed.\n"
    assert done.stderr == (
        "Error: Could not reach https://api.openai.com/v1 (Connection refused); your "
        "OPENAI_API_KEY was found but not tried. Check the address and the network.\n"
        "The settings file was not changed.\n")
    assert SECRET not in done.stdout + done.stderr
    assert config.read_bytes() == before


def test_each_place_that_gave_nothing_says_its_own_cause(
    env: dict[str, str], config: Path
) -> None:
    offline = _openai_unreachable(env)
    keyed = _companion(["setup"], offline | {"OPENAI_API_KEY": SECRET}, config)
    assert ("Could not reach OpenAI at https://api.openai.com/v1 (Connection refused); your "
            "OPENAI_API_KEY was found but not tried. Check the address and the network."
            ) in keyed.stdout.splitlines()
    assert "OpenAI was not tried" not in keyed.stdout
    port = _closed_port()
    keyless = _companion(["setup", "--port", str(port)], offline, config)
    assert "OpenAI was not tried: $OPENAI_API_KEY is not set." in keyless.stdout.splitlines()
    assert (f"Could not reach a server on port {port} at http://127.0.0.1:{port}/v1 (Connection "
            "refused). Is the server running?") in keyless.stdout.splitlines()
    assert "Could not reach OpenAI" not in keyless.stdout
    for said in (keyed, keyless):
        assert "No server found" not in said.stdout  # which read as "no key found"
        assert "--provider openai --model NAME for OpenAI" in said.stderr


@pytest.mark.parametrize("key_env", [None, "MY_SERVER_KEY"])
def test_in_a_terminal_a_server_elsewhere_can_be_typed_in(
    env: dict[str, str], config: Path, llm: ScriptedLLM, key_env: str | None
) -> None:
    key = ["--api-key-env", key_env] if key_env else []
    with _Terminal([COMPANION, "--config", str(config), "setup", *key],
                   env | ({key_env: SECRET} if key_env else {}), config.parent) as terminal:
        listing = terminal.read_until("]: ")
        [number] = re.findall(r"(\d+)\. Another server: type its address", listing)
        terminal.answer(number)
        terminal.read_until("Server address: ")
        terminal.answer(llm.base_url)
        terminal.read_until("Which chat model [1]: ")
        terminal.answer("1")
        terminal.read_until("Which embedding model [0]: ")
        terminal.answer("0")
        done = terminal.read_to_end()
    assert terminal.returncode == 0, done
    assert f"Wrote {config}: fake-chat at {llm.base_url} answers" in done
    settings = tomllib.loads(config.read_text())["llm"]
    assert (settings["provider"], settings["base_url"]) == ("openai", llm.base_url)
    if key_env:  # the key named on the command line is the typed-in server's
        assert settings["api_key_env"] == key_env


def test_in_a_terminal_openai_can_be_chosen_and_says_why_it_cannot_be_used(
    env: dict[str, str], config: Path
) -> None:
    before = config.read_bytes()
    with _Terminal([COMPANION, "--config", str(config), "setup"], _openai_unreachable(env),
                   config.parent) as terminal:
        listing = terminal.read_until("]: ")
        [number] = re.findall(r"(\d+)\. OpenAI, with your API key \(read from "
                              r"\$OPENAI_API_KEY\)", listing)
        terminal.answer(number)
        done = terminal.read_to_end()
    assert terminal.returncode == 1
    assert ("https://api.openai.com/v1 needs a key: set the environment variable "
            "OPENAI_API_KEY first") in done
    assert "Traceback" not in done
    assert config.read_bytes() == before


def test_a_key_that_is_not_set_is_asked_for_before_anything_is_written(
    env: dict[str, str], config: Path
) -> None:
    before = config.read_bytes()
    done = _companion(["setup", "--base-url", "https://api.openai.com/v1", "--model",
                       "gpt-4o-mini"], env, config)
    assert done.returncode == 1 and "set the environment variable OPENAI_API_KEY" in done.stderr
    assert config.read_bytes() == before


def test_back_to_the_demo_model(env: dict[str, str], config: Path, llm: ScriptedLLM) -> None:
    _companion(["setup", "--base-url", llm.base_url, "--model", "fake-chat"], env, config)
    done = _companion(["setup", "--provider", "local"], env, config)
    assert done.returncode == 0, done.stderr
    assert tomllib.loads(config.read_text())["llm"]["provider"] == "local"


def test_a_missing_file_is_created(env: dict[str, str], tmp_path: Path, llm: ScriptedLLM) -> None:
    path = tmp_path / "new" / "companion.toml"
    done = _companion(["setup", "--base-url", llm.base_url, "--model", "fake-chat"], env, path)
    assert done.returncode == 0, done.stderr
    assert tomllib.loads(path.read_text())["llm"]["model"] == "fake-chat"
    assert path.read_text().startswith("# Companion's settings, written by `companion setup`")


class _Terminal:
    """A process on a pseudo-terminal, so that it asks its questions as it would a person."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self._args, self._env, self._cwd = args, env | {"TERM": "dumb"}, cwd
        self._seen = ""
        self.returncode: int | None = None

    def __enter__(self) -> _Terminal:
        self._master, child_side = pty.openpty()
        self._process = subprocess.Popen(self._args, stdin=child_side, stdout=child_side,
                                         stderr=child_side, env=self._env, cwd=self._cwd)
        os.close(child_side)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait(10)
        os.close(self._master)

    def read_until(self, prompt: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while prompt not in self._seen:
            if time.monotonic() > deadline or not self._read_some(deadline):
                raise AssertionError(f"no {prompt!r} in:\n{self._seen}")
        shown, self._seen = self._seen.split(prompt, 1)
        return shown.replace("\r\n", "\n")

    def answer(self, text: str) -> None:
        os.write(self._master, f"{text}\n".encode())

    def read_to_end(self, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while self._read_some(deadline):
            pass
        self.returncode = self._process.wait(10)
        return self._seen.replace("\r\n", "\n")

    def _read_some(self, deadline: float) -> bool:
        ready, _, _ = select.select([self._master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            chunk = os.read(self._master, 4096)
        except OSError:  # the process ended and closed its side
            return False
        self._seen += chunk.decode(errors="replace")
        return bool(chunk)
