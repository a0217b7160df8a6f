"""Growing the pool by interactive learning (the paper's section 3.3): personas ask each other
questions of their domains, answer them with the pool's examples in their prompt, and the
scorer keeps the good exchanges as candidates (shared at once in "auto" mode). Needs a capable
model: it writes the questions, the answers and the scores."""

from __future__ import annotations

from dataclasses import dataclass, field

from jobs.pool.scoring import PoolScorer, ScoreUnusable
from jobs.pool.upkeep import PoolRules
from memory.errors import ModelUnavailable, UserFacingError
from memory.model_calls import complete
from memory.pool.examples import examples_section
from memory.pool.store import SharedPool, entry_id
from memory.protocols import ChatMessage, ChatModel
from memory.types import PoolEntry, PoolStatus
from personas.loader import Persona, Rubric

QUESTION = """You are {asker}. Write one request that a person might send to {answerer}, who \
helps with {domain}: a request of the kind "{kind}". Make it different from these earlier ones:
{earlier}
Reply with the request only, in one or two sentences, as the person would type it."""
EXAMPLES_SHOWN = 2
NEEDS_A_MODEL = ("Growing the pool needs a capable model to write, answer and score questions "
                 "(the bundled demo model is too small): set llm.provider and llm.model, and "
                 "keep sharing.scorer on \"auto\" or \"model\".")


@dataclass
class Growth:
    asked: int = 0
    kept: int = 0  # became candidates (or shared, in "auto" mode)
    low: int = 0  # scored under the threshold
    unusable: int = 0  # the model's question, answer or score could not be used
    lines: list[str] = field(default_factory=list)


class PoolGrowth:
    def __init__(self, *, model: ChatModel, scorer: PoolScorer | None, pool: SharedPool,
                 personas: dict[str, Persona], rubrics: dict[str, Rubric], rules: PoolRules,
                 timeout_seconds: float) -> None:
        self._model = model
        self._scorer = scorer
        self._pool = pool
        self._personas = [p for p in personas.values() if p.domain in rubrics]
        self._rubrics = rubrics
        self._rules = rules
        self._timeout = timeout_seconds

    async def grow(self, rounds: int) -> Growth:
        """`rounds` exchanges: each persona in turn answers a question another one asks, of
        each kind of its domain in turn."""
        if self._scorer is None or not self._personas:
            raise UserFacingError(NEEDS_A_MODEL)
        growth = Growth()
        for number in range(rounds):
            answerer = self._personas[number % len(self._personas)]
            asker = self._personas[(number + 1) % len(self._personas)]
            rubric = self._rubrics[answerer.domain]
            kind = rubric.kinds[(number // len(self._personas)) % len(rubric.kinds)]
            growth.asked += 1
            try:
                await self._one(asker, answerer, rubric, kind, number, growth)
            except (ModelUnavailable, ScoreUnusable) as error:
                growth.unusable += 1
                growth.lines.append(f"{answerer.name}/{kind}: nothing kept ({error})")
        return growth

    async def _one(self, asker: Persona, answerer: Persona, rubric: Rubric, kind: str,
                   number: int, growth: Growth) -> None:
        assert self._scorer is not None
        shown = await self._pool.rows.shared_of(answerer.domain, kind, EXAMPLES_SHOWN)
        question = (await self._ask([{"role": "user", "content": QUESTION.format(
            asker=asker.display_name, answerer=answerer.display_name, domain=answerer.domain,
            kind=kind, earlier="\n".join(f"- {e.prompt}" for e in shown) or "- (none yet)",
        )}])).strip().strip('"')
        system = "\n".join([answerer.role_prompt.strip(), *examples_section(shown),
                            f"Style: {answerer.style_notes.strip()}"])
        answer = (await self._ask([{"role": "system", "content": system},
                                   {"role": "user", "content": question}])).strip()
        if not question or not answer:
            raise ModelUnavailable("the model wrote an empty question or answer")
        score = await self._scorer.score(rubric, question, answer)
        if score.score < self._rules.threshold:
            growth.low += 1
            growth.lines.append(f"{answerer.name}/{kind}: scored {score.score}, not kept")
            return
        auto = self._rules.mode == "auto"
        entry = await self._pool.add(PoolEntry(
            id=entry_id("grown", answerer.name, question), prompt=question, answer=answer,
            persona=answerer.name, domain=answerer.domain, kind=score.kind,
            status=PoolStatus.SHARED if auto else PoolStatus.CANDIDATE, source="grown",
            score=score.score, rubric_version=score.rubric_version))
        growth.kept += 1
        growth.lines.append(f"{answerer.name}/{score.kind}: scored {score.score}, "
                            f"{entry.status.value} [{entry.id[:8]}]")

    async def _ask(self, messages: list[ChatMessage]) -> str:
        return await complete(self._model, messages, timeout_seconds=self._timeout,
                              what="answer")
