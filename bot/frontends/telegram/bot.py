"""Telegram: python-telegram-bot in the shared event loop, polling or (several processes) taking
webhook updates; messages, button presses and reactions go to the front desk."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from telegram import Message, ReactionTypeEmoji, Update
from telegram.constants import ChatType, MessageEntityType
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    MessageReactionHandler,
    filters,
)

from bot.core.inbound import Incoming
from bot.errors import ConfigError
from bot.frontends.desk import CANCELLED, FrontDesk
from bot.frontends.telegram.chat import CANCEL, TelegramChat, message_key
from bot.frontends.telegram.retrying import telegram_call
from bot.network import root_cause
from bot.settings import TelegramSettings
from bot.tokens import TELEGRAM_TOKEN_ENV

log = logging.getLogger(__name__)

POLL_TIMEOUT_SECONDS = 10


class TelegramFrontend:
    """Runs the bot inside our own event loop: started and stopped by hand, not run_polling()."""

    def __init__(self, desk: FrontDesk, settings: TelegramSettings, token: str) -> None:
        self._desk = desk
        self._settings = settings
        self._token = token
        self._application = (
            Application.builder()
            .token(token)
            .base_url(settings.base_url)
            .concurrent_updates(True)  # one user's slow reply never holds up the others
            .get_updates_read_timeout(POLL_TIMEOUT_SECONDS + 5)
            .build()
        )
        # New messages only: an edited message must not be answered (and stored) again.
        self._application.add_handler(
            MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT, self._on_text)
        )
        # A thumbs-up or down on a reply rates it for the shared pool.
        self._application.add_handler(MessageReactionHandler(self._on_reaction))
        # A confirm button (/forget all): pressed, it is the command typed by whoever pressed.
        self._application.add_handler(CallbackQueryHandler(self._on_button))
        self._application.add_error_handler(self._on_error)

    async def start(self) -> None:
        await self._log_in()
        await self._application.start()
        updater = self._application.updater
        assert updater is not None
        # Reactions are not among the updates Telegram sends unless asked for.
        wanted = [Update.MESSAGE, Update.MESSAGE_REACTION, Update.CALLBACK_QUERY]
        url = self._settings.webhook_url
        if not url:
            await updater.start_polling(timeout=POLL_TIMEOUT_SECONDS, allowed_updates=wanted)
            log.info("Telegram bot @%s is polling", self._application.bot.username)
            return
        # Every process sets the same webhook: the last one to start wins, with the same values.
        await updater.start_webhook(
            listen=self._settings.webhook_listen, port=self._settings.webhook_port,
            url_path=urlsplit(url).path.lstrip("/"), webhook_url=url, allowed_updates=wanted,
            secret_token=webhook_secret(self._token))
        log.info("Telegram bot @%s takes updates at %s on %s:%d", self._application.bot.username,
                 url, self._settings.webhook_listen, self._settings.webhook_port)

    async def _log_in(self) -> None:
        """Ask Telegram who the bot is (getMe), which checks the token; when that fails, say
        why in one line (PTB's own message would show the token, or only httpx's words)."""
        try:
            await self._application.initialize()
        except TelegramError as error:
            await self._application.bot.shutdown()  # its HTTP clients are open even so
            raise ConfigError(self._why_not_logged_in(error)) from None  # the token is in it

    def _why_not_logged_in(self, error: TelegramError) -> str:
        if isinstance(error, InvalidToken):
            said = error.__cause__ if isinstance(error.__cause__, TelegramError) else error
            why = (f"Telegram refused {TELEGRAM_TOKEN_ENV} ({said.message}). Set it to the "
                   "token @BotFather gave this bot (/mybots, then API Token), the newest one "
                   "if it was revoked.")
        elif isinstance(error, NetworkError):
            why = (f"Could not reach Telegram at {self._settings.base_url} "
                   f"({root_cause(error)}). Check the network, or telegram.base_url if you "
                   "run your own Bot API server.")
        else:
            why = f"Telegram did not let the bot start: {error.message}"
        return why.replace(self._token, f"${TELEGRAM_TOKEN_ENV}")

    platform = "telegram"

    async def send_private(self, user_id: str, text: str) -> None:
        """A message of our own to a person ("telegram:42"), in their private chat with the
        bot (whose id is theirs)."""
        chat_id = int(user_id.removeprefix("telegram:"))
        await TelegramChat(self._application.bot, chat_id).send(text)

    async def stop_receiving(self) -> None:
        updater = self._application.updater
        if updater is not None and updater.running:
            await updater.stop()

    async def wait_failed(self) -> None:
        """Returns if polling ends by itself: PTB retries network errors, but stops for good
        on a token Telegram no longer accepts."""
        updater = self._application.updater
        while updater is not None and updater.running:
            await asyncio.sleep(1)

    async def close(self) -> None:
        if self._application.running:
            await self._application.stop()
        await self._application.shutdown()

    async def _on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or message.from_user is None or message.text is None:
            return
        if message.from_user.is_bot:
            return
        text = self._addressed_text(message)
        if text is None:
            return
        incoming = Incoming(
            user_id=f"telegram:{message.from_user.id}",
            conversation_id=f"telegram:{message.chat_id}",
            text=text,
            private=message.chat.type == ChatType.PRIVATE,
        )
        thread = message.message_thread_id if message.is_topic_message else None
        chat = TelegramChat(context.bot, message.chat_id, thread_id=thread,
                            edit_interval=self._settings.edit_interval_seconds)
        await self._desk.handle(incoming, chat)

    async def _on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or query.message is None or not query.data or query.from_user.is_bot:
            return
        await telegram_call(query.answer)  # stops the button's spinner
        chat = TelegramChat(context.bot, query.message.chat.id,
                            edit_interval=self._settings.edit_interval_seconds)
        await chat.remove_buttons(query.message.message_id)  # a choice is made once
        private = query.message.chat.type == ChatType.PRIVATE
        if query.data == CANCEL:
            await chat.send(CANCELLED)
            return
        # The data is a command, as our button carries it; a client that sends other data
        # only runs what its user could have typed, as that user.
        await self._desk.handle(Incoming(user_id=f"telegram:{query.from_user.id}",
                                         conversation_id=f"telegram:{query.message.chat.id}",
                                         text=query.data, private=private), chat)

    async def _on_reaction(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        reaction = update.message_reaction
        if reaction is None or reaction.user is None or reaction.user.is_bot:
            return
        if reaction.chat.type != ChatType.PRIVATE:  # only private replies are rated
            return
        before = {r.emoji for r in reaction.old_reaction if isinstance(r, ReactionTypeEmoji)}
        added = [r.emoji for r in reaction.new_reaction
                 if isinstance(r, ReactionTypeEmoji) and r.emoji not in before]
        chat = TelegramChat(context.bot, reaction.chat.id,
                            edit_interval=self._settings.edit_interval_seconds)
        for emoji in added:
            await self._desk.react(f"telegram:{reaction.user.id}",
                                   message_key(reaction.chat.id, reaction.message_id), emoji, chat)

    def _addressed_text(self, message: Message) -> str | None:
        """The text meant for the companion, or None when it is not talking to us (a group
        message that neither mentions the bot nor replies to it, or a chat not allowed)."""
        text = message.text or ""
        if message.chat.type == ChatType.PRIVATE:
            return text
        allowed = self._settings.allowed_chats
        if allowed and message.chat_id not in allowed:
            return None
        bot = self._application.bot
        mention = f"@{bot.username}"
        mentioned = any(
            entity.type == MessageEntityType.MENTION
            and message.parse_entity(entity).lower() == mention.lower()
            for entity in message.entities
        )
        # "/help@our_bot", or a bare "/help" that is one of ours (not another bot's "/roll").
        first_word = text.split()[0].lower() if text.strip() else ""
        command_for_us = first_word.startswith("/") and (
            first_word.endswith(mention.lower())
            or ("@" not in first_word and self._desk.knows_command(first_word))
        )
        replied = (message.reply_to_message is not None
                   and message.reply_to_message.from_user is not None
                   and message.reply_to_message.from_user.id == bot.id)
        if not (mentioned or command_for_us or replied):
            return None
        stripped = text if command_for_us else _without(text, mention)
        return stripped.strip()

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        where: Any = update.to_dict() if isinstance(update, Update) else update
        log.error("Telegram handler failed for update %s", where, exc_info=context.error)


def _without(text: str, mention: str) -> str:
    return re.sub(re.escape(mention), "", text, flags=re.IGNORECASE)


def webhook_secret(token: str) -> str:
    """The secret Telegram sends with every webhook update, so that nobody else can post fake
    ones. Made from the bot token, so every process has the same one and nothing more needs
    configuring (the token is a secret already)."""
    return hashlib.sha256(f"companion-webhook:{token}".encode()).hexdigest()
