"""Scores an exchange for the shared pool with the chat model, against its domain's rubric
(the paper's prompt of Appendix A.1.5), and asks which of the domain's kinds of task it is.

One call, strictly parsed: an answer that is not exactly a score and a known kind decides
nothing, and the job is retried later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.errors import UnusableAnswer
from memory.model_calls import complete
from memory.protocols import ChatModel
from personas.loader import Rubric

PROMPT = """Here is the rubric for grading an example of in-context learning:
{rubric}

According to the rubric, for the question and answer below, give me a score of the pair \
(question, answer) if I want to use it as a prompt in in-context learning later. Your score \
should be a number between 0 and 100. Placeholders such as [name] or [place] stand for \
personal details taken out; they are not faults.

Also say which kind of task the question is, exactly one of: {kinds}.

Question: {prompt}
Answer: {answer}

Reply with exactly two lines and nothing else:
score: <0-100>
kind: <one of the kinds>"""
_SCORE = re.compile(r"^\s*score\s*:\s*(\d{1,3})\s*$", re.IGNORECASE)
_KIND = re.compile(r"^\s*kind\s*:\s*(.+?)\s*$", re.IGNORECASE)


class ScoreUnusable(UnusableAnswer):
    """The scorer's answer was not a score and a kind; a later attempt may do better."""


@dataclass(frozen=True, slots=True)
class Score:
    score: int
    kind: str
    rubric_version: int


class PoolScorer:
    def __init__(self, model: ChatModel, *, timeout_seconds: float) -> None:
        self._model = model
        self._timeout = timeout_seconds

    async def score(self, rubric: Rubric, prompt: str, answer: str) -> Score:
        text = PROMPT.format(rubric=rubric.rubric.strip(), kinds=", ".join(rubric.kinds),
                             prompt=prompt, answer=answer)
        reply = await complete(self._model, [{"role": "user", "content": text}],
                               timeout_seconds=self._timeout, what="score an exchange")
        score, kind = parse_score(reply, rubric.kinds)
        return Score(score, kind, rubric.version)


def parse_score(reply: str, kinds: tuple[str, ...]) -> tuple[int, str]:
    """`score: 0-100` and `kind: <a kind of the rubric>`, on two lines; anything else raises
    `ScoreUnusable`."""
    lines = [line for line in reply.strip().splitlines() if line.strip()]
    if len(lines) != 2:
        raise ScoreUnusable(f"the scorer's answer is not two lines: {reply[:160]!r}")
    score, kind = _SCORE.match(lines[0]), _KIND.match(lines[1])
    if score is None or kind is None or int(score[1]) > 100:
        raise ScoreUnusable(f"unreadable score: {reply[:160]!r}")
    by_name = {k.casefold(): k for k in kinds}
    named = by_name.get(kind[1].strip("\"'. ").casefold())
    if named is None:
        raise ScoreUnusable(f"the scorer named no kind of this domain: {kind[1][:60]!r}")
    return int(score[1]), named
