"""The chat screen: messages on the left, the memory behind the last reply on the right."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, aclosing
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, Input, Static

from bot.commands import is_command
from bot.commands.replies import save_attachment
from bot.core.dialogue import Delta, Failed, Finished, Recalled, Refused
from bot.core.inbound import Incoming
from bot.errors import UserFacingError
from bot.frontends.tui.widgets import CompanionMessage, HistoryInput, MemoryPanel, Note, UserMessage
from bot.settings import LLMSettings
from memory.types import Recall

if TYPE_CHECKING:
    from bot.app import Companion

log = logging.getLogger(__name__)

CompanionFactory = Callable[[], "AbstractAsyncContextManager[Companion]"]


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
        self.companion: Companion | None = None

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
        await self._show_persona()
        persona = await self.companion.dialogue.persona_for(self._user_id)
        greeting = CompanionMessage(persona.display_name, waiting=False)
        greeting.append(persona.greeting)
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
        if is_command(text):
            await self._run_command(text)
        else:
            self._reply_to(text)

    async def _run_command(self, text: str) -> None:
        assert self.companion is not None
        await self._add(UserMessage(f"You: {text}", markup=False))
        try:
            reply = await self.companion.commands.run(self._user_id, text)
            answer = reply.text
            if reply.attachment is not None:
                folder = self.companion.settings.resolved_data_dir / "exports"
                path = await asyncio.to_thread(save_attachment, reply.attachment, folder)
                answer += f"\nSaved to {path}"
        except Exception:  # the frontend boundary: say so, keep the app alive
            log.exception("Command %r failed for %s", text, self._user_id)
            answer = "That command failed on my side; nothing was changed. See the log."
        await self._add(Note(answer, markup=False))
        if answer.startswith("Forgotten"):  # what the panel shows may be gone
            self.query_one(MemoryPanel).show_forgotten()
        await self._show_persona()

    async def _show_persona(self) -> None:
        assert self.companion is not None
        persona = await self.companion.dialogue.persona_for(self._user_id)
        self._speaker = persona.display_name
        self.sub_title = f"{persona.display_name} · you are {self._user_id}"

    @work(group="replies")
    async def _reply_to(self, text: str) -> None:
        await self._add(UserMessage(f"You: {text}", markup=False))
        bubble = CompanionMessage(self._speaker)
        await self._add(bubble)
        try:
            await self._stream_into(bubble, text)
        except Exception:  # the frontend boundary: show something useful, keep the app alive
            log.exception("Reply failed for %s", self._user_id)
            bubble.fail("Something went wrong on my side; your message is saved if it got stored.")

    async def _stream_into(self, bubble: CompanionMessage, text: str) -> None:
        assert self.companion is not None
        panel = self.query_one(MemoryPanel)
        incoming = Incoming(user_id=self._user_id, text=text)
        shown: Recall | None = None
        async with aclosing(self.companion.dialogue.respond(incoming)) as events:
            async for event in events:
                match event:
                    case Recalled(recall):
                        shown = recall
                        panel.show_recall(recall)
                    case Finished(cited=cited) if shown is not None and cited:
                        panel.show_recall(shown, cited)
                    case Delta(piece):
                        bubble.append(piece)
                        self._scroll_down()
                    case Failed(message) | Refused(message):
                        bubble.fail(message)

    async def _add(self, widget: UserMessage | CompanionMessage | Note) -> None:
        await self.query_one("#log", VerticalScroll).mount(widget)
        self._scroll_down()
        # Mounted is not laid out: a long note (/help) is only as tall as it will be after
        # the next refresh, and the end scrolled to before it left its last lines hidden.
        self.call_after_refresh(self._scroll_down)

    def _scroll_down(self) -> None:
        self.query_one("#log", VerticalScroll).scroll_end(animate=False)
