"""A capable model as MemoryBank's NLI judge: one call per new belief, every premise in it,
and an answer read strictly (one line per premise, a label and a probability) or not at all."""

from __future__ import annotations

import re
from collections.abc import Sequence

from jobs.beliefs.judge import Judgement, JudgeUnusable, Verdict
from memory.beliefs.belief import About, Belief
from memory.model_calls import complete
from memory.protocols import ChatModel
from memory.types import Fact

PROMPT = """You check whether statements {speaker} made about {themselves} can all be true \
now. For each numbered earlier statement, compare it with the new statement and answer:
- entailment: it says the same thing as the new statement, or implies it;
- contradiction: it cannot be true now if the new statement is (a different city, job, name, \
number, diet..., or the opposite of it);
- neutral: anything else, including statements about other people or other things.
Earlier statements:
{premises}
New statement ({when}): {new}
Answer with exactly one line per earlier statement, in order, like "1. contradiction 0.9": the \
number, one of the three words, and how probable that is, from 0 to 1. Nothing else."""
_LINE = re.compile(r"^\s*(\d+)\s*[.):-]?\s*(entailment|neutral|contradiction)\s*[,:]?\s*"
                   r"(0(?:\.\d+)?|1(?:\.0+)?)\s*$", re.I)


class ModelJudge:
    """`Judge` that asks the chat model; a slow or unreadable answer decides nothing."""

    def __init__(self, model: ChatModel, *, timeout_seconds: float, user_name: str = "host"
                 ) -> None:
        self._model = model
        self._timeout = timeout_seconds
        self._user_name = user_name

    def can_judge(self, new: Belief) -> bool:
        return True

    async def judge(self, new: Belief, premises: Sequence[Belief]) -> list[Judgement]:
        if not premises:
            return []
        answer = await self._ask(self.prompt(new, premises))
        return parse_judgements(answer, len(premises))

    def prompt(self, new: Belief, premises: Sequence[Belief]) -> str:
        mine = new.about is About.COMPANION
        return PROMPT.format(
            speaker="you" if mine else f"the {self._user_name}",
            themselves="yourself" if mine else "themselves",
            premises="\n".join(f"{n}. ({_day(p.fact)}) {p.fact.text}"
                               for n, p in enumerate(premises, start=1)),
            when=_day(new.fact),
            new=new.fact.text,
        )

    async def _ask(self, prompt: str) -> str:
        return await complete(self._model, [{"role": "user", "content": prompt}],
                              timeout_seconds=self._timeout, what="judge a belief")


def parse_judgements(answer: str, count: int) -> list[Judgement]:
    """Exactly one judgement per premise, numbered 1 to `count`; anything else is unusable."""
    found: dict[int, Judgement] = {}
    for line in answer.strip().splitlines():
        if not line.strip():
            continue
        match = _LINE.match(line)
        if match is None:
            raise JudgeUnusable(f"unreadable line in the judge's answer: {line[:120]!r}")
        number = int(match[1])
        if not 1 <= number <= count or number in found:
            raise JudgeUnusable(f"the judge's answer numbers premise {number} wrongly")
        found[number] = Judgement(Verdict(match[2].lower()), float(match[3]))
    if len(found) != count:
        raise JudgeUnusable(f"the judge answered for {len(found)} of {count} premises")
    return [found[n] for n in range(1, count + 1)]


def _day(fact: Fact) -> str:
    return f"{fact.said_at.day} {fact.said_at:%B %Y}"
