"""Teaching: after a user taught the facts it got wrong, do new questions find them?

TeachMe's simulated teacher (Dalvi Mishra et al. 2022, section 4.2), on
benchmarks/data/teach_facts.jsonl: 64 core facts of one fictional person, each with 15 questions
that rest on it. Per fact, 12 questions form the teaching part and 3 are hidden. The simulated user
goes through the teaching part in a shuffled order: each question goes through `prepare`, as in a
chat; when its core fact is not in the prompt the companion is taken to answer wrongly, and the user
teaches the fact with `/teach`. The hidden questions are then asked with no more teaching. A hidden
question is a hit when its core fact is in the prompt's Relevance slot. Which facts 25% of the
teaching part reaches depends on the order, so the whole run is repeated over 5 orders and averaged.

It prints the hidden hit rate after 25%, 50% and 100% of the teaching part, with every core fact
taught (TeachMe's upper bound), and by each search alone (words, BM25-style; meaning, MiniLM)
against both fused (the default). Then it checks explanations: a model that cites the memory
holding the core fact, and a number no memory has, must get `/why` to list exactly that memory
as cited, and never the other number.

    python -m benchmarks.teach_eval

Default settings: SQLite, embedded chromadb, the packaged MiniLM embedder. The last line is
`taught_hit=<x>` (after 100% of the teaching part).
"""

from __future__ import annotations

import asyncio
import random
import re
import statistics
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from benchmarks.support import ScriptedModel, read_set, table_head, table_row
from bot.app import Companion, open_companion
from bot.core.dialogue import Finished
from bot.core.inbound import Incoming
from bot.core.teaching import fact_of
from bot.settings import load_settings
from memory.protocols import ChatMessage
from memory.types import Fact, Origin, Recall

USER = "learner"
HIDDEN_PER_FACT = 3
CHECKPOINTS = (0.25, 0.5, 1.0)
EXPLAINED = 40  # hidden questions answered for the explanation check
NO_SUCH_MEMORY = 42
ORDERS = 5  # shuffles of the teaching part, averaged


@dataclass(frozen=True)
class CoreFact:
    id: str
    text: str  # first person, as the user would teach it
    questions: tuple[str, ...]  # asked later; each answer rests on this fact


CORE_FACTS = tuple(CoreFact(r["id"], r["text"], tuple(r["questions"]))
                   for r in read_set("teach_facts").records)


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    fact: str  # the core fact, as stored when taught


class Citing:
    """Replies citing the memory that holds the expected fact, and a number no memory has."""

    def __init__(self) -> None:
        self.expect = ""
        self.model = ScriptedModel("citing", self.reply)

    def reply(self, messages: Sequence[ChatMessage]) -> Iterator[str]:
        number = next((m[1] for m in re.finditer(r"^\[(\d+)\] (.*)$", messages[0]["content"],
                                                 re.M) if m[2].endswith(self.expect)), None)
        yield "From what you told me" + (f" [{number}]" if number else "")
        yield f". I hope that helps [{NO_SUCH_MEMORY}]."


def split(facts: Sequence[CoreFact]) -> tuple[list[Question], list[Question]]:
    """The teaching part and the hidden part (3 questions per fact, the same for every order)."""
    rng = random.Random(0)
    teaching, hidden = [], []
    for core in facts:
        questions = [Question(q, fact_of(core.text)) for q in core.questions]
        rng.shuffle(questions)
        hidden += questions[:HIDDEN_PER_FACT]
        teaching += questions[HIDDEN_PER_FACT:]
    return teaching, hidden


def holds(recall: Recall, fact: str) -> bool:
    return any(isinstance(f.memory, Fact) and f.memory.origin is Origin.TAUGHT
               and f.memory.text == fact for f in recall.relevant)


async def hit_rate(companion: Companion, questions: Sequence[Question]) -> float:
    hits = 0
    for question in questions:
        recall, _ = await companion.prepare(USER, question.text)
        hits += holds(recall, question.fact)
    return hits / len(questions)


async def teach_through(
    companion: Companion, teaching: Sequence[Question], hidden: Sequence[Question]
) -> list[tuple[int, int, float]]:
    """Per checkpoint: (times the user taught, facts taught, hidden hit)."""
    rows, taught, done = [], 0, 0
    for share in CHECKPOINTS:
        for question in teaching[done:round(share * len(teaching))]:
            recall, _ = await companion.prepare(USER, question.text)
            if not holds(recall, question.fact):  # answered wrongly: the user teaches
                await companion.commands.run(USER, f"/teach {question.fact}")
                taught += 1
        done = round(share * len(teaching))
        facts = await companion.facts.count(USER, origin=Origin.TAUGHT)
        rows.append((taught, facts, await hit_rate(companion, hidden)))
    return rows


