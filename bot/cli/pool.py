"""`companion pool`: the shared pool of good exchanges (Memory Sharing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from bot.cli.common import load_cli_settings, run_with_companion

if TYPE_CHECKING:
    from bot.app import Companion
    from memory.pool.retriever_rows import Trained


@click.group(invoke_without_command=True)
@click.pass_context
def pool(ctx: click.Context) -> None:
    """The shared pool: how many entries of each status, and the retriever's trainings."""
    if ctx.invoked_subcommand is not None:
        return

    async def work(companion: Companion) -> tuple[dict[str, int], Trained | None, list[Any]]:
        return (await companion.pool.pool.rows.counts(),
                await companion.pool.training_in_use(), await companion.pool.trainings())

    counts, in_use, trainings = run_with_companion(load_cli_settings(ctx), work)
    click.echo("Entries: " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
                              or "none"))
    click.echo(in_use_line(in_use))
    for t in trainings:
        click.echo(f"  version {t.version} ({t.trained_at:%Y-%m-%d %H:%M}): {t.entries} entries, "
                   f"same kind at 1 {t.score:.3f} on {t.held_back} it did not see, against "
                   f"{t.previous_score:.3f} for the version then in use"
                   + (f" and {t.cosine_score:.3f} for plain cosine" if t.cosine_score is not None
                      else "")
                   + (", used" if t.accepted else ", not used"))


def in_use_line(t: Trained | None) -> str:
    """Which retriever ranks the pool's examples (`t`: its training, None for plain cosine),
    what it was trained on, how it scored."""
    if t is None:
        return "Retriever in use: plain cosine (no training was better yet)."
    against = (f"{t.cosine_score:.3f} for plain cosine and " if t.cosine_score is not None
               else "")
    return (f"Retriever in use: version {t.version}, trained on {t.entries} entries on "
            f"{t.trained_at:%Y-%m-%d}; the first example was of the request's kind for "
            f"{t.score:.3f} of the entries it did not see, against {against}"
            f"{t.previous_score:.3f} for the version before it. Trainings:")


@pool.command()
@click.option("--rounds", default=12, show_default=True, type=click.IntRange(1, 10_000),
              help="How many questions the personas ask each other.")
@click.pass_context
def grow(ctx: click.Context, rounds: int) -> None:
    """Let the personas ask each other questions of their domains with the configured model;
    the good exchanges become candidates (shared at once with sharing.mode = "auto")."""

    async def work(companion: Companion) -> Any:
        growth = await companion.growth.grow(rounds)
        await companion.worker.retrain_if_due()
        return growth

    growth = run_with_companion(load_cli_settings(ctx), work)
    for line in growth.lines:
        click.echo(line)
    click.echo(f"Asked {growth.asked}: {growth.kept} kept, {growth.low} scored too low, "
               f"{growth.unusable} unusable. Review candidates with /admin pool.")


@pool.command()
@click.pass_context
def retrain(ctx: click.Context) -> None:
    """Train the retriever on the pool now; the new version is used only if it is better."""

    async def work(companion: Companion) -> str:
        return (await companion.pool.retrain()).note

    click.echo(run_with_companion(load_cli_settings(ctx), work))
