"""One Telegram chat as a surface of the front desk: Markdown sent as Telegram's HTML, edits of
a streaming reply, files, confirm buttons."""

from __future__ import annotations

import logging

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ChatAction, MessageLimit, ParseMode
from telegram.error import BadRequest

from bot.commands.replies import Attachment
from bot.frontends.desk import confirm_label
from bot.frontends.surface import MessagesOnly
from bot.frontends.telegram.format import to_telegram_html
from bot.frontends.telegram.retrying import telegram_call

log = logging.getLogger(__name__)

CANCEL = "cancel"  # the callback data of a Cancel button


class TelegramChat(MessagesOnly):
    """A `Surface` for one Telegram chat. Markdown goes out as Telegram HTML; should Telegram
    refuse to parse it, the same text goes out plain, so formatting never loses a message."""

    limit: int = MessageLimit.MAX_TEXT_LENGTH

    def __init__(
        self, bot: Bot, chat_id: int, *, thread_id: int | None = None, edit_interval: float = 1.0
    ) -> None:
        self.edit_interval = edit_interval
        self._bot = bot
        self._chat_id = chat_id
        self._thread_id = thread_id

    async def send(self, text: str, buttons: InlineKeyboardMarkup | None = None) -> Message:
        try:
            return await telegram_call(lambda: self._bot.send_message(
                self._chat_id, to_telegram_html(text), parse_mode=ParseMode.HTML,
                message_thread_id=self._thread_id, reply_markup=buttons))
        except BadRequest as error:
            if not _is_parse_error(error):
                raise
            return await telegram_call(lambda: self._bot.send_message(
                self._chat_id, text, message_thread_id=self._thread_id, reply_markup=buttons))

    async def confirm(self, text: str, command: str) -> None:
        """`text` with a button that sends `command` for whoever presses it, and a Cancel."""
        await self.send(text, InlineKeyboardMarkup([[
            InlineKeyboardButton(confirm_label(command), callback_data=command),
            InlineKeyboardButton("Cancel", callback_data=CANCEL)]]))

    async def remove_buttons(self, message_id: int) -> None:
        try:
            await telegram_call(lambda: self._bot.edit_message_reply_markup(
                self._chat_id, message_id, reply_markup=None))
        except BadRequest:  # gone already (pressed twice, or deleted): nothing to remove
            log.info("The buttons of message %s were gone already", message_id)

    async def edit(self, handle: Message, text: str) -> Message:
        try:
            result = await telegram_call(lambda: self._bot.edit_message_text(
                to_telegram_html(text), self._chat_id, handle.message_id,
                parse_mode=ParseMode.HTML))
        except BadRequest as error:
            if not _is_parse_error(error):
                return _unchanged(error, handle)
            try:
                result = await telegram_call(lambda: self._bot.edit_message_text(
                    text, self._chat_id, handle.message_id))
            except BadRequest as plain_error:
                return _unchanged(plain_error, handle)
        return result if isinstance(result, Message) else handle

    async def send_file(self, text: str, attachment: Attachment) -> None:
        document = InputFile(attachment.content, filename=attachment.filename)
        await telegram_call(lambda: self._bot.send_document(
            self._chat_id, document, caption=text, message_thread_id=self._thread_id))

    async def typing(self) -> None:
        await telegram_call(lambda: self._bot.send_chat_action(
            self._chat_id, ChatAction.TYPING, message_thread_id=self._thread_id))

    def message_key(self, handle: Message) -> str:
        return message_key(self._chat_id, handle.message_id)


def message_key(chat_id: int, message_id: int) -> str:
    return f"telegram:{chat_id}:{message_id}"


def _is_parse_error(error: BadRequest) -> bool:
    return "can't parse entities" in error.message.lower()


def _unchanged(error: BadRequest, handle: Message) -> Message:
    """Telegram refuses an edit that changes nothing visible (it trims trailing spaces, say):
    the message already reads right. Any other refusal is an error."""
    if "not modified" in error.message.lower():
        return handle
    raise error
