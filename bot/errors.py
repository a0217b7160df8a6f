"""The errors Companion raises: the one tree drawn in `memory.errors`, named here for the bot's
modules (the frontends, the commands and the command line catch from here)."""

from memory.errors import (
    CompanionError,
    ConfigError,
    InputRejected,
    ModelUnavailable,
    ServerProblem,
    UserFacingError,
)

__all__ = ["CompanionError", "ConfigError", "InputRejected", "ModelUnavailable",
           "ServerProblem", "UserFacingError"]
