"""The chat screen: messages on the left, the memory behind the last reply on the right.

Every message goes through the front desk, as on Telegram and Discord: the terminal is one more
surface (`surface.py`), so a command or a reply behaves here as it does there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path
from typing import Protocol

from textual import work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, Input, Static

from bot.commands.layer import is_command
from bot.core.inbound import Incoming
from bot.core.persona_choice import PersonaChoice
from bot.errors import UserFacingError
from bot.frontends.desk import FrontDesk
from bot.frontends.tui.surface import TerminalSurface
from bot.frontends.tui.widgets import CompanionMessage, HistoryInput, MemoryPanel, Note, UserMessage
from bot.settings import LLMSettings, Settings

log = logging.getLogger(__name__)


class Upkeep(Protocol):
    def is_busy(self, user_id: str) -> bool: ...


class Opened(Protocol):
    """What the chat screen needs of an opened companion (`bot.app.Companion`)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def desk(self) -> FrontDesk: ...

    @property
    def personas(self) -> PersonaChoice: ...

    @property
    def worker(self) -> Upkeep: ...


CompanionFactory = Callable[[], AbstractAsyncContextManager[Opened]]

WELCOMED_MARKER = "welcomed"  # in the data folder: the welcome was shown there


def welcome_text(llm: LLMSettings, speaker: str) -> str:
    where = ("the bundled demo model (SmolLM2-135M, offline)" if llm.is_demo
             else f"{Path(llm.local_model_path).name} (offline)" if llm.provider == "local"
             else f"{llm.model} at {llm.base_url}")
    lines = [f"Welcome! {speaker} answers with {where}."]
    if llm.is_demo:
        lines.append("It is tiny: it keeps a chat going, but it often forgets and invents. For "
                     "a real companion, quit (Ctrl+Q) and run `companion setup`: it finds "
                     "Ollama, LM Studio, llama.cpp or vLLM on this machine, or uses your "
                     "OPENAI_API_KEY.")
    lines.append("Type /help for commands. The panel on the right shows the memories behind "
                 "each reply. This note is shown once.")
    return "\n".join(lines)


class CompanionApp(App[None]):
    """Chat with Companion. The app opens the companion itself, in its own event loop."""

    TITLE = "Companion"
    CSS = """
    #log { width: 3fr; padding: 0 1; }
    #side { width: 1fr; min-width: 30; border-left: solid $primary; padding: 0 1; }
    #upkeep { color: $text-warning; }
    UserMessage { margin: 1 0 0 0; color: $text-accent; }
    CompanionMessage { margin: 1 0 0 0; }
    CompanionMessage.failed { color: $text-error; }
    Note { margin: 1 0 0 0; color: $text-muted; }
    """

    def __init__(self, open_companion: CompanionFactory, user_id: str) -> None:
        super().__init__()
        self._open_companion = open_companion
        self._user_id = user_id
        self._resources = AsyncExitStack()
        self._speaker = ""
        self.companion: Opened | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield VerticalScroll(id="log")
            with Vertical(id="side"):
                yield MemoryPanel(
                    "Memory behind the last reply\n\n(no reply yet)", id="memory", markup=False
                )
                yield Static("", id="upkeep")
        yield HistoryInput(placeholder="Say something, or /help", id="input", disabled=True)
        yield Footer()

    async def on_mount(self) -> None:
        self.sub_title = f"opening memory for {self._user_id}…"
        try:
            self.companion = await self._resources.enter_async_context(self._open_companion())
        except UserFacingError as error:
            self.exit(return_code=1, message=str(error))
            return
        persona = await self.companion.personas.of(self._user_id)
        self._show_speaker(persona.display_name)
        greeting = CompanionMessage(persona.display_name, waiting=False)
        greeting.show(persona.greeting)
        await self._add(greeting)
        await self._welcome_once()
        chat_input = self.query_one(HistoryInput)
        chat_input.disabled = False
        chat_input.focus()
        self.set_interval(0.5, self._show_upkeep)

    async def _welcome_once(self) -> None:
        """The first time Companion runs on a data folder: which model answers, and, for the
        bundled demo model, that it is tiny and how to pick a real one."""
        assert self.companion is not None
        marker = self.companion.settings.resolved_data_dir / WELCOMED_MARKER
        if marker.exists():
            return
        await self._add(Note(welcome_text(self.companion.settings.llm, self._speaker),
                             markup=False, classes="welcome"))
        marker.touch()

    def _show_upkeep(self) -> None:
        """Tell the user while their rounds are being summarized or merged into topics."""
        busy = self.companion is not None and self.companion.worker.is_busy(self._user_id)
        # The timer can tick once more while the app shuts down and its widgets are gone.
        for panel in self.query("#upkeep").results(Static):
            panel.update("\nSummarizing memories…" if busy else "")

    async def on_unmount(self) -> None:
        await self._resources.aclose()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value
        chat_input = self.query_one(HistoryInput)
        chat_input.remember(text)
        chat_input.clear()
        self._answer(text)

    @work(group="replies")
    async def _answer(self, text: str) -> None:
        """The message echoed, then the front desk's answer: a reply in a new bubble, or a
        command's notes (and the persona, which a command may have switched)."""
        assert self.companion is not None
        await self._add(UserMessage(f"You: {text}", markup=False))
        command = is_command(text)
        bubble = None if command else CompanionMessage(self._speaker)
        if bubble is not None:
            await self._add(bubble)
        surface = TerminalSurface(
            self._add, self.query_one(MemoryPanel),
            self.companion.settings.resolved_data_dir / "exports",
            bubble=bubble, scrolled=self._scroll_down)
        await self.companion.desk.handle(Incoming(user_id=self._user_id, text=text), surface)
        if command:
            self._show_speaker((await self.companion.personas.of(self._user_id)).display_name)

    def _show_speaker(self, name: str) -> None:
        self._speaker = name
        self.sub_title = f"{name} · you are {self._user_id}"

    async def _add(self, widget: UserMessage | CompanionMessage | Note) -> None:
        await self.query_one("#log", VerticalScroll).mount(widget)
        self._scroll_down()
        # Mounted is not laid out: a long note (/help) is only as tall as it will be after
        # the next refresh, and the end scrolled to before it left its last lines hidden.
        self.call_after_refresh(self._scroll_down)

    def _scroll_down(self) -> None:
        self.query_one("#log", VerticalScroll).scroll_end(animate=False)
