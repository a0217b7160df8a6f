"""Following a change of the embedding model: each model has its own collections, so after a
switch the new model's are built from SQL (the record of every memory) and the old model's are
dropped. Nothing is lost: SQL is never touched beyond the `indexed` flags."""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncEngine

from memory.index.chroma import IndexNames, drop_indexes
from memory.index.collections import Collections
from memory.index.model_rows import SQLIndexModel

log = logging.getLogger(__name__)


async def adopt_embedder(engine: AsyncEngine, collections: Collections, collection: str,
                         embedder: str) -> bool:
    """True when the embedding model changed since the indexes were built: both models'
    collections are then dropped (the old one would keep what was forgotten meanwhile, the new
    one what was forgotten before) and every row is marked to be indexed again."""
    previous = await SQLIndexModel(engine).adopt(embedder)
    if previous is None:
        return False
    dropped = await drop_indexes(collections, [IndexNames.of(collection, previous),
                                               IndexNames.of(collection, embedder)])
    log.warning("The embedding model changed from %s to %s: dropped %d collections; every "
                "memory is indexed again", previous, embedder, dropped)
    return True
