"""Does the bundled demo model (SmolLM2-135M) use what was just said, and keep it short?

    python -m benchmarks.demo_probe            # the product's default settings
    python -m benchmarks.demo_probe --before   # the demo model as it was before it was tamed

Each of the 30 probes is two turns of a new user: a message that says one thing ("I'm Ana.")
and a question about it ("What's my name?"). Both go through the real product path: a
companion opened with `bot.app.open_companion` on a fresh temporary data folder with default
settings (the demo model, llama.cpp in-process), messages sent with `Dialogue.respond` as
`companion say` does. A fresh companion per probe, like a fresh `companion say` per message
(the first reply of every probe is generated from the same llama seed state; llama-cpp-python
seeds each call from a fixed default seed, so a run is repeatable on one machine).

Measured: the share of second replies that contain the remembered word (case-insensitive, as
a whole word; a plural or "-ing" form where the probe allows it), the median reply length in
words (both turns), the median seconds per reply, and the share of replies with a line that
starts with a speaker label ("Host:", "User:", "Mia:"...), i.e. the model writing the next turn
itself. The last line is `remembered=0.xx median_words=N`.

`--before` answers with the demo model as it was: the paper's full prompt (`build_messages`,
Recency as a text block) and the old sampling (`llm.max_tokens` tokens, repeat penalty 1.15, no
stop sequences, no cut at a whole sentence); a chat model handed to `open_companion` always
gets the paper's prompt.

The data: the 30 probes (benchmarks/data/demo_probes.jsonl) were written by hand for this benchmark,
before any tuning, with everyday facts (names, pets, places, hobbies, jobs, food, family) and varied
wording. They are also the only data the prompt and sampling were compared on: there is no held-out
half, so the "after" number is optimistic. Weaknesses: the question comes right after the fact (a
Recency of one round and no Relevance; real conversations are longer); the word match counts "Is
your name Ana?", and a reply that names the word while getting the rest wrong ("My favourite hobby
is rock climbing": the model speaking as the user); 30 probes give a coarse share (one probe is
0.03, and another llama seed moves it by about 0.1); times depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import time
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path

from benchmarks.support import read_set, table_head, table_row
from bot.app import open_companion
from bot.core.dialogue import Delta, Dialogue, Failed, Finished, Refused
from bot.core.inbound import Incoming
from bot.llm.local_llama import LocalLlama
from bot.settings import Settings, load_settings
from memory.embeddings.packaged import smollm2_model_file
from memory.protocols import ChatModel


@dataclass(frozen=True, slots=True)
class Probe:
    tell: str  # the first message: says one thing
    ask: str  # the second: asks about it
    word: str  # what the second reply should contain: a regex, matched as whole words


PROBES = tuple(Probe(**record) for record in read_set("demo_probes").records)
# A line that starts like a transcript turn: the model writing the next speaker's line.
SPEAKER_LINE = re.compile(r"^\s*(host|user|you|assistant|mia|me)\s*:", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    seconds: float

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass(frozen=True, slots=True)
class Result:
    probe: Probe
    first: Reply
    second: Reply

    @property
    def remembered(self) -> bool:
        return re.search(rf"\b(?:{self.probe.word})\b", self.second.text, re.IGNORECASE) is not None


def before_model(settings: Settings) -> ChatModel:
    """The demo model as it was: `llm.max_tokens`, repeat penalty 1.15, no stop sequences."""
    llm = settings.llm
    return LocalLlama(smollm2_model_file(), context_tokens=llm.local_context_tokens,
                      threads=llm.local_threads, temperature=llm.temperature,
                      max_tokens=llm.max_tokens, repeat_penalty=1.15)


async def say(dialogue: Dialogue, user_id: str, text: str) -> Reply:
    """One message through `Dialogue.respond`, as `companion say` consumes it."""
    started = time.perf_counter()
    reply = ""
    async with aclosing(dialogue.respond(Incoming(user_id, text))) as events:
        async for event in events:
            match event:
                case Delta(piece):
                    reply += piece
                case Finished(whole):
                    reply = whole
                case Failed(problem) | Refused(problem):
                    raise RuntimeError(f"{text!r} got no reply: {problem}")
    return Reply(reply, time.perf_counter() - started)


async def run_probe(probe: Probe, folder: Path, before: bool) -> Result:
    settings = load_settings(None, data_dir=str(folder))
    model = before_model(settings) if before else None
    async with open_companion(settings, model=model) as companion:
        first = await say(companion.dialogue, "probe", probe.tell)
        second = await say(companion.dialogue, "probe", probe.ask)
    return Result(probe, first, second)


def table(results: list[Result], label: str) -> str:
    replies = [r for result in results for r in (result.first, result.second)]
    remembered = sum(r.remembered for r in results) / len(results)
    leaked = sum(bool(SPEAKER_LINE.search(r.text)) for r in replies) / len(replies)
    words = statistics.median(r.words for r in replies)
    seconds = statistics.median(r.seconds for r in replies)
    return "\n".join([
        table_head("run", "probes", "remembered", "median words", "p50 s/reply",
                   "speaker lines"),
        table_row(label, len(results), f"{remembered:.2f}", f"{words:g}", f"{seconds:.1f}",
                  f"{leaked:.2f}"),
    ])


async def main(before: bool, limit: int, verbose: bool) -> None:
    results = []
    with tempfile.TemporaryDirectory(prefix="demo-probe-") as folder:
        for number, probe in enumerate(PROBES[:limit]):
            result = await run_probe(probe, Path(folder) / f"p{number}", before)
            results.append(result)
            if verbose:
                mark = "ok" if result.remembered else "--"
                print(f"[{mark}] {probe.tell} -> {result.first.text!r}\n"
                      f"     {probe.ask} -> {result.second.text!r}", flush=True)
    print(table(results, "before" if before else "default settings"))
    remembered = sum(r.remembered for r in results) / len(results)
    words = statistics.median(r.words for result in results for r in (result.first,
                                                                        result.second))
    print(f"remembered={remembered:.2f} median_words={words:g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", action="store_true",
                        help="the demo model as it was: the paper's prompt, old sampling")
    parser.add_argument("--limit", type=int, default=len(PROBES), help="run the first N probes")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every reply")
    args = parser.parse_args()
    asyncio.run(main(args.before, args.limit, args.verbose))
