"""Discord: a discord.py bot that hands DMs, mentions and replies to the front desk."""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.commands.replies import Attachment
from bot.core.inbound import Incoming
from bot.errors import ConfigError
from bot.frontends.desk import CANCELLED, CONFIRM_LABELS, FrontDesk, confirm_label
from bot.frontends.surface import MessagesOnly
from bot.settings import DiscordSettings

log = logging.getLogger(__name__)

MESSAGE_LIMIT = 2000
NO_MENTIONS = discord.AllowedMentions.none()  # a reply never pings @everyone or anybody
BUTTON_PREFIX = "companion:"  # the custom ids of our buttons: this, then the command
CANCEL_ID = BUTTON_PREFIX + "cancel"


class DiscordChannel(MessagesOnly):
    """A `Surface` for one Discord channel or DM. Discord renders Markdown itself and never
    refuses it, so text goes out as written; discord.py retries 429s and 5xx by itself."""

    limit = MESSAGE_LIMIT

    def __init__(self, channel: discord.abc.Messageable, edit_interval: float = 1.0,
                 buttons: Callable[[str], discord.ui.View] | None = None) -> None:
        """`buttons(command)`: the view of buttons that confirm `command` (see `confirm`)."""
        self.edit_interval = edit_interval
        self._channel = channel
        self._buttons = buttons

    async def send(self, text: str) -> discord.Message:
        return await self._channel.send(text, allowed_mentions=NO_MENTIONS)

    async def edit(self, handle: discord.Message, text: str) -> discord.Message:
        return await handle.edit(content=text, allowed_mentions=NO_MENTIONS)

    async def send_file(self, text: str, attachment: Attachment) -> None:
        file = discord.File(io.BytesIO(attachment.content), filename=attachment.filename)
        await self._channel.send(text, file=file, allowed_mentions=NO_MENTIONS)

    async def confirm(self, text: str, command: str) -> None:
        if self._buttons is None:  # the text says which command confirms
            await self.send(text)
            return
        await self._channel.send(text, view=self._buttons(command), allowed_mentions=NO_MENTIONS)

    def message_key(self, handle: discord.Message) -> str:
        return message_key(handle.channel.id, handle.id)

    async def typing(self) -> None:
        await self._channel.typing()


def message_key(channel_id: int, message_id: int) -> str:
    return f"discord:{channel_id}:{message_id}"


def companion_intents() -> discord.Intents:
    intents = discord.Intents.default()
    intents.message_content = True  # privileged: switch it on in the developer portal
    intents.dm_messages = True
    intents.guild_messages = True
    intents.dm_reactions = True  # a thumbs-up or down on a reply rates it
    return intents


