"""The errors Companion raises. A `UserFacingError` carries a message fit to show a user."""


class CompanionError(Exception):
    """Base of every error Companion raises on purpose."""


class UserFacingError(CompanionError):
    """An error whose message can be shown to the user as it is."""


class ConfigError(UserFacingError):
    """The configuration is invalid; the message names the setting."""


class InputRejected(UserFacingError):
    """The message cannot be accepted (empty, too long); nothing was stored."""


class ModelUnavailable(UserFacingError):
    """The language model could not be reached or failed to answer."""
