"""Writing a chosen model into the settings file, keeping every comment and other setting.

Only names go into the file: an API key stays in the environment, and the file says which
variable holds it (`api_key_env`).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import tomlkit
from tomlkit.items import Table

from bot.settings import load_settings

NEW_FILE_HEADER = (
    "# Companion's settings, written by `companion setup`. Every setting and its default is\n"
    "# documented in the project's config.toml. Secrets (API keys, bot tokens) never go here.\n"
)


@dataclass(frozen=True)
class ModelChoice:
    """What `companion setup` settled on. Empty `base_url`: the bundled demo model."""

    base_url: str = ""
    chat_model: str = ""
    key_env: str = ""  # the environment variable that holds the key, when one is needed
    embedding_model: str = ""  # empty: the embedding settings are left as they are

    @property
    def is_demo(self) -> bool:
        return not self.base_url


def write_choice(path: Path, choice: ModelChoice) -> None:
    """Put `choice` into the settings file at `path` (created if missing), atomically.

    The new text is checked as settings before it replaces the old file, so a failure leaves
    the file as it was.
    """
    old = path.read_text(encoding="utf-8") if path.exists() else NEW_FILE_HEADER
    document = tomlkit.parse(old)
    _set(document, "llm", _llm_values(choice))
    if choice.embedding_model:
        _set(document, "embeddings", {"provider": "openai", "base_url": choice.base_url,
                                      "model": choice.embedding_model,
                                      "api_key_env": choice.key_env or "OPENAI_API_KEY"})
    # "auto" follows the chat model: it summarizes (quoting the user's own sentences when its
    # answer is unusable), unless it is the demo model, which only quotes.
    _set(document, "memory", {"summarizer": "auto"})
    _replace_checked(path, tomlkit.dumps(document))


def _llm_values(choice: ModelChoice) -> dict[str, str]:
    if choice.is_demo:
        return {"provider": "local"}
    values = {"provider": "openai", "base_url": choice.base_url, "model": choice.chat_model}
    if choice.key_env:
        values["api_key_env"] = choice.key_env
    return values


def _set(document: tomlkit.TOMLDocument, section: str, values: dict[str, str]) -> None:
    table = document.get(section)
    if not isinstance(table, Table):
        table = tomlkit.table()
        document[section] = table
    for key, value in values.items():
        table[key] = value  # an existing key keeps its place and the comments around it


def _replace_checked(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        load_settings(Path(temporary))  # raises ConfigError, naming the setting
        # mkstemp makes the file private; keep the old file's mode, or the usual one.
        os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
