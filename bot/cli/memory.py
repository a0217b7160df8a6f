"""`companion memory ...` (inspect and upkeep) and `companion ingest` (bring history in)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bot.cli.common import load_cli_settings, run_with_companion, run_with_database, user_option
from bot.core.wording import counted
from bot.errors import InputRejected

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from bot.app import Companion
    from bot.core.ingest import Imported
    from jobs.worker import MemoryWorker, SweepReport


@click.group(invoke_without_command=True)
@user_option
@click.option("--rounds", "round_count", default=10, show_default=True,
              help="Rounds (and newest facts) to show.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def memory(ctx: click.Context, user: str | None, round_count: int, as_json: bool) -> None:
    """Show what Companion remembers about a user: counts, recent rounds, topics."""
    if ctx.invoked_subcommand is not None:
        return
    settings = load_cli_settings(ctx)
    who = user or settings.user

    async def work(companion: Companion) -> dict[str, Any]:
        return await _overview(companion, who, round_count)

    report = run_with_companion(settings, work)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        _print_overview(report)


async def _overview(companion: Companion, who: str, round_count: int) -> dict[str, Any]:
    rounds = await companion.rounds.recent_rounds(who, round_count)
    topics = await companion.topics.list_topics(who)
    facts = await companion.facts.newest(who, round_count)
    return {
        "user": who,
        "rounds_total": await companion.rounds.count_rounds(who),
        "rounds_unsummarized": await companion.rounds.count_unsummarized(who),
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
        "facts_total": await companion.facts.count(who),
        "newest_facts": [
            {"id": f.id, "said_by": f.speaker.value, "said_at": f.said_at.isoformat(),
             "text": f.text, "rounds": list(f.round_ids)}
            for f in facts
        ],
    }


def _print_overview(report: dict[str, Any]) -> None:
    if not (report["rounds_total"] or report["topics_total"] or report["facts_total"]):
        click.echo(f"Nothing is stored for user '{report['user']}': no rounds, topics or facts. "
                   "(Users are named as their frontend names them, e.g. 'telegram:42'.)")
        return
    click.echo(f"User {report['user']}: {counted(report['rounds_total'], 'round')} "
               f"({report['rounds_unsummarized']} not yet summarized), "
               f"{counted(report['topics_total'], 'topic')}, "
               f"{counted(report['facts_total'], 'fact')}")
    _print_rounds(report)
    _print_topics(report)
    _print_facts(report)


def _print_rounds(report: dict[str, Any]) -> None:
    recent = report["recent_rounds"]
    if not recent:  # the first line says there are none
        return
    click.echo(f"\nLast {counted(len(recent), 'round')}:")
    # Numbered among the user's own rounds (the database's ids run across every user).
    first = report["rounds_total"] - len(recent) + 1
    for number, r in enumerate(recent, start=first):
        _echo_indented(f"  #{number} [{r['status']}] you: ", r["user"])
        if r["reply"]:
            _echo_indented(f"  {' ' * len(str(number))}  companion: ", r["reply"])


def _print_topics(report: dict[str, Any]) -> None:
    click.echo("\nTopics:")
    for t in report["topics"]:
        _echo_indented(f"  [{t['id'][:8]}] {t['label']}: ", t["description"])
    if not report["topics"]:
        click.echo("  (none yet: topics are summarized from the rounds over time)")


def _print_facts(report: dict[str, Any]) -> None:
    newest = report["newest_facts"]
    if not newest:  # the first line says there are none
        return
    click.echo(f"\nNewest {counted(len(newest), 'fact')}:")
    for f in newest:
        _echo_indented(f"  [{f['id'][:8]}] {f['said_at'][:10]} {f['said_by']}: ", f["text"])


def _echo_indented(lead: str, text: str) -> None:
    """`lead` then `text`, its further lines starting under its first: a reply of several
    lines stays inside its round instead of starting at the margin."""
    first, *rest = text.splitlines() or [""]
    click.echo(lead + first)
    for line in rest:
        click.echo((" " * len(lead) + line).rstrip())


@memory.command()
@click.option("--all", "show_all", is_flag=True, help="Include finished jobs.")
@click.pass_context
def jobs(ctx: click.Context, show_all: bool) -> None:
    """List pending, running and failed memory jobs."""
    from bot.commands import replies
    from jobs.queue import FAILED, PENDING, RUNNING, list_jobs

    async def work(engine: AsyncEngine) -> list[Any]:
        return await list_jobs(engine, statuses=None if show_all else (PENDING, RUNNING, FAILED))

    found = run_with_database(load_cli_settings(ctx), work)
    if not found:
        click.echo("No memory jobs waiting, running or failed.")
    for job in found:
        click.echo(replies.job_line(job))


@memory.command()
@user_option
@click.pass_context
def summarize(ctx: click.Context, user: str | None) -> None:
    """Summarize a user's waiting rounds now (every full window), then merge what is due."""
    _upkeep_now(ctx, user, lambda worker, who: worker.upkeep(who))


