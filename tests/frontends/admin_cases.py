"""The admin commands every frontend must refuse to users and run for admins."""

from bot.commands.layer import REFUSAL

ADMIN_COMMANDS = [
    "/admin stats",
    "/admin topics telegram:43",
    "/admin turns telegram:43 5",
    "/admin jobs",
    "/admin summarize telegram:43",
    "/admin merge telegram:43",
    "/admin forget telegram:43 all",
]

__all__ = ["ADMIN_COMMANDS", "REFUSAL"]
