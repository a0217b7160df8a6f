"""The chat screen: messages on the left, the memory behind the last reply on the right.

Every message goes through the front desk, as on Telegram and Discord: the terminal is one more
surface (`surface.py`), so a command or a reply behaves here as it does there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path
from typing import ClassVar, Protocol

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, Input, Static
from textual.worker import Worker, get_current_worker

from bot.commands.layer import is_command, parse_command
from bot.core.checkins import CheckIns
from bot.core.inbound import Incoming, clean_message
from bot.core.persona_choice import PersonaChoice
from bot.errors import InputRejected, UserFacingError
from bot.frontends.desk import FrontDesk
from bot.frontends.tui.surface import TerminalSurface
from bot.frontends.tui.widgets import (
    CompanionMessage,
    HistoryInput,
    MemoryPanel,
    Note,
    SteadyText,
    UserMessage,
)
from bot.settings import LLMSettings, Settings

log = logging.getLogger(__name__)


class Upkeep(Protocol):
    def is_busy(self, user_id: str) -> bool: ...


class PastRound(Protocol):
    """A stored round, as the chat shows it again (`memory.types.Round`)."""

    @property
    def user_text(self) -> str: ...

    @property
    def reply_text(self) -> str | None: ...

    @property
    def persona(self) -> str: ...

    @property
    def status(self) -> str: ...


class RoundHistory(Protocol):
    async def recent_rounds(self, user_id: str, limit: int) -> Sequence[PastRound]: ...


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

    @property
    def rounds(self) -> RoundHistory: ...

    @property
    def checkins(self) -> CheckIns: ...


CompanionFactory = Callable[[], AbstractAsyncContextManager[Opened]]

WELCOMED_MARKER = "welcomed"  # in the data folder: the welcome was shown there
EARLIER_ROUNDS = 5  # shown again when the chat opens
ANSWERED = "answered"  # the status of a round whose reply came whole (`RoundStatus`)
UNFINISHED = " [unfinished]"
QUIT_COMMANDS = frozenset({"quit", "exit"})
NOTHING_TO_STOP = "No reply is being written. To quit, press Ctrl+Q or type /quit."
# The terminal's own keys, after the commands of /help.
KEYS_HELP = """Keys:
Esc, Ctrl+C           stop the reply being written (what it said so far stays)
F2                    hide or show the memory panel
Up, Down              the messages you typed before
Ctrl+Q, /quit, /exit  quit"""


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
    lines.append("Type /help for commands and keys. The panel on the right shows the memories "
                 "behind each reply (F2 hides it). This note is shown once.")
    return "\n".join(lines)


def is_quit(text: str) -> bool:
    return is_command(text) and parse_command(text)[0] in QUIT_COMMANDS


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
    .earlier { color: $text-muted; text-style: dim; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True),  # in the footer: how do I get out?
        Binding("escape", "stop_reply", "Stop reply"),
        # Not priority: in the input, Ctrl+C still copies the selected text.
        Binding("ctrl+c", "interrupt", "Stop reply", show=False),
        Binding("f2", "toggle_panel", "Memory panel"),  # Ctrl+B is tmux's prefix
    ]

    def __init__(self, open_companion: CompanionFactory, user_id: str) -> None:
        super().__init__()
        self._open_companion = open_companion
        self._user_id = user_id
        self._resources = AsyncExitStack()
        self._speaker = ""
        # The replies being written, oldest (the one streaming) first; the others wait for it.
        self._writing: dict[CompanionMessage, Worker[None]] = {}
        self.companion: Opened | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield VerticalScroll(id="log")
            with Vertical(id="side"):
                yield MemoryPanel("Memory behind the last reply\n\n(no reply yet)", id="memory")
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
        await self._show_earlier()
        persona = await self.companion.personas.of(self._user_id)
        self._show_speaker(persona.display_name)
        greeting = CompanionMessage(persona.display_name, waiting=False)
        greeting.show(persona.greeting)
        await self._add(greeting)
        if follow_up := await self.companion.checkins.on_opening(self._user_id):
            asking = CompanionMessage(persona.display_name, waiting=False)
            asking.show(follow_up)
            await self._add(asking)
        await self._welcome_once()
        chat_input = self.query_one(HistoryInput)
        chat_input.disabled = False
        chat_input.focus()
        self.set_interval(0.5, self._show_upkeep)

    async def _show_earlier(self) -> None:
        """The user's last rounds, dimmed under "Earlier": a reopened chat goes on from there."""
        assert self.companion is not None
        rounds = await self.companion.rounds.recent_rounds(self._user_id, EARLIER_ROUNDS)
        if not rounds:
            return
        shown: list[SteadyText] = [Note("── Earlier ──", classes="earlier")]
        for round_ in rounds:
            if round_.user_text:  # none before a question the companion asked first
                shown.append(UserMessage(f"You: {round_.user_text}", classes="earlier"))
            shown.append(self._earlier_reply(round_))
        await self._add(*shown)

    def _earlier_reply(self, round_: PastRound) -> CompanionMessage:
        assert self.companion is not None
        persona = self.companion.personas.all.get(round_.persona)
        reply = CompanionMessage(persona.display_name if persona else round_.persona,
                                 waiting=False, classes="earlier")
        reply.show(round_.reply_text or "")
        if round_.status != ANSWERED:  # stopped, or the model failed on the way
            reply.mark(UNFINISHED if round_.reply_text else "(no reply)")
        return reply

    async def _welcome_once(self) -> None:
        """The first time Companion runs on a data folder: which model answers, and, for the
        bundled demo model, that it is tiny and how to pick a real one."""
        assert self.companion is not None
        marker = self.companion.settings.resolved_data_dir / WELCOMED_MARKER
        if marker.exists():
            return
        await self._add(Note(welcome_text(self.companion.settings.llm, self._speaker),
                             classes="welcome"))
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
        if not text.strip():
            return  # an empty Enter says nothing: nothing to echo, nothing to warn about
        chat_input = self.query_one(HistoryInput)
        chat_input.remember(text)
        chat_input.clear()
        if is_quit(text):
            self.exit()
        elif is_command(text):
            self._run_command(text)
        else:
            self._reply(text)

    @work(group="replies")
    async def _run_command(self, text: str) -> None:
        """The command echoed, then its notes (and the persona, which it may have switched)."""
        assert self.companion is not None
        await self._add(UserMessage(f"You: {text}"))
        await self._hand_to_desk(text, bubble=None)
        if parse_command(text)[0] == "help":
            await self._add(Note(KEYS_HELP))
        self._show_speaker((await self.companion.personas.of(self._user_id)).display_name)

    @work(group="replies")
    async def _reply(self, text: str) -> None:
        """The message echoed, then the reply growing in its bubble, until it is complete or
        the user stops it (Esc, Ctrl+C). A message the core would refuse is not echoed."""
        refusal = self._refusal(text)
        if refusal is not None:
            refused = CompanionMessage(self._speaker, waiting=False)
            await self._add(refused)
            refused.fail(refusal)
            return
        bubble = CompanionMessage(self._speaker)
        await self._add(UserMessage(f"You: {text}"), bubble)
        self._writing[bubble] = get_current_worker()
        try:
            await self._hand_to_desk(text, bubble)
        except asyncio.CancelledError:
            # Stopped (or the app closing): the dialogue core has stored what was said.
            bubble.stop()
            raise
        finally:
            del self._writing[bubble]
            bubble.finish()

    def _refusal(self, text: str) -> str | None:
        """What the dialogue core says when it refuses `text` (too long, nothing in it)."""
        assert self.companion is not None
        try:
            clean_message(text, self.companion.settings.chat.max_message_chars)
        except InputRejected as rejection:
            return str(rejection)
        return None

    async def _hand_to_desk(self, text: str, bubble: CompanionMessage | None) -> None:
        assert self.companion is not None
        surface = TerminalSurface(
            self._add, self.query_one(MemoryPanel),
            self.companion.settings.resolved_data_dir / "exports",
            bubble=bubble, scrolled=self._scroll_down)
        await self.companion.desk.handle(Incoming(user_id=self._user_id, text=text), surface)

    def action_stop_reply(self) -> None:
        self._stop_reply()

    def action_interrupt(self) -> None:
        """Ctrl+C stops the reply; with none, it says how to quit rather than quitting (a
        reflex press would lose the chat)."""
        if not self._stop_reply():
            self.notify(NOTHING_TO_STOP, title="Nothing to stop")

    def _stop_reply(self) -> bool:
        """Stop the reply being streamed; False when there is none."""
        streaming = next(iter(self._writing.values()), None)
        if streaming is None:
            return False
        streaming.cancel()  # the core keeps what was said, as a cut round
        return True

    def action_toggle_panel(self) -> None:
        side = self.query_one("#side")
        side.display = not side.display

    def _show_speaker(self, name: str) -> None:
        self._speaker = name
        self.sub_title = f"{name} · you are {self._user_id}"

    async def _add(self, *widgets: SteadyText) -> None:
        await self.query_one("#log", VerticalScroll).mount(*widgets)
        self._scroll_down()
        # Mounted is not laid out: a long note (/help) is only as tall as it will be after
        # the next refresh, and the end scrolled to before it left its last lines hidden.
        self.call_after_refresh(self._scroll_down)

    def _scroll_down(self) -> None:
        self.query_one("#log", VerticalScroll).scroll_end(animate=False)
