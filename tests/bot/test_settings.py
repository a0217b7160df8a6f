"""Settings: config.toml documents every default; the environment overrides; errors name the
setting."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from bot.errors import ConfigError
from bot.settings import Settings, load_settings

CONFIG = Path(__file__).parents[2] / "config.toml"


def _flatten(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _defaults(model: type[BaseModel], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            flat.update(_defaults(annotation, f"{prefix}{name}."))
        else:
            # TOML has arrays where the settings keep immutable tuples.
            default = field.default
            flat[f"{prefix}{name}"] = list(default) if isinstance(default, tuple) else default
    return flat


def test_config_toml_documents_every_setting_with_its_default() -> None:
    documented = _flatten(tomllib.loads(CONFIG.read_text()))
    defaults = {k: ("" if v is None else v) for k, v in _defaults(Settings).items()}
    assert documented == defaults
    assert load_settings(CONFIG) == Settings()


def test_environment_overrides_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[chat]\nrecency_rounds = 9\nlatest_topics = 2\n")
    monkeypatch.setenv("COMPANION_CHAT__RECENCY_ROUNDS", "7")
    monkeypatch.setenv("COMPANION_DATA_DIR", "/tmp/elsewhere")
    settings = load_settings(config)
    assert settings.chat.recency_rounds == 7
    assert settings.chat.latest_topics == 2  # the rest of the section still comes from the file
    assert settings.resolved_data_dir == Path("/tmp/elsewhere")
    assert settings.sql_url == "sqlite+aiosqlite:////tmp/elsewhere/companion.db"


def test_invalid_value_names_the_setting(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[chat]\nrecency_rounds = -1\n")
    with pytest.raises(ConfigError, match=r"'chat\.recency_rounds' \(COMPANION_CHAT__RECENCY"):
        load_settings(config)


def test_invalid_environment_value_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_LLM__PROVIDER", "skynet")
    with pytest.raises(ConfigError, match=r"'llm\.provider'"):
        load_settings(None)


def test_an_embedding_provider_is_refused_as_the_chat_model(tmp_path: Path) -> None:
    """"e5" names an embedding model: as `llm.provider` it once ran llama.cpp silently."""
    config = tmp_path / "config.toml"
    config.write_text('[llm]\nprovider = "e5"\n')
    with pytest.raises(ConfigError, match=r"'llm\.provider' \(COMPANION_LLM__PROVIDER\).*"
                                          r"'local' or 'openai'"):
        load_settings(config)
    assert load_settings(None, embeddings={"provider": "e5"}).embeddings.provider == "e5"


def test_unknown_setting_is_reported(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[chat]\nrecency_round = 10\n")
    with pytest.raises(ConfigError, match=r"'chat\.recency_round'.*unknown setting"):
        load_settings(config)


def test_broken_toml_and_missing_file_are_reported(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[chat\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(config)
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "missing.toml")


def test_settings_cannot_be_changed_after_start() -> None:
    settings = Settings()
    with pytest.raises(ValueError, match="frozen"):
        settings.user = "someone"  # type: ignore[misc]


def test_data_dir_defaults_to_the_xdg_data_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert Settings().resolved_data_dir == tmp_path / "companion"
