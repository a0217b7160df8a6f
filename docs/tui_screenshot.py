"""Take the terminal UI's screenshot for the docs: `docs/pages/images/tui.svg`.

Run from the repository root: `.venv/bin/python docs/tui_screenshot.py [OUT.svg]`.

It drives the real chat screen (`companion chat`) with textual's Pilot, on default settings in
a temporary data folder: the bundled demo model answers, the packaged MiniLM finds memories.
Two messages are sent: a statement about the user, then a question about it. The picture shows
the demo model's real replies, whatever they are, and the memory panel beside them.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).parent / "pages" / "images" / "tui.svg"
SIZE = (120, 32)
MESSAGES = ("My cat Miso hates the vacuum cleaner.", "What is my cat called?")


async def take(out: Path) -> None:
    from textual.widgets import Input

    from bot.app import open_companion
    from bot.frontends.tui.app import CompanionApp
    from bot.settings import load_settings

    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(None, data_dir=folder)  # every other setting at its default
        app = CompanionApp(lambda: open_companion(settings), "ana")
        async with app.run_test(size=SIZE) as pilot:
            chat_input = app.query_one("#input", Input)
            while chat_input.disabled:  # the models load first
                await asyncio.sleep(0.1)
            for message in MESSAGES:
                await pilot.click("#input")
                await pilot.press(*message, "enter")
                await pilot.pause()
                await app.workers.wait_for_complete()
                await pilot.pause()
            chat_input.cursor_blink = False
            await pilot.pause(0.5)
            svg = app.export_screenshot(title="companion chat --user ana")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(svg, encoding="utf-8")
    print(f"Wrote {out}")


def main() -> None:
    for name in [name for name in os.environ if name.startswith("COMPANION_")]:
        del os.environ[name]  # the picture shows the defaults, not this machine's settings
    asyncio.run(take(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))


if __name__ == "__main__":
    main()
