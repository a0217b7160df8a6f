"""Setting `[vector] url` switches to chroma's server mode with nothing else changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.stores import Stores
from bot.settings import Settings
from tests.conftest import make_settings, search_topics


@pytest.fixture
def store_settings(tmp_path: Path, sql_url: str, chroma_url: str) -> Settings:
    """The stores' settings, with the vectors on the session's chroma server."""
    return make_settings(tmp_path, None, sql_url, vector={"url": chroma_url})


async def test_topics_live_on_the_chroma_server(stores: Stores, tmp_path: Path) -> None:
    await stores.topics.add_topic("ana", "hobbies", "The host plays table tennis every week.")
    await stores.topics.add_topic("ben", "hobbies", "The host plays the drums in a band.")
    found = await search_topics(stores, "ana", "Which sport do I play?")
    assert [s.topic.description for s in found] == ["The host plays table tennis every week."]
    assert await stores.topics.forget("ana") == 1
    assert await search_topics(stores, "ana", "Which sport do I play?") == []
    assert len(await search_topics(stores, "ben", "drums")) == 1
    assert not (tmp_path / "data" / "chroma").exists()  # nothing was embedded locally
