"""The composition root: the one place that picks concrete backends from the settings.

`open_companion(settings)` opens the stores (`stores.py`), the models (`models.py`) and the
memory jobs (`upkeep.py`), wires the dialogue core and the commands over them, and closes
everything when its block ends.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.app.models import build_chat_model, build_embedder
from bot.app.stores import Stores, build_recaller, open_stores, pool_examples
from bot.app.upkeep import build_growth, build_pool_upkeep, build_worker
from bot.blas import compute_in_calling_threads
from bot.commands.admin import AdminCommands
from bot.commands.forgetting import UserMemories
from bot.commands.layer import Commands
from bot.commands.user import UserCommands
from bot.core.access import AccessPolicy
from bot.core.checkins import CheckIns
from bot.core.corrections import Corrections
from bot.core.demo_prompt import DEMO_PROMPT
from bot.core.dialogue import Dialogue
from bot.core.fixes import Fixes
from bot.core.ingest import Imported, store_exchanges
from bot.core.memory_note import MemoryNotes
from bot.core.persona_choice import PersonaChoice
from bot.core.prompt import PAPER_PROMPT, PromptStyle
from bot.core.sharing import Sharing
from bot.core.teaching import Teaching
from bot.core.turn_lock import TurnLock
from bot.errors import ConfigError
from bot.frontends.desk import FrontDesk
from bot.settings import LLMSettings, Settings
from jobs.pool.growth import PoolGrowth
from jobs.pool.upkeep import PoolUpkeep
from jobs.scheduler import SweepScheduler
from jobs.worker import MemoryWorker, SweepReport
from memory.beliefs.rows import SQLBeliefRows
from memory.errors import EmbeddingUnavailable, VectorStoreUnavailable
from memory.facts.provisional import ProvisionalFacts
from memory.facts.store import FactStore
from memory.feedback.store import FeedbackMemory
from memory.plans.checkin_rows import SQLCheckinRows
from memory.plans.finder import PlanFinder
from memory.plans.gate import PlanGate
from memory.plans.plans import Plans
from memory.pool.examples import PoolExamples
from memory.pool.scrub import Scrubber
from memory.protocols import ChatMessage, ChatModel, Embedder
from memory.provenance import ReplyUses
from memory.recall import Recaller
from memory.relevance import Relevance
from memory.retraction import Retractions
from memory.sql.message_counts import SQLMessageCounts
from memory.sql.rounds import SQLRoundStore
from memory.sql.stats import memory_stats
from memory.sql.user_export import UserExport
from memory.sql.user_turns import SQLUserTurns
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

__all__ = ["Companion", "build_chat_model", "build_embedder", "open_companion"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Companion:
    """Everything a frontend, a script or a benchmark needs, wired from one `Settings`."""

    settings: Settings
    dialogue: Dialogue
    commands: Commands
    desk: FrontDesk
    access: AccessPolicy
    personas: PersonaChoice
    turns: TurnLock
    recall: Recaller
    uses: ReplyUses
    rounds: SQLRoundStore
    topics: IndexedTopicStore
    facts: FactStore
    provisional: ProvisionalFacts
    relevance: Relevance
    feedback: FeedbackMemory
    beliefs: SQLBeliefRows
    embedder: Embedder
    model: ChatModel
    worker: MemoryWorker
    sharing: Sharing
    pool: PoolUpkeep
    examples: PoolExamples
    growth: PoolGrowth
    checkins: CheckIns

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
        persona = await self.personas.of(user_id)
        imported = await store_exchanges(self.rounds, user_id, persona.name, exchanges,
                                         progress=progress)
        if not run_jobs:
            return imported, None
        report = await self.worker.upkeep(user_id)
        # The rounds no window covers yet are found at once, as in a chat.
        await self.provisional.keep(await self.rounds.unsummarized(user_id))
        return imported, report


def _now() -> datetime:
    return datetime.now(UTC)


@asynccontextmanager
async def open_companion(
    settings: Settings, *, model: ChatModel | None = None, sweep: bool = False,
    scrubber: Scrubber | None = None, clock: Callable[[], datetime] = _now,
) -> AsyncIterator[Companion]:
    """Open the stores and the model; everything is closed when the block ends.

    `model` replaces the configured chat model (benchmarks time memory work without generation).
    `sweep` starts the periodic memory sweep, for long-running processes (the chat, the bots).
    `scrubber` is one already loaded (a process that opens many companions, such as the tests).
    `clock` is what the dialogue takes for now (today's date, plans due).
    Raises `ConfigError`, naming the setting, when a store or model cannot be opened.
    """
    compute_in_calling_threads()
    async with AsyncExitStack() as stack:
        personas = _personas(settings.personas_dir, settings.chat.persona)
        rubrics = _rubrics(settings.personas_dir, personas)
        stores = await open_stores(settings, stack, scrubber)
        # The bundled demo model gets its short prompt; a model handed in gets the paper's.
        prompt = DEMO_PROMPT if model is None and settings.llm.is_demo else PAPER_PROMPT
        speakers = [*(p.display_name for p in personas.values()), settings.chat.user_name]
        model = model or build_chat_model(settings.llm, speakers=speakers)
        stack.push_async_callback(model.aclose)
        pool = build_pool_upkeep(settings, stores, model, personas, rubrics)
        worker = build_worker(settings, stores, model, personas, pool)
        stack.push_async_callback(worker.aclose)
        if sweep:
            scheduler = SweepScheduler(worker, settings.sql_url, settings.memory.sweep_minutes)
            scheduler.start()
            stack.callback(scheduler.stop)
        await pool.add_examples()
        if stores.switched:
            await _index_again(worker, stores.embedder.name)
        examples = pool_examples(settings, stores, [p.domain for p in personas.values()])
        recall = build_recaller(settings, stores, examples, short_prompt=prompt.short)
        yield _wired(settings, stores, model, worker, pool, examples, recall, personas,
                     rubrics, prompt, clock)


def _shows_memory(setting: str, prompt: PromptStyle) -> bool:
    """`chat.show_memory`: "demo" shows it with the bundled demo model (its short prompt)."""
    return setting == "on" or (setting == "demo" and prompt.short)


def _plans(stores: Stores, settings: Settings) -> Plans:
    """Plans found by the rules, and looked at again by the learned gate when the embedder is
    the one it was trained with (the packaged MiniLM, the default); their days are the days
    where each person is (/timezone, else `checkins.timezone`)."""
    gate = PlanGate(stores.embedder) if PlanGate.fits(stores.embedder) else None
    return Plans(stores.plans, PlanFinder(stores.english), gate,
                 default_zone=settings.checkins.timezone)


def _wired(settings: Settings, stores: Stores, model: ChatModel, worker: MemoryWorker,
           pool: PoolUpkeep, examples: PoolExamples, recall: Recaller,
           personas: dict[str, Persona], rubrics: dict[str, Rubric], prompt: PromptStyle,
           clock: Callable[[], datetime]) -> Companion:
    """The dialogue core and the commands over opened stores, models and jobs."""
    shared = stores.shared_by_processes
    confirms = _confirms_corrections(settings.feedback.confirm_with_model, settings.llm)
    choice = PersonaChoice(personas, settings.chat.persona, stores.profiles)
    turns = TurnLock(SQLUserTurns(stores.autocommit) if shared else None)
    teaching = Teaching(stores.facts, model, confirm=confirms, on_taught=worker.beliefs_added)
    retractions = Retractions(stores.topics, stores.facts, stores.feedback)
    corrections = Corrections(stores.feedback, stores.rounds, model, confirm=confirms,
                              share_with_everyone=settings.feedback.share_with_everyone)
    fixes = Fixes(corrections=corrections, retractions=retractions, teaching=teaching,
                  uses=stores.uses, recall=recall)
    provisional = ProvisionalFacts(stores.facts)
    dialogue = Dialogue(
        rounds=stores.rounds, recall=recall, personas=choice, model=model,
        prompt=prompt, fixes=fixes, teaching=teaching,
        chat=settings.chat, turns=turns, provisional=provisional, upkeep=worker,
        notes=(MemoryNotes(stores.answers, stores.rounds)
               if _shows_memory(settings.chat.show_memory, prompt) else None),
        plans=_plans(stores, settings), clock=clock)
    sharing = Sharing(stores.pool, stores.rounds, personas, worker)
    access = AccessPolicy.from_settings(
        settings, SQLMessageCounts(stores.engine) if shared else None)
    checkins = CheckIns(plans=stores.plans, choices=SQLCheckinRows(stores.engine),
                        rounds=stores.rounds, personas=choice, turns=turns,
                        settings=settings.checkins, clock=clock)
    memories = UserMemories(stores.rounds, stores.topics, stores.facts, stores.feedback,
                            stores.pool, stores.plans, checkins.choices)
    commands = Commands(
        turns,
        UserCommands(personas=choice, uses=stores.uses, memories=memories,
                     exports=UserExport(stores.engine), teaching=teaching,
                     retractions=retractions, beliefs=stores.beliefs, sharing=sharing,
                     checkins=settings.checkins),
        AdminCommands(turns=turns, memories=memories, beliefs=stores.beliefs, worker=worker,
                      stats=lambda: memory_stats(stores.engine), sharing=sharing,
                      retrievers=stores.retrievers),
        access,
    )
    return Companion(
        settings=settings, dialogue=dialogue, commands=commands,
        desk=FrontDesk(dialogue, commands, access, sharing), access=access,
        personas=choice, turns=turns, recall=recall, uses=stores.uses, rounds=stores.rounds,
        topics=stores.topics, facts=stores.facts, provisional=provisional,
        relevance=stores.relevance,
        feedback=stores.feedback, beliefs=stores.beliefs, embedder=stores.embedder,
        model=model, worker=worker, sharing=sharing, pool=pool, examples=examples,
        growth=build_growth(settings, stores, model, personas, rubrics), checkins=checkins,
    )


async def _index_again(worker: MemoryWorker, embedder: str) -> None:
    """After a change of embedding model: index every memory with the new model now, so the
    first replies find them; what fails here (the embedder or vector store down) stays marked
    and the sweep retries it."""
    try:
        count = await worker.reindex()
    except (EmbeddingUnavailable, VectorStoreUnavailable) as error:
        log.warning("Indexing with %s is left to the sweep: %s", embedder, error)
    else:
        log.warning("Indexed %d memories with %s", count, embedder)


def _confirms_corrections(mode: str, settings: LLMSettings) -> bool:
    return mode == "always" or (mode == "auto" and not settings.is_demo)


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
