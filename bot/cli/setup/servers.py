"""OpenAI-compatible model servers: finding the ones a person already runs, listing their
models, and checking a chat model and an embedding model with one short request each.

Used by `companion setup`; everything here talks to servers, nothing writes settings.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import regex

from bot.network import root_cause

if TYPE_CHECKING:
    from openai import AsyncOpenAI

OPENAI_URL = "https://api.openai.com/v1"
OPENAI_KEY_ENV = "OPENAI_API_KEY"
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
# Where the usual local servers listen by default.
KNOWN_PORTS = {11434: "Ollama", 1234: "LM Studio", 8080: "llama.cpp server", 8000: "vLLM"}
# Model names that embed rather than chat (Ollama's nomic-embed-text, bge-m3, OpenAI's
# text-embedding-3-small...); and OpenAI's models that do neither (speech, images).
_EMBEDDING = regex.compile(r"embed|bge|\be5\b|minilm|\bgte\b|arctic", regex.IGNORECASE)
_NOT_CHAT = regex.compile(r"whisper|tts|dall-e|image|audio|realtime|transcribe|moderation|"
                          r"davinci|babbage|sora", regex.IGNORECASE)
_LOOK_SECONDS = 1.5  # a local server answers its model list at once
_CHECK_SECONDS = 60.0  # a model's first answer may include loading it


@dataclass(frozen=True)
class Server:
    """An OpenAI-compatible endpoint; `key_env` names the variable holding its key, if any."""

    name: str
    base_url: str
    key_env: str = ""

    @property
    def where(self) -> str:
        """How a message names it: "Ollama at http://...", or the address alone."""
        return f"{self.name} at {self.base_url}" if self.name else self.base_url

    @property
    def local(self) -> bool:
        """On this machine: when it does not answer, it is most likely not running."""
        return urlsplit(self.base_url).hostname in _LOOPBACK

    @property
    def api_key(self) -> str:
        # Local servers accept any key; the SDK insists on one.
        return os.environ.get(self.key_env, "") if self.key_env else "not-needed"


@dataclass(frozen=True)
class Found:
    """A server that answered, with its models sorted into chat and embedding models."""

    server: Server
    chat_models: list[str] = field(default_factory=list)
    embedding_models: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Missed:
    """A server looked for that did not answer its model list, and why."""

    server: Server
    why: str


@dataclass(frozen=True)
class Looked:
    """What looking for servers found, and the servers that did not answer."""

    found: list[Found]
    missed: list[Missed]


class ServerProblem(Exception):
    """A server or a model did not do what was asked; the message says what, for a person."""


def places_to_look(extra_ports: Sequence[int] = ()) -> list[Server]:
    """The known local ports (and any extra ones), and OpenAI when its key is in the environment."""
    ports = {**KNOWN_PORTS, **{port: f"a server on port {port}" for port in extra_ports}}
    servers = [Server(name, f"http://127.0.0.1:{port}/v1") for port, name in ports.items()]
    if os.environ.get(OPENAI_KEY_ENV):
        servers.append(Server("OpenAI", OPENAI_URL, OPENAI_KEY_ENV))
    return servers


async def find_servers(servers: Sequence[Server]) -> Looked:
    """The servers that answer a model list, in the order given, and why the others did not."""
    answers = await asyncio.gather(*(_try_listing(server) for server in servers))
    return Looked(found=[each for each in answers if isinstance(each, Found)],
                  missed=[each for each in answers if isinstance(each, Missed)])


async def _try_listing(server: Server) -> Found | Missed:
    try:
        return await list_models(server, timeout=_LOOK_SECONDS)
    except ServerProblem as problem:
        return Missed(server, str(problem))


async def list_models(server: Server, *, timeout: float = 10.0) -> Found:
    """The server's models; raises `ServerProblem` when it cannot be reached or refuses."""
    async with _client(server, timeout) as client:
        try:
            names = sorted([model.id async for model in client.models.list()])
        except Exception as error:  # the SDK's connection, status and decoding errors alike
            raise ServerProblem(_why(server, "listing its models", error)) from error
    return Found(server,
                 chat_models=[n for n in names if not _EMBEDDING.search(n)
                              and not _NOT_CHAT.search(n)],
                 embedding_models=[n for n in names if _EMBEDDING.search(n)])


async def check_chat(server: Server, model: str) -> float:
    """Ask `model` for a two-word answer; returns the seconds it took."""
    started = time.perf_counter()
    async with _client(server, _CHECK_SECONDS) as client:
        try:
            answer = await client.chat.completions.create(
                model=model, max_tokens=8,
                messages=[{"role": "user", "content": "Say hello in two words."}])
        except Exception as error:
            raise ServerProblem(_why(server, f"a reply from {model}", error)) from error
    if not answer.choices:
        raise ServerProblem(f"{server.where} answered {model}'s check with no reply.")
    return time.perf_counter() - started


async def check_embeddings(server: Server, model: str) -> int:
    """Embed one short text with `model`; returns the vector's dimension."""
    async with _client(server, _CHECK_SECONDS) as client:
        try:
            answer = await client.embeddings.create(model=model, input=["hello"])
        except Exception as error:
            raise ServerProblem(_why(server, f"an embedding from {model}", error)) from error
    if not answer.data or not answer.data[0].embedding:
        raise ServerProblem(f"{server.where} answered {model}'s check with no vector.")
    return len(answer.data[0].embedding)


def _client(server: Server, timeout: float) -> AsyncOpenAI:
    from openai import AsyncOpenAI  # imported here: `companion --help` stays quick

    return AsyncOpenAI(base_url=server.base_url, api_key=server.api_key or "missing",
                       timeout=timeout, max_retries=0)


def _why(server: Server, wanted: str, error: Exception) -> str:
    """One line a person can act on, from the SDK's error."""
    from openai import APIConnectionError, APIStatusError, APITimeoutError

    where = server.where
    if isinstance(error, APITimeoutError):
        return f"{where} did not answer in time while asked for {wanted}."
    if isinstance(error, APIConnectionError):
        return _unreachable(server, error)
    if isinstance(error, APIStatusError):
        return (f"{where} refused {wanted}: HTTP {error.status_code}"
                f"{_status_hint(server, error.status_code)}: {_message(error)}")
    return f"{where} gave an unusable answer to {wanted}: {error}"


def _unreachable(server: Server, error: Exception) -> str:
    """Why the connection failed, in the system's words ("Connection refused"), and that a
    key, when there is one, was never sent: the problem is the address, not the key."""
    why = f"Could not reach {server.where} ({root_cause(error)})"
    if server.key_env and os.environ.get(server.key_env):
        why += f"; your {server.key_env} was found but not tried"
    hint = "Is the server running?" if server.local else "Check the address and the network."
    return f"{why}. {hint}"


def _status_hint(server: Server, status: int) -> str:
    if status == 401:
        named = (f"check ${server.key_env}" if server.key_env
                 else "name the variable that holds it with --api-key-env")
        return f" (the API key is missing or wrong: {named})"
    return {403: " (the key may not use it)",
            404: " (the server does not know that model or path)"}.get(status, "")


def _message(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:200]
    return str(error)[:200]