class ConfirmButtons(discord.ui.View):
    """A button that sends `command` as whoever presses it, and Cancel. Persistent (fixed
    custom ids, no timeout): registered at start, a press is taken after a restart too."""

    def __init__(self, desk: FrontDesk, command: str, edit_interval: float) -> None:
        super().__init__(timeout=None)
        self._desk = desk
        self._command = command
        self._edit_interval = edit_interval
        for label, custom_id, style in (
                (confirm_label(command), BUTTON_PREFIX + command, discord.ButtonStyle.danger),
                ("Cancel", CANCEL_ID, discord.ButtonStyle.secondary)):
            button: discord.ui.Button[ConfirmButtons] = discord.ui.Button(
                label=label, custom_id=custom_id, style=style)
            button.callback = self._pressed  # type: ignore[method-assign]
            self.add_item(button)

    async def _pressed(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(view=None)  # a choice is made once
        channel = (interaction.client.get_channel(interaction.channel_id or 0)
                   or interaction.channel)
        if not isinstance(channel, discord.abc.Messageable):
            return
        surface = DiscordChannel(channel, self._edit_interval)
        if interaction.data is not None and interaction.data.get("custom_id") == CANCEL_ID:
            await surface.send(CANCELLED)
            return
        await self._desk.handle(Incoming(
            user_id=f"discord:{interaction.user.id}",
            conversation_id=f"discord:{channel.id}",
            text=self._command,
            private=isinstance(channel, discord.DMChannel),
        ), surface)


class _Answering:
    """Answers every DM, and in server channels each message that mentions it or replies to
    it. Our own command layer parses "/..." texts, so discord.py's command parser is unused.
    Mixed into a one-connection bot and a sharded one."""

    if TYPE_CHECKING:  # discord.Client's, which this is mixed into
        user: discord.ClientUser | None

    def __init__(
        self,
        desk: FrontDesk,
        settings: DiscordSettings,
        *,
        intents: discord.Intents | None = None,
        **sharding: Any,
    ) -> None:
        super().__init__(  # type: ignore[call-arg]
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=intents or companion_intents(),
            allowed_mentions=NO_MENTIONS,
            **sharding,
        )
        self._desk = desk
        self._settings = settings
        self.receiving = True

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or self.user is None or not self.receiving:
            return
        private = isinstance(message.channel, discord.DMChannel)
        if not private and not self._addressed(message):
            return
        incoming = Incoming(
            user_id=f"discord:{message.author.id}",
            conversation_id=f"discord:{message.channel.id}",
            text=self._without_mention(message.content).strip(),
            private=private,
        )
        channel = DiscordChannel(message.channel, self._settings.edit_interval_seconds,
                                 self._confirm_buttons)
        await self._desk.handle(incoming, channel)

    def _confirm_buttons(self, command: str) -> ConfirmButtons:
        return ConfirmButtons(self._desk, command, self._settings.edit_interval_seconds)

    async def setup_hook(self) -> None:
        # Buttons sent before a restart (or by another process) are answered here too.
        for command in CONFIRM_LABELS:
            self.add_view(self._confirm_buttons(command))  # type: ignore[attr-defined]

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        if self.user is None or payload.user_id == self.user.id or not self.receiving:
            return
        if payload.guild_id is not None:  # only private replies are rated
            return
        assert isinstance(self, discord.Client)  # what this is mixed into
        channel = self.get_channel(payload.channel_id) or await self.fetch_channel(
            payload.channel_id)
        if not isinstance(channel, discord.DMChannel):
            return
        await self._desk.react(f"discord:{payload.user_id}",
                               message_key(payload.channel_id, payload.message_id),
                               str(payload.emoji), DiscordChannel(channel, 0.0))

    async def send_private(self, user_id: str, text: str) -> None:
        """A message of our own to a person ("discord:42"), in their direct messages."""
        assert isinstance(self, discord.Client)  # what this is mixed into
        number = int(user_id.removeprefix("discord:"))
        user = self.get_user(number) or await self.fetch_user(number)
        await DiscordChannel(user.dm_channel or await user.create_dm(), 0.0).send(text)

    def _addressed(self, message: discord.Message) -> bool:
        allowed = self._settings.allowed_channels
        if allowed and message.channel.id not in allowed:
            return False
        if self.user in message.mentions:
            return True
        reference = message.reference
        replied_to = reference.resolved if reference is not None else None
        return isinstance(replied_to, discord.Message) and replied_to.author == self.user

    def _without_mention(self, text: str) -> str:
        assert self.user is not None
        return re.sub(rf"<@!?{self.user.id}>", "", text)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        # One handler for what escaped everything else: logged with its context, bot kept up.
        log.exception("Discord event %s failed (args %r)", event_method, args)


class CompanionBot(_Answering, commands.Bot):
    """One gateway connection: enough for up to 2,500 servers, in one process."""


class ShardedCompanionBot(_Answering, commands.AutoShardedBot):
    """Several gateway connections (shards): discord.py's AutoShardedBot. With `shard_ids`, this
    process runs only those shards of `shard_count`, and other processes run the rest."""


def companion_bot(desk: FrontDesk, settings: DiscordSettings,
                  intents: discord.Intents | None = None) -> CompanionBot | ShardedCompanionBot:
    """`discord.shard_count` 0: one connection. Otherwise that many shards, all of them here
    unless `discord.shard_ids` names this process's."""
    if not settings.shard_count:
        return CompanionBot(desk, settings, intents=intents)
    return ShardedCompanionBot(desk, settings, intents=intents, shard_count=settings.shard_count,
                               shard_ids=list(settings.shard_ids) or None)


class DiscordFrontend:
    """Runs `CompanionBot` with `bot.start(token)` inside our own event loop."""

    def __init__(self, desk: FrontDesk, settings: DiscordSettings, token: str) -> None:
        self._bot = companion_bot(desk, settings)
        self._token = token
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._bot.start(self._token))
        ready = asyncio.create_task(self._bot.wait_until_ready())
        await asyncio.wait({self._task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if self._task.done():
            ready.cancel()
            await self._bot.close()  # its HTTP session is open even when the login failed
            error = self._task.exception()
            if isinstance(error, discord.LoginFailure):
                raise ConfigError(f"Discord refused DISCORD_BOT_TOKEN: {error}")
            raise ConfigError(f"The Discord bot could not start: {error}")
        log.info("Discord bot %s is connected", self._bot.user)

    async def wait_failed(self) -> None:
        """Returns if the bot stops by itself (discord.py reconnects through network errors)."""
        if self._task is not None:
            await asyncio.wait({self._task})

    platform = "discord"

    async def send_private(self, user_id: str, text: str) -> None:
        await self._bot.send_private(user_id, text)

    async def stop_receiving(self) -> None:
        # The connection stays open until close(): replies in progress can still be sent.
        self._bot.receiving = False

    async def close(self) -> None:
        await self._bot.close()
        if self._task is not None:
            await asyncio.wait({self._task}, timeout=5)
