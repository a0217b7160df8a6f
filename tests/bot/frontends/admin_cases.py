"""The admin commands every frontend must refuse to users and run for admins, with a piece of
what an admin sees."""

from bot.commands.layer import REFUSAL

ADMIN_COMMANDS = {
    "/admin stats": "Users: ",
    "/admin topics telegram:43": "telegram:43",
    "/admin turns telegram:43 5": "telegram:43",
    "/admin jobs": "memory jobs",
    "/admin summarize telegram:43": "telegram:43: summarized",
    "/admin merge telegram:43": "telegram:43: summarized",
    "/admin forget telegram:43 all": "telegram:43: Forgotten",
}

__all__ = ["ADMIN_COMMANDS", "REFUSAL"]