@memory.command()
@user_option
@click.pass_context
def merge(ctx: click.Context, user: str | None) -> None:
    """Merge every label of a user that has enough descriptions, now."""
    _upkeep_now(ctx, user, lambda worker, who: worker.merge_now(who))


def _upkeep_now(
    ctx: click.Context,
    user: str | None,
    action: Callable[[MemoryWorker, str], Awaitable[SweepReport]],
) -> None:
    settings = load_cli_settings(ctx)
    who = user or settings.user
    _print_report(run_with_companion(settings, lambda companion: action(companion.worker, who)))


@memory.command()
@click.argument("topic_id")
@user_option
@click.pass_context
def unmerge(ctx: click.Context, topic_id: str, user: str | None) -> None:
    """Undo a merge: TOPIC_ID (a merged topic) goes, the descriptions it merged come back."""
    settings = load_cli_settings(ctx)

    async def work(companion: Companion) -> int:
        return await companion.worker.undo_merge(user or settings.user, topic_id)

    restored = run_with_companion(settings, work)
    if not restored:
        raise click.ClickException(f"No merged topic {topic_id} for this user.")
    click.echo(f"Restored {counted(restored, 'description')}; the merged topic is gone.")


@memory.command()
@click.pass_context
def sweep(ctx: click.Context) -> None:
    """Run everything due for every user, and repair the vector index (what the timer does)."""
    _print_report(run_with_companion(load_cli_settings(ctx), lambda c: c.worker.sweep()))


def _print_report(report: SweepReport) -> None:
    from bot.commands import replies  # the command layer imports every store: not at start

    click.echo(replies.sweep_line(report))


@click.command()
@click.argument("file", type=click.File("r", encoding="utf-8"))
@user_option
@click.option("--no-jobs", is_flag=True, help="Only store the rounds; leave upkeep for later.")
@click.pass_context
def ingest(ctx: click.Context, file: Any, user: str | None, no_jobs: bool) -> None:
    """Import a conversation (JSONL: role, text, optional timestamp per line) as if chatted."""
    from tqdm import tqdm

    from bot.core.ingest import read_exchanges

    settings = load_cli_settings(ctx)
    who = user or settings.user
    try:
        exchanges = read_exchanges(file, settings.chat.max_message_chars)
    except InputRejected as rejection:
        raise click.ClickException(f"{Path(file.name).name}: {rejection}") from rejection

    async def work(companion: Companion) -> tuple[Imported, SweepReport | None]:
        with tqdm(total=len(exchanges), unit="round", desc="Importing") as bar:
            return await companion.ingest(who, exchanges, run_jobs=not no_jobs,
                                          progress=bar.update)

    imported, report = run_with_companion(settings, work)
    skipped = (f"; skipped {counted(imported.skipped, 'round')} stored before (the same "
               "message at the same time)" if imported.skipped else "")
    click.echo(f"Imported {counted(imported.stored, 'round')} for {who}{skipped}.")
    if report is not None:
        _print_report(report)
