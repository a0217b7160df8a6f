"""The `companion` command: chat, say, memory, version."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from bot import __version__
from bot.errors import UserFacingError
from bot.settings import Settings, default_config_path, load_settings

if TYPE_CHECKING:
    from bot.app import Companion

# The stores, models and UI are imported inside the commands that use them: `companion version`
# and `--help` answer at once instead of loading chromadb, onnxruntime and openai first.

T = TypeVar("T")

user_option = click.option(
    "--user", "user", default=None, help="Who is talking (default: setting 'user', 'local')."
)


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


def _settings(ctx: click.Context) -> Settings:
    try:
        return load_settings(ctx.obj or default_config_path())
    except UserFacingError as error:
        raise click.ClickException(str(error)) from error


def _run(settings: Settings, work: Callable[[Companion], Awaitable[T]]) -> T:
    from bot.app import open_companion

    async def runner() -> T:
        async with open_companion(settings) as companion:
            return await work(companion)

    try:
        return asyncio.run(runner())
    except UserFacingError as error:
        raise click.ClickException(str(error)) from error
    except KeyboardInterrupt:
        raise click.exceptions.Exit(130) from None
    except Exception as error:  # the boundary: a clear line for the user, the trace in the log
        logging.getLogger(__name__).exception("companion failed")
        raise click.ClickException(
            f"Something went wrong: {type(error).__name__}: {error}"
        ) from error


@main.command()
@user_option
@click.pass_context
def chat(ctx: click.Context, user: str | None) -> None:
    """Chat in the terminal UI."""
    settings = _settings(ctx)
    _log_to_file(settings)
    from bot.app import open_companion
    from bot.tui.app import CompanionApp

    app = CompanionApp(lambda: open_companion(settings), user or settings.user)
    app.run()
    if app.return_code:  # the app has shown why (a bad setting, say)
        sys.exit(app.return_code)


@main.command()
@click.argument("message")
@user_option
@click.pass_context
def say(ctx: click.Context, message: str, user: str | None) -> None:
    """Send MESSAGE and print the reply. With '-', answer each line of standard input in turn."""
    settings = _settings(ctx)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    who = user or settings.user

    async def work(companion: Companion) -> bool:
        ok = True
        async for text in _messages(message):
            ok = await _say_one(companion, who, text) and ok
        return ok

    if not _run(settings, work):
        sys.exit(1)


async def _messages(message: str) -> AsyncIterator[str]:
    """The one message, or with '-' each non-blank line of stdin (read off the event loop)."""
    if message != "-":
        yield message
        return
    while line := await asyncio.to_thread(sys.stdin.readline):
        if line.strip():  # a blank line separates nothing: skipped, not refused
            yield line.rstrip("\n")


async def _say_one(companion: Companion, user_id: str, text: str) -> bool:
    from bot.commands import is_command
    from bot.dialogue import Delta, Failed, Finished, Refused
    from bot.inbound import Incoming

    if is_command(text):
        click.echo(await companion.commands.run(user_id, text))
        return True
    started = False
    async with aclosing(companion.dialogue.respond(Incoming(user_id, text))) as events:
        async for event in events:
            match event:
                case Delta(piece):
                    click.echo(piece, nl=False)
                    started = True
                case Finished():
                    click.echo()
                case Failed(message) | Refused(message):
                    if started:  # end the partial reply's line: the next reply starts afresh
                        click.echo()
                    click.echo(message, err=True)
                    return False
    return True


@main.command()
@user_option
@click.option("--rounds", "round_count", default=10, show_default=True, help="Rounds to show.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def memory(ctx: click.Context, user: str | None, round_count: int, as_json: bool) -> None:
    """Show what Companion remembers about a user: counts, recent rounds, topics."""
    settings = _settings(ctx)
    who = user or settings.user

    async def work(companion: Companion) -> dict[str, Any]:
        rounds = await companion.rounds.recent_rounds(who, round_count)
        topics = await companion.topics.list_topics(who)
        return {
            "user": who,
            "rounds_total": await companion.rounds.count_rounds(who),
            "topics_total": len(topics),
            "recent_rounds": [
                {"id": r.id, "at": r.created_at.isoformat(), "status": r.status.value,
                 "user": r.user_text, "reply": r.reply_text}
                for r in rounds
            ],
            "topics": [
                {"id": t.id, "label": t.label, "description": t.description,
                 "updated_at": t.updated_at.isoformat()}
                for t in topics
            ],
        }

    report = _run(settings, work)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    click.echo(f"User {who}: {report['rounds_total']} rounds, {report['topics_total']} topics")
    click.echo(f"\nLast {len(report['recent_rounds'])} rounds:")
    for r in report["recent_rounds"]:
        click.echo(f"  #{r['id']} [{r['status']}] you: {r['user']}")
        if r["reply"]:
            click.echo(f"  {' ' * len(str(r['id']))}  companion: {r['reply']}")
    click.echo("\nTopics:")
    for t in report["topics"]:
        click.echo(f"  [{t['id'][:8]}] {t['label']}: {t['description']}")
    if not report["topics"]:
        click.echo("  (none yet: topics are summarized from the rounds over time)")


@main.command()
def version() -> None:
    """Print Companion's version."""
    click.echo(f"companion {__version__}")


def _log_to_file(settings: Settings) -> None:
    # The TUI owns the terminal: logs go to a file in the data folder.
    settings.resolved_data_dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        level=logging.INFO,
        filename=settings.resolved_data_dir / "companion.log",
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


