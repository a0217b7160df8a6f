"""The memory stores the settings name: SQL (SQLite or MySQL/MariaDB, migrated), the vector
index (embedded chromadb or a chroma server), the embedder, and every kind of memory on them."""

from __future__ import annotations

import asyncio
import functools
import logging
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.app.models import build_embedder
from bot.app.scrubbing import packaged_scrubber
from bot.core.prompt import memory_line
from bot.database import open_autocommit, open_database
from bot.errors import ConfigError
from bot.settings import Settings
from memory.answers import Answers
from memory.asking import AskingGate
from memory.beliefs.rows import SQLBeliefRows
from memory.beliefs.subjects import Subjects
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.english import English
from memory.errors import VectorStoreUnavailable
from memory.facts.rows import SQLFactRows
from memory.facts.store import FactStore
from memory.feedback.rows import SQLFeedbackRows
from memory.feedback.store import FeedbackMemory, LookupSettings
from memory.index.chroma import ChromaIndex, IndexNames, open_collections
from memory.index.collections import Collections
from memory.index.switch import adopt_embedder
from memory.life_parts import LifeParts
from memory.places import Places
from memory.plans.rows import SQLPlanRows
from memory.pool.examples import PoolExamples
from memory.pool.retriever_rows import SQLRetrieverRows
from memory.pool.rows import SQLPoolRows
from memory.pool.scrub import Scrubber
from memory.pool.store import SharedPool
from memory.protocols import Embedder
from memory.provenance import ReplyUses
from memory.recall import Recaller, RecallSettings
from memory.relevance import Relevance, RelevancePlan
from memory.sql.profiles import SQLProfileStore
from memory.sql.rounds import SQLRoundStore
from memory.tokens import WordPieceCounter
from memory.topics.rows import SQLTopicRows
from memory.topics.store import IndexedTopicStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stores:
    """Every memory store of one companion. SQL is the record; the vector index is rebuilt
    from it when the embedder changes (`switched`)."""

    engine: AsyncEngine
    # For statements that need no transaction (`open_autocommit_engine`); `engine` itself for
    # an in-memory SQLite database.
    autocommit: AsyncEngine
    embedder: Embedder
    rounds: SQLRoundStore
    profiles: SQLProfileStore
    topics: IndexedTopicStore
    facts: FactStore
    feedback: FeedbackMemory
    beliefs: SQLBeliefRows
    pool: SharedPool
    retrievers: SQLRetrieverRows
    uses: ReplyUses
    plans: SQLPlanRows
    # spaCy's English model, loaded at its first use and shared (beliefs' values, plans).
    english: English
    relevance: Relevance
    subjects: Subjects  # what a statement or a message is about, by meaning
    answers: Answers  # which statement answers a question about the person
    switched: bool  # the embedding model changed since the indexes were built

    @property
    def shared_by_processes(self) -> bool:
        """Several bot processes share a MySQL/MariaDB database; a SQLite file serves one."""
        return self.engine.dialect.name in {"mysql", "mariadb"}


async def open_stores(settings: Settings, stack: AsyncExitStack,
                      scrubber: Scrubber | None = None) -> Stores:
    """Open SQL (migrated), the embedder and the vector index, closed when `stack` closes.
    `scrubber`: one already loaded (the pool loads Presidio at its first text otherwise).
    Raises `ConfigError`, naming the setting, when one cannot be opened."""
    data_dir = settings.resolved_data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    engine = await open_database(settings, stack)
    autocommit = open_autocommit(settings, stack)
    embedder = await _open_embedder(settings, stack)
    vectors = await _open_vector_collections(settings, data_dir)
    stack.push_async_callback(vectors.close)
    names = IndexNames.of(settings.vector.collection, embedder.name)
    switched = await adopt_embedder(engine, vectors, settings.vector.collection, embedder.name)
    topics = IndexedTopicStore(SQLTopicRows(engine, autocommit), ChromaIndex(vectors, names.topics),
                               embedder)
    subjects = Subjects(embedder)
    facts = FactStore(SQLFactRows(engine, autocommit), ChromaIndex(vectors, names.facts),
                      ChromaIndex(vectors, names.taught), embedder, subjects)
    rounds = SQLRoundStore(engine, autocommit)
    life_parts, asking = LifeParts.packaged(), AskingGate()
    answers = Answers(embedder, subjects, Places(),
                      life_parts if life_parts.fits(embedder) else None,
                      asking if asking.fits(embedder) else None)
    plans = SQLPlanRows(engine)
    return Stores(
        engine=engine, autocommit=autocommit or engine, embedder=embedder, rounds=rounds,
        profiles=SQLProfileStore(engine),
        topics=topics, facts=facts,
        feedback=_feedback_memory(settings, engine, autocommit,
                                  ChromaIndex(vectors, names.feedback), embedder),
        beliefs=SQLBeliefRows(engine, flipped_confidence=settings.beliefs.flipped_confidence,
                              autocommit=autocommit),
        pool=SharedPool(SQLPoolRows(engine, autocommit), ChromaIndex(vectors, names.pool), embedder,
                        scrubber or packaged_scrubber(embedder)),
        retrievers=SQLRetrieverRows(engine, autocommit),
        uses=ReplyUses(rounds, SQLTopicRows(engine, autocommit), SQLFactRows(engine, autocommit),
                       SQLFeedbackRows(engine, autocommit), SQLPoolRows(engine, autocommit),
                       plans),
        plans=plans,
        english=English(),
        relevance=await _relevance(settings, topics, facts, subjects, answers),
        subjects=subjects,
        answers=answers,
        switched=switched,
    )


