"""The `companion` command: chat, say, memory, version."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from bot import __version__
from bot.cli.common import load_cli_settings, run_with_companion, user_option
from bot.cli.doctor.command import doctor
from bot.cli.memory import ingest, memory
from bot.cli.pool import pool
from bot.cli.setup.command import setup
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.app import Companion
    from memory.types import Recall

# The stores, models and UI are imported inside the commands that use them: `companion version`
# and `--help` answer at once instead of loading chromadb, onnxruntime and openai first.

T = TypeVar("T")

@click.group()
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Settings file (default: $COMPANION_CONFIG, else ./config.toml if present).",
)
@click.pass_context
def main(ctx: click.Context, config: Path | None) -> None:
    """Companion: a chatbot that remembers you."""
    ctx.obj = config


@main.command()
@user_option
@click.pass_context
def chat(ctx: click.Context, user: str | None) -> None:
    """Chat in the terminal UI."""
    settings = load_cli_settings(ctx)
    _log_to_file(settings)
    from bot.app import open_companion
    from bot.frontends.tui.app import CompanionApp

    app = CompanionApp(lambda: open_companion(settings, sweep=True), user or settings.user)
    app.run()
    if app.return_code:  # the app has shown why (a bad setting, say)
        sys.exit(app.return_code)


@main.command()
@click.argument("message")
@user_option
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object per reply, with the memories it used.")
@click.pass_context
def say(ctx: click.Context, message: str, user: str | None, as_json: bool) -> None:
    """Send MESSAGE and print the reply. With '-', answer each line of standard input in turn."""
    settings = load_cli_settings(ctx)
    if message != "-":
        _refuse_at_once(message, settings, as_json=as_json)
    _log_to_file(settings)  # the person reads replies and reasons here, not log lines
    who = user or settings.user

    async def work(companion: Companion) -> bool:
        ok = True
        answered = 0
        async for text in _messages(message):
            if answered and not as_json:
                click.echo()  # a blank line between two replies
            said = await _say_one(companion, who, text, streaming=not as_json)
            if as_json:
                click.echo(json.dumps(said.as_json(), ensure_ascii=False))
            else:
                said.print()
            ok = said.ok and ok
            answered += 1
        return ok

    if not run_with_companion(settings, work):
        sys.exit(1)


def _refuse_at_once(message: str, settings: Settings, *, as_json: bool) -> None:
    """Say why a message that cannot be stored (empty, too long) is refused before anything is
    loaded, as the companion would (in JSON with `as_json`), and exit non-zero."""
    from bot.core.inbound import clean_message
    from bot.errors import InputRejected

    try:
        clean_message(message, settings.chat.max_message_chars)
    except InputRejected as rejection:
        refused = _Said(message, problem=str(rejection))
        if as_json:
            click.echo(json.dumps(refused.as_json(), ensure_ascii=False))
        else:
            refused.print()
        sys.exit(1)


async def _messages(message: str) -> AsyncIterator[str]:
    """The one message, or with '-' each non-blank line of stdin (read off the event loop)."""
    if message != "-":
        yield message
        return
    while line := await asyncio.to_thread(sys.stdin.readline):
        if line.strip():  # a blank line separates nothing: skipped, not refused
            yield line.rstrip("\n")


@dataclass
class _Said:
    """What one message got: the reply (or a command's answer), or why there was none."""

    message: str
    reply: str = ""
    problem: str = ""
    command: bool = False
    memories: list[dict[str, Any]] = field(default_factory=list)
    saved_to: str = ""
    streamed: bool = False  # the reply was printed as it came

    @property
    def ok(self) -> bool:
        return not self.problem

    def print(self) -> None:
        if self.streamed:
            click.echo()  # end the reply's line
        elif self.reply:
            click.echo(self.reply)
        if self.saved_to:
            click.echo(f"Saved to {self.saved_to}")
        if self.problem:
            click.echo(self.problem, err=True)

    def as_json(self) -> dict[str, Any]:
        return {"message": self.message, "command": self.command, "reply": self.reply,
                "problem": self.problem or None, "memories": self.memories,
                **({"saved_to": self.saved_to} if self.saved_to else {})}


async def _say_one(companion: Companion, user_id: str, text: str, *, streaming: bool) -> _Said:
    """Send one message (or command); with `streaming`, print the reply as it comes."""
    from bot.commands.layer import is_command
    from bot.commands.replies import save_attachment
    from bot.core.dialogue import Delta, Failed, Finished, Recalled, Refused
    from bot.core.inbound import Incoming

    said = _Said(text)
    if is_command(text):
        answer = await companion.commands.run(user_id, text)
        said.command = True
        if answer.failed:  # unknown, misused or refused: say why, and exit non-zero
            said.problem = answer.text
            return said
        said.reply = answer.text
        if answer.attachment is not None:
            folder = companion.settings.resolved_data_dir / "exports"
            path = await asyncio.to_thread(save_attachment, answer.attachment, folder)
            said.saved_to = str(path)
        return said
    recall = None
    async with aclosing(companion.dialogue.respond(Incoming(user_id, text))) as events:
        async for event in events:
            match event:
                case Recalled(found):
                    recall = found
                case Delta(piece):
                    said.reply += piece
                    if streaming:
                        click.echo(piece, nl=False)
                        said.streamed = True
                case Finished(reply, _, cited):
                    said.reply = reply
                    said.memories = [] if recall is None else _memories(recall, cited)
                case Failed(message) | Refused(message):
                    said.problem = message
    return said


def _memories(recall: Recall, cited: Sequence[int]) -> list[dict[str, Any]]:
    """The numbered memories a reply was given, as its prompt numbered them."""
    from memory.types import memory_key, memory_text

    return [{"number": number, "kind": memory_key(item).split(":")[0], "id": item.id,
             "text": memory_text(item), "cited": number in cited}
            for number, item in enumerate(recall.numbered(), start=1)]


@main.command()
@click.option("--telegram", is_flag=True, help="Serve the Telegram bot ($TELEGRAM_BOT_TOKEN).")
@click.option("--discord", is_flag=True, help="Serve the Discord bot ($DISCORD_BOT_TOKEN).")
@click.pass_context
def run(ctx: click.Context, telegram: bool, discord: bool) -> None:
    """Serve the chat bots (and the memory sweep) until Ctrl+C or SIGTERM."""
    from bot.errors import UserFacingError
    from bot.tokens import read_tokens

    settings = load_cli_settings(ctx)
    try:
        tokens = read_tokens(telegram=telegram, discord=discord)  # before anything is loaded
    except UserFacingError as error:
        raise click.ClickException(str(error)) from error
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # httpx logs each request's URL at INFO, and a Telegram URL holds the bot's token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # Opt in to PTB's coming timedelta durations (we read them either way) to skip its warning.
    os.environ.setdefault("PTB_TIMEDELTA", "true")
    from bot.serve import serve

    try:
        asyncio.run(serve(settings, tokens))
    except UserFacingError as error:
        raise click.ClickException(str(error)) from error


@main.command()
def version() -> None:
    """Print Companion's version."""
    click.echo(f"companion {__version__}")


def _log_to_file(settings: Settings) -> None:
    # The TUI owns the terminal, and `say` prints replies: logs go to a file in the data folder.
    settings.resolved_data_dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        level=logging.INFO,
        filename=settings.resolved_data_dir / "companion.log",
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


main.add_command(memory)
main.add_command(ingest)
main.add_command(pool)
main.add_command(doctor)
main.add_command(setup)
