"""`companion setup`: find the model servers a person already runs (or an OpenAI key), pick a
chat model and optionally an embedding model, check them, and write the settings file."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable
from enum import Enum
from pathlib import Path
from typing import TypeVar

import click

from bot.cli.setup.servers import (
    KNOWN_PORTS,
    OPENAI_KEY_ENV,
    OPENAI_URL,
    Found,
    Looked,
    Server,
    ServerProblem,
    check_chat,
    check_embeddings,
    find_servers,
    list_models,
    places_to_look,
)
from bot.cli.setup.settings_file import ModelChoice, write_choice
from bot.errors import UserFacingError
from bot.settings import default_config_path

T = TypeVar("T")
NO_TERMINAL = ("There is no terminal to ask in: choose with --base-url URL --model NAME "
               "(and --embedding-model NAME), --provider openai --model NAME for OpenAI, or "
               "--provider local for the bundled demo model.")


class Other(Enum):
    """The choices offered besides the servers found, as the list shows them."""

    ADDRESS = ("Another server: type its address (an OpenAI-compatible base URL, "
               "e.g. http://192.168.1.20:11434/v1)")
    OPENAI = f"OpenAI, with your API key (read from ${OPENAI_KEY_ENV})"
    DEMO = "The bundled demo model (offline, tiny: it chats but remembers poorly)"


@click.command()
@click.option("--provider", type=click.Choice(["openai", "local"]), default=None,
              help="openai: an OpenAI-compatible server (OpenAI's own unless --base-url names "
                   "another); local: the bundled demo model.")
@click.option("--base-url", default=None,
              help=f"The server, e.g. http://127.0.0.1:11434/v1 (with --provider openai, "
                   f"default {OPENAI_URL}).")
@click.option("--model", default=None, help="The chat model to use on that server.")
@click.option("--embedding-model", default=None,
              help="An embedding model on that server (default: keep the current embedder).")
@click.option("--api-key-env", default=None,
              help=f"The environment variable holding the server's key "
                   f"(default: {OPENAI_KEY_ENV} for api.openai.com, none for local servers).")
@click.option("--port", "ports", type=int, multiple=True,
              help="Also look for a server on this local port (may be repeated).")
@click.pass_context
def setup(ctx: click.Context, provider: str | None, base_url: str | None, model: str | None,
          embedding_model: str | None, api_key_env: str | None, ports: tuple[int, ...]) -> None:
    """Choose the chat model (and embedding model) and write them into the settings file."""
    path: Path = ctx.obj or default_config_path() or Path("config.toml")
    try:
        choice = asyncio.run(_choose(provider, base_url, model, embedding_model, api_key_env,
                                     ports))
        write_choice(path, choice)
    except (ServerProblem, UserFacingError) as error:
        raise click.ClickException(f"{error}\nThe settings file was not changed.") from error
    _report(path, choice)


async def _choose(provider: str | None, base_url: str | None, model: str | None,
                  embedding_model: str | None, key_env: str | None,
                  ports: tuple[int, ...]) -> ModelChoice:
    if provider == "local":
        return ModelChoice()
    if provider == "openai" and not base_url:
        base_url = OPENAI_URL
    if base_url:
        server = _server_at(base_url, key_env)
        found = None if model else await list_models(server)
    else:
        found = await _pick_server(ports, key_env)
        if found is None:
            return ModelChoice()
        server = found.server
    chat_model = model or _pick(found.chat_models if found else [], "chat model", required=True)
    if embedding_model is None and found is not None and not model:
        embedding_model = _pick(found.embedding_models, "embedding model", required=False)
    return await _checked(server, chat_model, embedding_model or "")


def _server_at(base_url: str, key_env: str | None) -> Server:
    if not base_url.startswith(("http://", "https://")):
        raise ServerProblem(f"'{base_url}' is not a server address: it starts with http:// or "
                            "https://, e.g. http://127.0.0.1:11434/v1.")
    key_env = key_env or (OPENAI_KEY_ENV if "api.openai.com" in base_url else "")
    if key_env and not os.environ.get(key_env):
        raise ServerProblem(f"{base_url} needs a key: set the environment variable {key_env} "
                            "first (the key itself never goes into the settings file).")
    return Server("", base_url.rstrip("/"), key_env)


async def _pick_server(ports: tuple[int, ...], key_env: str | None) -> Found | None:
    """A server that answered (found, typed in, or OpenAI), or None for the demo model.
    `key_env` (`--api-key-env`) names the key of a server whose address is typed in."""
    click.echo("Looking for model servers on this machine...")
    looked = await find_servers(places_to_look(ports))
    for line in _why_not_found(looked):
        click.echo(line)
    choices: list[Found | Other] = [*looked.found, *_other_choices(looked)]
    for number, choice in enumerate(choices, start=1):
        click.echo(f"  {number}. {_choice_line(choice)}")
    if not _interactive():
        raise ServerProblem(NO_TERMINAL)
    # With nothing found, Enter takes the demo model, which needs nothing.
    default = 1 if looked.found else len(choices)
    number = click.prompt("Use", type=click.IntRange(1, len(choices)), default=default)
    return await _chosen(choices[number - 1], key_env)


def _why_not_found(looked: Looked) -> list[str]:
    """Each place that gave nothing, with its own cause: no usual local server, a port asked
    for with nothing on it, OpenAI unreachable or refusing the key, or no key to try it with."""
    lines = []
    if not any(found.server.local for found in looked.found):
        lines.append("No local server answers (looked for Ollama, LM Studio, llama.cpp's "
                     "server and vLLM on their usual ports).")
    usual = set(KNOWN_PORTS.values())  # silent as a rule: most people run one, or none
    lines += [missed.why for missed in looked.missed if missed.server.name not in usual]
    if not looked.found and not os.environ.get(OPENAI_KEY_ENV):
        lines.append(f"OpenAI was not tried: ${OPENAI_KEY_ENV} is not set.")
    return lines


def _other_choices(looked: Looked) -> list[Other]:
    openai_found = any(found.server.base_url == OPENAI_URL for found in looked.found)
    return [Other.ADDRESS, *([] if openai_found else [Other.OPENAI]), Other.DEMO]


def _choice_line(choice: Found | Other) -> str:
    if isinstance(choice, Other):
        return choice.value
    return f"{choice.server.where}: {_models_line(choice)}"


async def _chosen(choice: Found | Other, key_env: str | None) -> Found | None:
    """The server chosen, with its models; None for the demo model."""
    if isinstance(choice, Found):
        return choice
    if choice is Other.DEMO:
        return None
    if choice is Other.OPENAI:
        return await list_models(_server_at(OPENAI_URL, None))
    address = click.prompt("Server address").strip()
    return await list_models(_server_at(address, key_env))


def _models_line(found: Found) -> str:
    chat = ", ".join(found.chat_models[:5]) or "no chat model"
    more = f" and {len(found.chat_models) - 5} more" if len(found.chat_models) > 5 else ""
    return chat + more


def _pick(names: list[str], what: str, *, required: bool) -> str:
    if not names:
        if required:
            raise ServerProblem(f"The server lists no {what}: pull or load one first "
                                "(Ollama: ollama pull llama3.2), or name it with --model.")
        return ""
    if not _interactive():
        raise ServerProblem(NO_TERMINAL)
    click.echo(f"{what.capitalize()}s:")
    for number, name in enumerate(names, start=1):
        click.echo(f"  {number}. {name}")
    if required:
        return names[click.prompt(f"Which {what}", type=click.IntRange(1, len(names)),
                                  default=1) - 1]
    click.echo("  0. none: keep the current embedder (the bundled MiniLM unless you changed it)")
    number = click.prompt(f"Which {what}", type=click.IntRange(0, len(names)), default=0)
    return names[number - 1] if number else ""


async def _checked(server: Server, chat_model: str, embedding_model: str) -> ModelChoice:
    click.echo(f"Checking {chat_model}... ", nl=False)
    seconds = await _or_failed(check_chat(server, chat_model))
    click.echo(f"it answered in {seconds:.1f} s.")
    if embedding_model:
        click.echo(f"Checking {embedding_model}... ", nl=False)
        dimensions = await _or_failed(check_embeddings(server, embedding_model))
        click.echo(f"{dimensions} dimensions.")
    return ModelChoice(server.base_url, chat_model, server.key_env, embedding_model)


async def _or_failed(check: Awaitable[T]) -> T:
    """The check's result; on a problem, "failed." ends the line the check began."""
    try:
        return await check
    except ServerProblem:
        click.echo("failed.")
        raise


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _report(path: Path, choice: ModelChoice) -> None:
    if choice.is_demo:
        click.echo(f"Wrote {path}: the bundled demo model answers (llm.provider = \"local\").")
    else:
        click.echo(f"Wrote {path}: {choice.chat_model} at {choice.base_url} answers, and "
                   "writes the topic summaries (memory.summarizer = \"auto\").")
    if choice.key_env:
        click.echo(f"The key is read from ${choice.key_env} each time; it is not in the file.")
    if choice.embedding_model:
        click.echo(f"Memories are found with {choice.embedding_model}; every memory is indexed "
                   "again with it when Companion next starts.")
    overridden = sorted(name for name in os.environ
                        if name.startswith(("COMPANION_LLM__", "COMPANION_EMBEDDINGS__")))
    if overridden:
        click.echo(f"Note: the environment overrides the file: {', '.join(overridden)}.")
    if path.resolve() != (default_config_path() or Path()).resolve():
        click.echo(f"Companion reads this file with --config {path} or COMPANION_CONFIG={path}.")
    click.echo("Next: companion doctor (checks everything), then companion chat.")

