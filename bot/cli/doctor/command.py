"""`companion doctor`: one line per part that `companion chat` needs, OK or what to fix."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from bot.settings import default_config_path

# The checks import the stores and models inside their functions only; they are still imported
# inside the command, so that `companion --help` never pays for them.


@click.command()
@click.pass_context
def doctor(ctx: click.Context) -> None:
    """Check the settings, stores and models; say what to fix. Exits 1 if chat cannot work."""
    from bot.cli.doctor.check import Check
    from bot.cli.doctor.diagnose import diagnose

    config: Path | None = ctx.obj or default_config_path()

    async def report() -> list[Check]:
        checks = []
        async for check in diagnose(config):
            click.echo(check.line())  # as each is known: a slow model shows which part waits
            checks.append(check)
        return checks

    try:
        checks = asyncio.run(report())
    except KeyboardInterrupt:
        raise click.exceptions.Exit(130) from None
    if any(check.blocks_chat for check in checks):
        click.echo("Not ready to chat: fix the FAIL lines above.")
        sys.exit(1)
    warned = any(check.status == "WARN" for check in checks)
    click.echo("Ready to chat." + (" (See the WARN lines above.)" if warned else ""))
