"""Every error Companion raises on purpose, in one tree (httpx's habit):

    CompanionError                 the base: catch it to catch anything of ours
    ├── UserFacingError            its message can be shown to a person as it is
    │   ├── ConfigError            a setting is wrong or a store cannot be opened; names the setting
    │   ├── InputRejected          a message cannot be taken (empty, too long); nothing was stored
    │   ├── ServerProblem          `companion setup`: a model server did not do what was asked
    │   └── ModelUnavailable  ─┐   the chat model cannot be reached, or failed to answer
    ├── ProviderError  ────────┘   a model provider (chat or embeddings) failed; worth a retry
    │   ├── EmbeddingUnavailable   the embedder cannot make vectors now
    │   └── UnusableAnswer         the model answered with nothing a job could use
    ├── StorageError               a store cannot be reached; worth a retry
    │   └── VectorStoreUnavailable the vector store (a chroma server) is away
    └── JobConflict                a memory job's claim or its rows changed under it; it
                                   committed nothing (the job queue's own business)

The frontends catch at one boundary, the front desk (and the command line at its own): a
`UserFacingError` is shown as it is, anything else as one line that says something went wrong,
with the trace in the log. Background jobs retry `ProviderError` and `StorageError` later.
SQL errors stay SQLAlchemy's: `memory.sql.failures` says which ones mean the database is away.

This module sits in `memory/`, the lowest layer, so that memory, the jobs and the bot raise and
catch the same classes; `bot.errors` is the same tree for the bot's modules.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every error Companion raises on purpose."""


class UserFacingError(CompanionError):
    """An error whose message can be shown to the user as it is."""


class ConfigError(UserFacingError):
    """The configuration is invalid, or a store it names cannot be opened; the message names
    the setting."""


class InputRejected(UserFacingError):
    """The message cannot be accepted (empty, too long); nothing was stored."""


class ServerProblem(UserFacingError):
    """A model server or a model did not do what `companion setup` asked; the message says what,
    for a person."""


class ProviderError(CompanionError):
    """A model provider (the chat model, the embedder) failed; a later attempt may succeed."""


class ModelUnavailable(ProviderError, UserFacingError):
    """The language model could not be reached or failed to answer."""


class EmbeddingUnavailable(ProviderError):
    """An embedder could not produce vectors (an endpoint down or failing)."""


class UnusableAnswer(ProviderError):
    """The model answered, but with nothing a memory job could use (a summary without topics,
    a verdict or a score that cannot be read)."""


class StorageError(CompanionError):
    """A store cannot be reached; a later attempt may succeed."""


class VectorStoreUnavailable(StorageError):
    """The vector store cannot be reached (a chroma server stopped or restarting)."""


class JobConflict(CompanionError):
    """A memory job lost its claim, or its rounds or topics changed under it: nothing of it was
    committed, and there may be nothing left for it to do."""
