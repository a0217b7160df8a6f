"""A capable model as MemoryBank's NLI judge: a window's new beliefs in one call, each with its
premises, and an answer read strictly (one line per premise, a label and a probability) or not
at all."""

from __future__ import annotations

import re
from collections.abc import Sequence

from jobs.beliefs.judge import Case, Judgement, JudgeUnusable, Verdict
from memory.beliefs.belief import About, Belief
from memory.model_calls import complete
from memory.protocols import ChatModel
from memory.types import Fact

PROMPT = """You check whether statements can all be true now: what the {user} said about \
themselves, and what you said about yourself. Each new statement below is followed by numbered \
earlier statements of the same speaker. For each numbered statement, compare it with the new \
statement above it and answer:
- entailment: it says the same thing as the new statement, or implies it;
- contradiction: it cannot be true now if the new statement is (a different city, job, name, \
number, diet..., or the opposite of it);
- neutral: anything else, including statements about other people or other things.

{cases}

Answer with exactly one line per numbered statement, in order, like "1. contradiction 0.9": the \
number, one of the three words, and how probable that is, from 0 to 1. Nothing else."""
_LINE = re.compile(r"^\s*(\d+)\s*[.):-]?\s*(entailment|neutral|contradiction)\s*[,:]?\s*"
                   r"(0(?:\.\d+)?|1(?:\.0+)?)\s*$", re.I)
PAIRS_PER_CALL = 250  # a window's beliefs fit in one call; a bigger backlog takes a few


class ModelJudge:
    """`Judge` that asks the chat model; a slow or unreadable answer decides nothing."""

    def __init__(self, model: ChatModel, *, timeout_seconds: float, user_name: str = "host"
                 ) -> None:
        self._model = model
        self._timeout = timeout_seconds
        self._user_name = user_name

    def can_judge(self, new: Belief) -> bool:
        return True

    async def judge(self, cases: Sequence[Case]) -> list[list[Judgement]]:
        asked = [case for case in cases if case.premises]
        judged: list[Judgement] = []
        for chunk in _chunks(asked, PAIRS_PER_CALL):
            count = sum(len(case.premises) for case in chunk)
            judged += parse_judgements(await self._ask(self.prompt(chunk)), count)
        answers = iter(_per_case(asked, judged))
        return [next(answers) if case.premises else [] for case in cases]

    def prompt(self, cases: Sequence[Case]) -> str:
        blocks, number = [], 0
        for case in cases:
            speaker = "you" if case.new.about is About.COMPANION else f"the {self._user_name}"
            lines = [f"New statement by {speaker} ({_day(case.new.fact)}): {case.new.fact.text}"]
            for premise in case.premises:
                number += 1
                lines.append(f"{number}. ({_day(premise.fact)}) {premise.fact.text}")
            blocks.append("\n".join(lines))
        return PROMPT.format(user=self._user_name, cases="\n\n".join(blocks))

    async def _ask(self, prompt: str) -> str:
        return await complete(self._model, [{"role": "user", "content": prompt}],
                              timeout_seconds=self._timeout, what="judge beliefs")


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


def _chunks(cases: Sequence[Case], pairs: int) -> list[list[Case]]:
    """Cases in order, grouped so that no call holds more than `pairs` premises (a case with
    more goes alone)."""
    chunks: list[list[Case]] = []
    size = 0
    for case in cases:
        if not chunks or size + len(case.premises) > pairs:
            chunks.append([])
            size = 0
        chunks[-1].append(case)
        size += len(case.premises)
    return chunks


def _per_case(cases: Sequence[Case], judged: Sequence[Judgement]) -> list[list[Judgement]]:
    out, start = [], 0
    for case in cases:
        out.append(list(judged[start:start + len(case.premises)]))
        start += len(case.premises)
    return out


def _day(fact: Fact) -> str:
    return f"{fact.said_at.day} {fact.said_at:%B %Y}"