def pool_examples(settings: Settings, stores: Stores, domains: list[str]) -> PoolExamples:
    """The shared pool's examples for a prompt; `domains`: the personas'."""
    sharing = settings.sharing
    return PoolExamples(stores.pool, stores.retrievers, scope=sharing.scope,
                        count=sharing.examples, domains=domains)


def build_recaller(settings: Settings, stores: Stores, examples: PoolExamples | None, *,
                   short_prompt: bool = False) -> Recaller:
    """The recall step over `stores`. `short_prompt`: the demo model's prompt, which holds
    fewer kinds of memory."""
    chat = settings.chat
    return Recaller(
        rounds=stores.rounds, topics=stores.topics, relevance=stores.relevance,
        feedback=stores.feedback, examples=examples, beliefs=stores.beliefs,
        embedder=stores.embedder,
        settings=RecallSettings(
            recency_rounds=chat.recency_rounds, recency_max_chars=chat.recency_max_chars,
            latest_topics=chat.latest_topics, min_readable=settings.embeddings.min_readable,
            short_prompt=short_prompt))


async def _relevance(settings: Settings, topics: IndexedTopicStore, facts: FactStore,
                     subjects: Subjects, answers: Answers) -> Relevance:
    chat = settings.chat
    counter = await asyncio.to_thread(WordPieceCounter, minilm_tokenizer_file())
    plan = RelevancePlan(mode=chat.relevance, tokens=chat.relevance_tokens,
                         topics=chat.relevance_topics, floor=chat.relevance_floor)
    line = functools.partial(memory_line, user_name=chat.user_name)
    return Relevance(topics, facts, counter, line, plan, subjects, answers)


def _feedback_memory(settings: Settings, engine: AsyncEngine, autocommit: AsyncEngine | None,
                     index: ChromaIndex,
                     embedder: Embedder) -> FeedbackMemory:
    chosen = settings.feedback
    return FeedbackMemory(
        SQLFeedbackRows(engine, autocommit), index, embedder,
        LookupSettings(
            similarity=chosen.similarity,
            wording_similarity=chosen.wording_similarity,
            wording_max_words=chosen.wording_max_words,
            max_clarifications=chosen.max_clarifications,
        ),
    )


async def _open_embedder(settings: Settings, stack: AsyncExitStack) -> Embedder:
    try:
        embedder = await asyncio.to_thread(build_embedder, settings.embeddings)
    except FileNotFoundError as error:
        raise ConfigError(f"The embedding model is missing: {error}") from error
    stack.push_async_callback(embedder.aclose)
    return embedder


async def _open_vector_collections(settings: Settings, data_dir: Path) -> Collections:
    try:
        return await open_collections(settings.vector.url, data_dir)
    except (ValueError, OSError, VectorStoreUnavailable) as error:
        if settings.vector.url:
            raise ConfigError(
                f"Cannot reach the chroma server of setting 'vector.url' "
                f"({settings.vector.url}): {error}"
            ) from error
        raise ConfigError(f"Cannot open the vector store in {data_dir}: {error}") from error
