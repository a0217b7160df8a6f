"""Feedback memory on MemPrompt's lexical tasks: does a correction come back where it applies?

A simulated user asks for synonyms, antonyms, homonyms, definitions and example sentences, in
several phrasings each (section 3.3.1 of the paper); some phrasings are ambiguous ("What is like
< quick > ?"). A scripted model misreads the ambiguous ones unless a clarification in its prompt
says what the user means. When it misreads, the user corrects it, in one of several ways ("No, I
meant a synonym.", "/correct ...", "When I ask 'is like', I mean a synonym."). Everything else is
real: the dialogue core, SQLite, embedded chromadb and the packaged MiniLM embedder.

For each window of queries it prints, among the queries whose phrasing was corrected before,
the share that retrieve a right clarification (the first one names the task the user means) and
the share that retrieve a wrong one (any names another task); also the wrong share over all
queries, and how often the model understood.

    python -m benchmarks.feedback_eval                 # 300 queries
    python -m benchmarks.feedback_eval --calibrate     # how feedback.similarity was chosen

The last line is `right=<share> wrong=<share>` over the whole stream (or, with --calibrate,
`similarity=<threshold>`).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import re
import tempfile
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field

import numpy as np

from bot.app import Companion, open_companion
from bot.dialogue import Finished, Recalled
from bot.inbound import Incoming
from bot.llm.base import ChatMessage
from bot.settings import load_settings
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_model_file, minilm_tokenizer_file

USER = "learner"
WINDOW = 50
NOUNS = {
    "syn": ("synonym", "word with a similar meaning"),
    "ant": ("antonym", "word with the opposite meaning"),
    "hom": ("homonym", "word that sounds the same"),
    "defn": ("definition", "explanation of the word"),
    "sent": ("example sentence", "sentence that uses the word"),
}


@dataclass(frozen=True)
class Phrasing:
    template: str  # "{w}" is the word asked about
    task: str  # what the user means
    phrase: str  # the words that say which task (what a rule names)
    misread: str | None = None  # what the model takes an ambiguous phrasing for


PHRASINGS = (
    Phrasing("What is the synonym for < {w} > ?", "syn", "the synonym for"),
    Phrasing("What is akin to < {w} > ?", "syn", "akin to"),
    Phrasing("What is like < {w} > ?", "syn", "is like", misread="hom"),
    Phrasing("What is similar to < {w} > ?", "syn", "is similar to", misread="hom"),
    Phrasing("What is on the lines of < {w} > ?", "syn", "on the lines of", misread="defn"),
    Phrasing("What is the antonym for < {w} > ?", "ant", "the antonym for"),
    Phrasing("What is the opposite of < {w} > ?", "ant", "the opposite of"),
    Phrasing("What is unlike < {w} > ?", "ant", "is unlike", misread="syn"),
    Phrasing("What is dissimilar to < {w} > ?", "ant", "is dissimilar to", misread="syn"),
    Phrasing("What is the homonym for < {w} > ?", "hom", "the homonym for"),
    Phrasing("What sounds like < {w} > ?", "hom", "sounds like", misread="syn"),
    Phrasing("what has a < {w} > like ring to it ?", "hom", "like ring to it", misread="syn"),
    Phrasing("A word pronounced as < {w} > ?", "hom", "pronounced as", misread="defn"),
    Phrasing("what can one confuse with < {w} > ?", "hom", "confuse with", misread="ant"),
    Phrasing("can you define < {w} > ?", "defn", "define"),
    Phrasing("< {w} > means what ?", "defn", "means what", misread="sent"),
    Phrasing("expand on < {w} > ?", "defn", "expand on", misread="sent"),
    Phrasing("how do you use < {w} > in a sentence ?", "sent", "in a sentence"),
    Phrasing("how do i use < {w} > ?", "sent", "how do i use", misread="defn"),
    Phrasing("< {w} > can be used how ?", "sent", "can be used how", misread="defn"),
    Phrasing("make something with < {w} > ?", "sent", "make something with", misread="hom"),
)
WORDS = ("quick", "pretty", "provident", "fog", "bank", "bright", "calm", "brave", "ring",
         "seeder", "whether", "mane", "confine", "leper", "chaperon", "wassail", "pneumatic",
         "musician", "zigzag", "gross", "citation", "prohibition", "surrogate", "highway",
         "camisole", "rider", "sighted", "melancholy", "browser", "delicious", "fellow", "great",
         "spread", "pot", "tree", "enter", "council", "chance", "site", "critique", "unlawful",
         "constrict", "edit", "spring", "foot", "city", "fly", "housing", "tabulate", "perl",
         "kew", "holed", "bitt", "mawseed", "chelicera", "misconstrue", "paralbumin", "wring")
FEEDBACK = (
    "No, I meant {noun}.",
    "That's not what I asked. I wanted {noun}.",
    "No, I wanted {noun}!",
    "/correct I want {noun}",
    "When I ask '{phrase}', I mean {noun}.",
)
# How people vary a phrasing they have used before: greetings, "please", no brackets, lower case.
VARIATIONS = (
    lambda q: q,
    lambda q: q,
    lambda q: f"Hey, {q}",
    lambda q: q.replace(" ?", ", please?"),
    lambda q: q.lower(),
    lambda q: f"One more: {q}",
)
_WORD_ASKED = re.compile(r"<\s*(\S+)\s*>")


def task_named(text: str) -> str | None:
    """Which task a clarification or an answer names (the longest noun found wins)."""
    lowered = text.lower()
    found = [(len(noun), task) for task, nouns in NOUNS.items() for noun in nouns
             if noun in lowered]
    return max(found)[1] if found else None


class ScriptedReader:
    """A model that reads ambiguous phrasings wrongly, unless a clarification in its prompt
    names the task. It states its understanding first, as the tutor persona asks."""

    name = "scripted-reader"

    def __init__(self) -> None:
        self._patterns = [(_template_pattern(p.template), p) for p in PHRASINGS]

    async def stream(self, messages: Sequence[ChatMessage]) -> AsyncGenerator[str, None]:
        question = messages[-1]["content"]
        word_match = _WORD_ASKED.search(question)
        word = word_match.group(1) if word_match else "it"
        task = self._task(question, messages[0]["content"])
        noun = NOUNS[task][0] if task else "answer"
        yield f"Understanding: you want a {noun} of {word}.\nThe {noun} for {word} is …"

    def _task(self, question: str, system_prompt: str) -> str | None:
        clarifications = [line for line in system_prompt.splitlines()
                          if line.startswith("- clarification:")]
        if clarifications:
            return task_named(clarifications[0].split("(said about:")[0])
        for pattern, phrasing in self._patterns:
            if pattern.search(question):
                return phrasing.misread or phrasing.task
        return None

    async def aclose(self) -> None:
        pass


def _template_pattern(template: str) -> re.Pattern[str]:
    core = template.removesuffix(" ?")
    return re.compile(r"(?:^|\W)" + re.escape(core).replace(re.escape("{w}"), r"\S+"), re.I)


@dataclass
class Window:
    queries: int = 0
    eligible: int = 0
    right: int = 0
    wrong_eligible: int = 0
    wrong_any: int = 0
    understood: int = 0
    corrections: int = 0

    def add(self, other: Window) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class SimulatedUser:
    companion: Companion
    rng: random.Random
    corrected: set[str] = field(default_factory=set)

    async def ask(self, text: str) -> tuple[list[str | None], str]:
        """The tasks named by the clarifications retrieved for `text`, and the reply."""
        tasks: list[str | None] = []
        reply = ""
        incoming = Incoming(user_id=USER, text=text)
        async with aclosing(self.companion.dialogue.respond(incoming)) as events:
            async for event in events:
                if isinstance(event, Recalled):
                    tasks = [task_named(c.feedback.feedback) for c in event.recall.clarifications]
                elif isinstance(event, Finished):
                    reply = event.reply
        return tasks, reply

    async def query(self) -> Window:
        phrasing = self.rng.choice(PHRASINGS)
        word = self.rng.choice(WORDS)
        vary = self.rng.choice(VARIATIONS)
        tasks, reply = await self.ask(vary(phrasing.template.format(w=word)))
        seen = Window(queries=1, eligible=int(phrasing.template in self.corrected))
        wrong = any(task != phrasing.task for task in tasks)
        seen.wrong_any = int(wrong)
        if seen.eligible:
            seen.right = int(bool(tasks) and tasks[0] == phrasing.task)
            seen.wrong_eligible = int(wrong)
        understanding = reply.splitlines()[0] if reply else ""
        seen.understood = int(task_named(understanding) == phrasing.task)
        if not seen.understood:
            await self.correct(phrasing)
            seen.corrections = 1
        return seen

    async def correct(self, phrasing: Phrasing) -> None:
        noun = self.rng.choice(NOUNS[phrasing.task])
        noun = ("an " if noun[0] in "aeiou" else "a ") + noun
        feedback = self.rng.choice(FEEDBACK).format(noun=noun, phrase=phrasing.phrase)
        await self.ask(feedback)
        self.corrected.add(phrasing.template)


def _settings(data_dir: str, similarity: float | None) -> object:
    feedback: dict[str, object] = {"confirm_with_model": "never"}
    if similarity is not None:
        feedback["similarity"] = similarity
    return load_settings(
        None,
        data_dir=data_dir,
        chat={"persona": "tutor"},
        memory={"summarize_every": 1000},  # this measures feedback, not topic upkeep
        feedback=feedback,
    )


async def run_stream(queries: int, seed: int, similarity: float | None) -> list[Window]:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = _settings(data_dir, similarity)
        async with open_companion(settings, model=ScriptedReader()) as companion:  # type: ignore[arg-type]
            user = SimulatedUser(companion, random.Random(seed))
            windows = []
            for start in range(0, queries, WINDOW):
                window = Window()
                for _ in range(min(WINDOW, queries - start)):
                    window.add(await user.query())
                windows.append(window)
            return windows


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "  -  "


def report(windows: list[Window]) -> Window:
    print(f"{'queries':>9} {'eligible':>8} {'right':>6} {'wrong':>6} {'wrong/all':>9} "
          f"{'understood':>10} {'corrections':>11}")
    total = Window()
    for index, window in enumerate(windows):
        total.add(window)
        first = index * WINDOW + 1
        print(f"{first:>4}-{first + window.queries - 1:<4} {window.eligible:>8} "
              f"{_share(window.right, window.eligible):>6} "
              f"{_share(window.wrong_eligible, window.eligible):>6} "
              f"{_share(window.wrong_any, window.queries):>9} "
              f"{_share(window.understood, window.queries):>10} {window.corrections:>11}")
    print(f"{'all':<9} {total.eligible:>8} {_share(total.right, total.eligible):>6} "
          f"{_share(total.wrong_eligible, total.eligible):>6} "
          f"{_share(total.wrong_any, total.queries):>9} "
          f"{_share(total.understood, total.queries):>10} {total.corrections:>11}")
    return total


def calibrate(seed: int) -> None:
    """Cosine between a message and: itself retyped; the same phrasing about another word; a
    paraphrase (another phrasing of the same task, same word); a near miss (a phrasing of
    another task, same word). A correction without a frame (see memory.feedback_match) applies
    on cosine alone, so the threshold is the lowest that lets at most 1% of near misses in."""
    rng = random.Random(seed)
    embedder = OnnxMiniLM(minilm_model_file(), minilm_tokenizer_file())
    same, near_miss, retyped, paraphrase = [], [], [], []
    for first, second in itertools.product(PHRASINGS, repeat=2):
        w1, w2 = rng.sample(WORDS, 2)
        if first == second:
            same.append((first.template.format(w=w1), first.template.format(w=w2)))
            retyped.append((first.template.format(w=w1), first.template.format(w=w1).lower()
                            .replace(" ?", "?").replace("< ", "").replace(" >", "")))
        elif first.task == second.task:
            paraphrase.append((first.template.format(w=w1), second.template.format(w=w1)))
        else:
            near_miss.append((first.template.format(w=w1), second.template.format(w=w1)))
    groups = {"retyped": retyped, "same phrasing": same, "paraphrase": paraphrase,
              "near miss": near_miss}
    scores = {name: _cosines(embedder, pairs) for name, pairs in groups.items()}
    print(f"{'threshold':>9} " + " ".join(f"{name + ' >=':>16}" for name in groups))
    chosen = None
    for threshold in np.arange(0.5, 1.0, 0.05):
        shares = [float(np.mean(values >= threshold)) for values in scores.values()]
        print(f"{threshold:>9.2f} " + " ".join(f"{share:>16.3f}" for share in shares))
        if chosen is None and shares[-1] <= 0.01:
            chosen = round(float(threshold), 2)
    print(f"pairs: {', '.join(f'{name} {len(pairs)}' for name, pairs in groups.items())}")
    print(f"similarity={chosen}")


def _cosines(embedder: OnnxMiniLM, pairs: list[tuple[str, str]]) -> np.ndarray:
    left = np.array(embedder.embed_blocking([a for a, _ in pairs]))
    right = np.array(embedder.embed_blocking([b for _, b in pairs]))
    return np.sum(left * right, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--similarity", type=float, default=None,
                        help="feedback.similarity to use (default: the configured one)")
    parser.add_argument("--calibrate", action="store_true")
    args = parser.parse_args()
    if args.calibrate:
        calibrate(args.seed)
        return
    total = report(asyncio.run(run_stream(args.queries, args.seed, args.similarity)))
    print(f"right={_share(total.right, total.eligible)} "
          f"wrong={_share(total.wrong_eligible, total.eligible)}")


if __name__ == "__main__":
    main()
