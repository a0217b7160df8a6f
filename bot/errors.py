"""The errors Companion raises: the one tree drawn in `memory.errors`, named here for the bot's
modules (the frontends, the commands and the command line catch from here). `ModelAnswered`, what a
model server answered, is the cause a `ModelUnavailable` keeps for `companion doctor`."""

from memory.errors import (
    CompanionError,
    ConfigError,
    InputRejected,
    ModelUnavailable,
    ServerProblem,
    UserFacingError,
)

__all__ = ["CompanionError", "ConfigError", "InputRejected", "ModelAnswered", "ModelUnavailable",
           "ServerProblem", "UserFacingError"]


class ModelAnswered(Exception):
    """The model server answered a request with an HTTP error: the cause of the
    `ModelUnavailable` a caller sees (`companion doctor` reads it)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
