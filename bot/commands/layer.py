"""One command layer for every frontend: parsing, help, authorization and replies, so a command
behaves the same in the terminal, on Telegram and on Discord."""

from __future__ import annotations

import logging
import shlex
from collections.abc import Awaitable, Callable

from bot.commands.admin import ADMIN_HELP, AdminCommands
from bot.commands.replies import CommandReply
from bot.commands.user import USER_HELP, UserCommands
from bot.core.access import AccessPolicy
from bot.core.fixes import DIALOGUE_COMMANDS
from bot.core.teaching import teach_command
from bot.core.turn_lock import TurnLock
from bot.errors import UserFacingError

log = logging.getLogger(__name__)

REFUSAL = "Sorry, /admin commands are only for this bot's admins."
# Commands that show or change someone's memories: never answered where others can read along.
PRIVATE_ONLY = frozenset({"memories", "topics", "facts", "forget", "export", "why", "admin",
                          "feedback", "teach", "taught", "share", "good", "bad", "checkins",
                          "timezone"})
PRIVATE_PLEASE = "For your privacy, /{name} only works in a private chat with me."

Handler = Callable[[str, list[str]], Awaitable[CommandReply]]


def is_command(text: str) -> bool:
    """A command this layer answers. `/correct` and `/wrong` are not: the dialogue answers
    them, since they change memories and answer a message again, streamed like any reply."""
    return text.lstrip().startswith("/") and parse_command(text)[0] not in DIALOGUE_COMMANDS


def parse_command(text: str) -> tuple[str, list[str]]:
    """`/name@botname arg "two words"` -> ("name", ["arg", "two words"])."""
    try:
        words = shlex.split(text.strip())
    except ValueError:  # an unbalanced quote: plain splitting is good enough
        words = text.strip().split()
    if not words:
        return "", []
    name = words[0].lstrip("/").split("@", 1)[0].lower()
    return name, words[1:]


class Commands:
    """Runs a slash command for one user and returns what to show them."""

    def __init__(
        self, turns: TurnLock, user: UserCommands, admin: AdminCommands, access: AccessPolicy
    ) -> None:
        self._turns = turns
        self._access = access
        self._admin = admin
        self._handlers: dict[str, Handler] = {
            "help": self._help,
            "start": self._help,  # what Telegram sends when someone opens the bot
            "persona": user.persona,
            "memories": user.memories,
            "topics": user.memories,
            "facts": user.facts,
            "forget": user.forget,
            "export": user.export,
            "why": user.why,
            "feedback": user.feedback,
            "teach": user.teach,
            "taught": user.taught,
            "share": user.share,
            "good": user.good,
            "bad": user.bad,
            "checkins": user.checkins,
            "timezone": user.timezone,
        }

    def knows(self, text: str) -> bool:
        """Whether `text` starts with one of our commands (groups may hold other bots' too)."""
        name, _ = parse_command(text)
        return name in self._handlers or name == "admin" or name in DIALOGUE_COMMANDS

    async def run(self, user_id: str, text: str, *, private: bool = True) -> CommandReply:
        """`private` is False in group chats and server channels, where others read along."""
        name, args = parse_command(text)
        if not private and name in PRIVATE_ONLY:
            return CommandReply(PRIVATE_PLEASE.format(name=name), failed=True)
        if name == "admin":
            return await self._run_admin(user_id, args)
        if name == "teach":  # the fact as typed: quotes are part of it
            args = [teach_command(text) or ""]
        handler = self._handlers.get(name)
        if handler is None:
            return CommandReply(f"Unknown command /{name}. Type /help for the list.",
                                failed=True)
        # In line with the user's messages: /forget never races a reply being written.
        async with self._turns.turn(user_id):
            try:
                return await handler(user_id, args)
            except UserFacingError as error:
                return CommandReply(str(error), failed=True)

    async def _run_admin(self, user_id: str, args: list[str]) -> CommandReply:
        if not self._access.is_admin(user_id):
            log.warning("Refused /admin %s from %s, who is not an admin", " ".join(args), user_id)
            return CommandReply(REFUSAL, failed=True)
        log.info("Admin %s ran /admin %s", user_id, " ".join(args))
        try:
            return await self._admin.run(args, user_id)
        except UserFacingError as error:
            return CommandReply(str(error), failed=True)

    async def _help(self, user_id: str, args: list[str]) -> CommandReply:
        if self._access.is_admin(user_id):
            return CommandReply(f"{USER_HELP}\n\n{ADMIN_HELP}")
        return CommandReply(USER_HELP)
