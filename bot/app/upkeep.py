"""The memory jobs the settings ask for: the worker and its queue, the summarizer, the belief
judge, and the shared pool's scoring, retraining and growth."""

from __future__ import annotations

import os
import socket
import uuid
from datetime import timedelta

from bot.app.stores import Stores
from bot.settings import Settings
from jobs.beliefs.checks import BeliefChecker
from jobs.beliefs.judge import HeuristicJudge, Judge
from jobs.beliefs.model_judge import ModelJudge
from jobs.pool.growth import PoolGrowth
from jobs.pool.retraining import Retrainer
from jobs.pool.scoring import PoolScorer
from jobs.pool.upkeep import PoolRules, PoolUpkeep
from jobs.queue import JobQueue
from jobs.summarize.drafts import Summarizer
from jobs.summarize.extractive import ExtractiveSummarizer
from jobs.summarize.fallback import FallbackSummarizer
from jobs.summarize.labels import LabelResolver
from jobs.summarize.llm import LLMSummarizer
from jobs.summarize.work import SummaryWork
from jobs.summarize.writes import TopicWrites
from jobs.worker import Cadence, MemoryWorker
from memory.beliefs.belief import BeliefSettings
from memory.beliefs.values import ValueReader
from memory.protocols import ChatModel, Embedder
from personas.loader import Persona, Rubric


def build_pool_upkeep(settings: Settings, stores: Stores, model: ChatModel,
                      personas: dict[str, Persona], rubrics: dict[str, Rubric]) -> PoolUpkeep:
    return PoolUpkeep(
        pool=stores.pool, rounds=stores.rounds, personas=personas, rubrics=rubrics,
        scorer=build_pool_scorer(settings, model),
        retrainer=Retrainer(stores.pool, stores.retrievers,
                            by_domain=settings.sharing.scope == "domain"),
        rules=pool_rules(settings))


def build_growth(settings: Settings, stores: Stores, model: ChatModel,
                 personas: dict[str, Persona], rubrics: dict[str, Rubric]) -> PoolGrowth:
    return PoolGrowth(model=model, scorer=build_pool_scorer(settings, model), pool=stores.pool,
                      personas=personas, rubrics=rubrics, rules=pool_rules(settings),
                      timeout_seconds=settings.sharing.score_timeout_seconds)


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


def build_worker(settings: Settings, stores: Stores, model: ChatModel,
                 personas: dict[str, Persona], pool: PoolUpkeep | None = None) -> MemoryWorker:
    memory = settings.memory
    queue = JobQueue(
        stores.engine,
        worker_id=f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}",
        lease=timedelta(minutes=memory.lease_minutes),
        max_attempts=memory.max_attempts,
        retry_base=timedelta(seconds=memory.retry_seconds),
    )
    embedder = stores.embedder
    values = ValueReader(stores.english)
    beliefs = BeliefChecker(stores.beliefs, stores.facts, embedder,
                            build_judge(settings, model, values),
                            BeliefSettings(margin=settings.beliefs.margin,
                                           flipped_confidence=settings.beliefs.flipped_confidence),
                            stores.subjects, topics=stores.topics, values=values)
    summaries = SummaryWork(
        queue=queue,
        writes=TopicWrites(stores.engine, queue),
        topics=stores.topics,
        facts=stores.facts,
        summarizer=build_summarizer(settings, model, embedder),
        labels=LabelResolver(embedder, memory.label_similarity),
        personas=personas,
        default_persona=settings.chat.persona,
        user_name=settings.chat.user_name,
        merge_at=memory.merge_at,
    )
    return MemoryWorker(
        queue=queue,
        summaries=summaries,
        beliefs=beliefs,
        indexes=[stores.facts, stores.pool, stores.topics, stores.feedback],
        cadence=Cadence(memory.summarize_every, memory.merge_at),
        pool=pool,
        rounds=stores.rounds,
    )


def build_judge(settings: Settings, model: ChatModel, values: ValueReader) -> Judge:
    """`auto` asks the model only when it is not the bundled demo model (too small to judge)."""
    mode = settings.beliefs.judge
    if mode == "heuristic" or (mode == "auto" and settings.llm.is_demo):
        return HeuristicJudge(values)
    return ModelJudge(model, timeout_seconds=settings.beliefs.judge_timeout_seconds,
                      user_name=settings.chat.user_name)


def build_summarizer(settings: Settings, model: ChatModel, embedder: Embedder) -> Summarizer:
    """`auto` trusts the model only when it is not the bundled demo model (too small for this).
    What the demo model says is never a memory: it invents."""
    extractive = ExtractiveSummarizer(embedder, companion_facts=not settings.llm.is_demo)
    mode = settings.memory.summarizer
    if mode == "extractive" or (mode == "auto" and settings.llm.is_demo):
        return extractive
    llm = LLMSummarizer(model)
    return llm if mode == "llm" else FallbackSummarizer(llm, extractive)
