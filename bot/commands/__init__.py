"""Slash commands shared by every frontend."""

from bot.commands.layer import Commands, is_command, parse_command
from bot.commands.replies import Attachment, CommandReply, describe_recall

__all__ = ["Attachment", "CommandReply", "Commands", "describe_recall", "is_command",
           "parse_command"]
