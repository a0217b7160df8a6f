"""Opening a companion (the composition root): what cannot be built is refused at start, naming
the setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import build_chat_model, build_embedder, open_companion
from bot.errors import ConfigError
from bot.settings import load_settings


def test_openai_without_a_key_fails_at_start_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = load_settings(None, llm={"provider": "openai"})
    with pytest.raises(ConfigError, match=r"OPENAI_API_KEY.*'llm\.api_key_env'"):
        build_chat_model(settings.llm)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert build_chat_model(settings.llm).name == "gpt-4o-mini"


async def test_an_unknown_default_persona_is_named_at_start(tmp_path: Path) -> None:
    settings = load_settings(None, data_dir=str(tmp_path), chat={"persona": "pirate"})
    with pytest.raises(ConfigError, match=r"'chat\.persona': no persona named 'pirate'"):
        async with open_companion(settings):
            pass


def test_an_embedding_model_that_cannot_be_prepared_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    with pytest.raises(ConfigError, match=r"embedding model could not be prepared.*cache"):
        build_embedder(load_settings(None).embeddings)