async def by_search(companion: Companion, hidden: Sequence[Question]) -> list[tuple[str, float]]:
    default = companion.relevance.plan
    rows = []
    for name, plan in (("words alone (BM25-style)", replace(default, by_meaning=False)),
                       ("meaning alone (MiniLM)", replace(default, by_words=False)),
                       ("both, fused (default)", default)):
        companion.relevance.plan = plan
        rows.append((name, await hit_rate(companion, hidden)))
    companion.relevance.plan = default
    return rows


@dataclass
class Explained:
    cited: int = 0  # replies that cited the memory holding the fact
    shown_right: int = 0  # of those, /why listed exactly that memory as cited
    uncited: int = 0  # replies whose prompt lacked the fact: nothing to cite
    uncited_right: int = 0  # of those, /why said the reply cited no memory
    bogus_shown: int = 0  # /why showing the number no memory had


async def explanations(companion: Companion, citing: Citing,
                       hidden: Sequence[Question]) -> Explained:
    seen = Explained()
    for question in hidden[:EXPLAINED]:
        citing.expect = question.fact
        finished = None
        async for event in companion.dialogue.respond(Incoming(USER, question.text)):
            if isinstance(event, Finished):
                finished = event
        assert finished is not None
        why = (await companion.commands.run(USER, "/why")).text
        seen.bogus_shown += f"{NO_SUCH_MEMORY}." in why
        if not finished.cited:
            seen.uncited += 1
            seen.uncited_right += "My reply cited no memory." in why
            continue
        relied = why.split("My reply relied on:")[1].split("\nRelevance")[0]
        lines = [line for line in relied.splitlines() if line.strip()]
        seen.cited += 1
        seen.shown_right += len(lines) == 1 and question.fact in lines[0]
    return seen


async def evaluate(data_dir: str) -> float:
    teaching, hidden = split(CORE_FACTS)
    print(f"{len(CORE_FACTS)} core facts, {len(teaching)} teaching questions, "
          f"{len(hidden)} hidden questions, {ORDERS} teaching orders\n", flush=True)
    runs = []
    for order in range(ORDERS):
        shuffled = random.Random(order).sample(teaching, len(teaching))
        settings = load_settings(None, data_dir=f"{data_dir}/taught-{order}")
        citing = Citing()
        async with open_companion(settings, model=citing.model) as companion:
            before = await hit_rate(companion, hidden)
            runs.append(await teach_through(companion, shuffled, hidden))
            if order == ORDERS - 1:  # the same memory seen by each search, and explained
                searches = await by_search(companion, hidden)
                explained = await explanations(companion, citing, hidden)
    upper_settings = load_settings(None, data_dir=f"{data_dir}/upper")
    async with open_companion(upper_settings, model=Citing().model) as companion:
        for core in CORE_FACTS:
            await companion.commands.run(USER, f"/teach {core.text}")
        upper = await hit_rate(companion, hidden)
    print(table_head("teaching part done", "questions", "times taught", "facts taught",
                     "hidden hit (mean)", "min", "max"))
    print(table_row("none", 0, 0, 0, f"{before:.3f}", "", ""))
    means = []
    for i, share in enumerate(CHECKPOINTS):
        taught, facts, hits = ([run[i][k] for run in runs] for k in range(3))
        means.append(statistics.fmean(hits))
        print(table_row(f"{share:.0%}", round(share * len(teaching)),
                        f"{statistics.fmean(taught):.0f}", f"{statistics.fmean(facts):.1f}",
                        f"{means[-1]:.3f}", f"{min(hits):.3f}", f"{max(hits):.3f}"))
    print(table_row("every core fact taught (upper bound)", "-", "-", len(CORE_FACTS),
                    f"{upper:.3f}", "", ""))
    print("\n" + table_head("search over taught facts (after 100%, one order)", "hidden hit"))
    for name, hit in searches:
        print(table_row(name, f"{hit:.3f}"))
    print(f"\nExplanations ({EXPLAINED} hidden questions answered by a model that cites): /why "
          f"listed exactly the cited memory for {explained.shown_right} of {explained.cited} "
          f"replies that cited it, said \"cited no memory\" for {explained.uncited_right} of "
          f"{explained.uncited} whose prompt lacked the fact, and showed the number no memory "
          f"had {explained.bogus_shown} times.")
    final = means[-1]
    print(f"After 25% of the teaching part: {means[0]:.3f} ({means[0] - final:+.3f} from 100%).")
    return final


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        final = asyncio.run(evaluate(folder))
    print(f"taught_hit={final:.3f}")


if __name__ == "__main__":
    main()
