"""Memory Sharing: does the shared pool show a persona an example of the same kind of task?

Two hand-written sets of 420 requests with good answers, 35 for each of twelve kinds of task in
three domains (words: synonym, antonym, definition, example sentence; coaching: study, fitness,
travel and habit plans; everyday: comfort, celebration, recommendation, decision). The development
set (benchmarks/data/sharing_development.jsonl) was looked at while the retriever was tuned; the
held-out set (benchmarks/data/sharing_heldout.jsonl) was written apart, by an author who saw neither
the code nor the development set. Both were written by an AI assistant; their headers say how and
where they are weak. Subjects overlap across the kinds of a domain on purpose ("another word for
tired" and "the opposite of tired"), and a third of the requests carry personal details.

Each set is shuffled (seed 13): 300 requests are a stream that grows the pool from empty, 120 are
the test requests. Each stream request enters the pool as a shared entry through the product's
own path (`SharedPool.add`: scrubbed, embedded, indexed), labelled with its kind as a scorer
would label it (the data's kind; `--label-noise` gives that share a wrong kind of its domain, a
scorer's mistakes), and the retriever is trained again whenever the product would (every 25 new
entries, a new version used only when better on held-back entries). At pool sizes 25, 50, 100
and 300 it prints, for the test requests, the share whose first example is of the same kind:
with plain cosine (the embedder's nearest entry) and with the retriever in use, for the domain
pools (`sharing.scope = "domain"`, the default) and the single pool (`"all"`).

Then, with `--big N` (default 10,000) entries in the pool, it times a training and the example
lookup of a turn (`PoolExamples.find`, the part of a turn the pool adds).

    python -m benchmarks.sharing_eval [--label-noise 0.0] [--big 10000]

The independent sets (benchmarks/data/sharing_independent.jsonl and sharing_independent2.jsonl,
120 requests each, 10 of each kind) were each written from a brief naming only the task, by a
helper who read neither the code nor the other sets; the pool they are measured on grows from
the development set's stream, as a pool grows from other people's chats. The first has been run
more than once and is development data now; the second is the headline, run once.

The scrubber is measured on its own sets (benchmarks/data/scrub_*.jsonl, each written by a
helper from a brief naming only the task): the personal details left and the task words kept
(see `benchmarks.sharing_eval.scrubbing`). The learned look (`memory.pool.tagger`) was trained
on development, independent to independent4 and training_a to training_e, so their rows are
figures on data it has seen (`python -m benchmarks.sharing_eval.train_tagger` gives each held
out). scrub_independent5 and scrub_independent6 were written apart and never trained on;
independent5 was run with an earlier look, independent6, the newest, is the headline.

Default settings: SQLite, embedded chromadb, the packaged MiniLM embedder, Presidio scrubbing.
The last line is `same_task_at_1=<x> task_words_kept=<y> personal_left=<n>`: the retriever the
product put in use, 300 entries, domain pools, on the second independent request set; the
scrubber's share of task words kept and the number of personal details left, on
scrub_independent6.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from benchmarks.sharing_eval.scrubbing import TRAINING_SETS, Scored, score_set
from benchmarks.support import read_set, silent, table_head, table_row
from bot.app import Companion, open_companion
from bot.app.scrubbing import packaged_scrubber
from bot.settings import load_settings
from memory.pool.store import entry_id
from memory.types import PoolEntry, PoolStatus
from personas.loader import PACKAGED_DIR, load_personas, load_rubrics

SIZES = (25, 50, 100, 300)
# Written apart after the look was trained, never trained on: the newest is the headline.
UNSEEN_SCRUB_SETS = ("independent5", "independent6")
STREAM = 300
SEED = 13


class Request(NamedTuple):
    domain: str
    kind: str
    prompt: str
    answer: str


def read_requests(name: str) -> list[Request]:
    """A set's requests: "sharing_development" or "sharing_heldout"."""
    return [Request(**record) for record in read_set(name).records]


@dataclass
class Row:
    size: int
    cosine: float
    trained: float
    version: int


def _personas_without_examples(folder: Path) -> Path:
    """The shipped personas and rubrics, without their hand-written examples: the pool starts
    empty, as the paper's does."""
    (folder / "rubrics").mkdir(parents=True)
    for persona in load_personas().values():
        fields = persona.model_dump(exclude={"examples"})
        (folder / f"{persona.name}.toml").write_text("".join(
            f"{key} = {json.dumps(value)}\n" for key, value in fields.items()), encoding="utf-8")
    for domain in load_rubrics():
        (folder / "rubrics" / f"{domain}.toml").write_text(
            (PACKAGED_DIR / "rubrics" / f"{domain}.toml").read_text(encoding="utf-8"),
            encoding="utf-8")
    return folder


def _split(requests: Sequence[Request]) -> tuple[list[Request], list[Request]]:
    shuffled = list(requests)
    random.Random(SEED).shuffle(shuffled)
    return shuffled[:STREAM], shuffled[STREAM:]


def _labels(stream: Sequence[Request], noise: float) -> list[str]:
    """The kinds a scorer gives the stream: the data's, except a `noise` share given another
    kind of the same domain."""
    rubrics = load_rubrics()
    chance = random.Random(SEED + 1)
    labels = []
    for request in stream:
        kind = request.kind
        if chance.random() < noise:
            kind = chance.choice([k for k in rubrics[request.domain].kinds if k != kind])
        labels.append(kind)
    return labels


async def grow_and_measure(
    requests: Sequence[Request], scope: str, noise: float, folder: Path,
    tests: Sequence[Request] | None = None,
) -> list[Row]:
    """The pool grown from `requests` (its stream), measured on its own test requests, or on
    `tests` when given (then the stream is the first `STREAM` of the shuffled requests)."""
    stream, own_tests = _split(requests)
    tests = own_tests if tests is None else tests
    personas_dir = _personas_without_examples(folder / "personas")
    settings = load_settings(None, data_dir=str(folder / "data"), personas_dir=str(personas_dir),
                             sharing={"scope": scope})
    by_domain = {p.domain: p.name for p in load_personas().values()}
    rows = []
    # The kind each entry really is: what "the same kind" is judged by, whatever it is labelled.
    truth: dict[str, tuple[str, str]] = {}
    async with open_companion(settings, model=silent()) as companion:
        vectors = await companion.embedder.embed([t.prompt for t in tests])
        for number, (request, kind) in enumerate(zip(stream, _labels(stream, noise),
                                                     strict=True), start=1):
            truth[entry_id("bench", number)] = (request.domain, request.kind)
            await companion.pool.pool.add(PoolEntry(
                id=entry_id("bench", number), prompt=request.prompt, answer=request.answer,
                persona=by_domain[request.domain], domain=request.domain, kind=kind,
                status=PoolStatus.SHARED, source="chat", score=85, rubric_version=1))
            if await companion.pool.retrain_due() is not None:
                await companion.pool.retrain()
                companion.examples.forget_model()
            if number in SIZES:
                rows.append(await _measure(companion, tests, vectors, number, scope, truth))
    return rows


async def _measure(companion: Companion, tests: Sequence[Request],
                   vectors: Sequence[Sequence[float]], size: int, scope: str,
                   truth: dict[str, tuple[str, str]]) -> Row:
    domains = sorted({t.domain for t in tests})
    cosine = trained = 0
    for test, vector in zip(tests, vectors, strict=True):
        searched = [test.domain] if scope == "domain" else domains
        [nearest] = await companion.pool.pool.nearest(searched, vector, 1)
        cosine += truth[nearest.id] == (test.domain, test.kind)
        found = await companion.examples.find(test.domain, test.prompt, _ready(vector))
        trained += truth[found[0].id] == (test.domain, test.kind)
    trainings = await companion.pool.trainings()
    in_use = max((t.version for t in trainings if t.accepted), default=0)
    return Row(size, cosine / len(tests), trained / len(tests), in_use)


async def _ready(vector: Sequence[float]) -> Sequence[float]:
    return vector


async def time_big(size: int, folder: Path) -> dict[str, float]:
    """A training and the example lookup of a turn with `size` entries in the pool (the
    development set's requests, repeated with a number so that every entry is its own)."""
    settings = load_settings(None, data_dir=str(folder / "data"))
    development = read_requests("sharing_development")
    by_domain = {p.domain: p.name for p in load_personas().values()}
    async with open_companion(settings, model=silent()) as companion:
        batch = []
        for number in range(size):
            request = development[number % len(development)]
            batch.append(PoolEntry(
                id=entry_id("big", number),
                prompt=f"{request.prompt} ({number // len(development)})",
                answer=request.answer, persona=by_domain[request.domain], domain=request.domain,
                kind=request.kind, status=PoolStatus.SHARED, source="chat", score=85))
            if len(batch) == 500:
                await companion.pool.pool.add_written(batch)
                batch = []
        await companion.pool.pool.add_written(batch)
        started = time.perf_counter()
        retraining = await companion.pool.retrain()
        training_s = time.perf_counter() - started
        companion.examples.forget_model()
        queries = read_requests("sharing_heldout")[:200]
        vectors = await companion.embedder.embed([q.prompt for q in queries])
        await companion.examples.find(queries[0].domain, queries[0].prompt, _ready(vectors[0]))
        times = []
        for query, vector in zip(queries, vectors, strict=True):
            started = time.perf_counter()
            await companion.examples.find(query.domain, query.prompt, _ready(vector))
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(f"  {retraining.note}")
        return {"entries": size, "training_s": training_s,
                "lookup_p50_ms": statistics.median(times),
                "lookup_p95_ms": times[int(len(times) * 0.95) - 1]}


def _table(name: str, domain_rows: list[Row], single_rows: list[Row]) -> None:
    print(f"\n{name}: first example of the same kind of task, 120 test requests")
    print(table_head("pool size", "domain pools, cosine", "domain pools, trained (version)",
                     "single pool, cosine", "single pool, trained (version)", align="rrrrr"))
    for d, s in zip(domain_rows, single_rows, strict=True):
        print(table_row(d.size, f"{d.cosine:.3f}", f"{d.trained:.3f} (v{d.version})",
                        f"{s.cosine:.3f}", f"{s.trained:.3f} (v{s.version})"))


async def run(noise: float, big: int) -> tuple[float, Scored]:
    last = 0.0
    for name, data_set, tests in (
            ("development set", "sharing_development", None),
            ("held-out set", "sharing_heldout", None),
            ("independent set (pool grown from the development set; development data now)",
             "sharing_development", read_requests("sharing_independent")),
            ("second independent set (pool grown from the development set)",
             "sharing_development", read_requests("sharing_independent2"))):
        results = {}
        for scope in ("domain", "all"):
            with tempfile.TemporaryDirectory() as folder:
                started = time.perf_counter()
                results[scope] = await grow_and_measure(read_requests(data_set), scope, noise,
                                                        Path(folder), tests)
                print(f"{name}, scope {scope}: grown in {time.perf_counter() - started:.1f} s")
        _table(f"{name} (label noise {noise:.0%})", results["domain"], results["all"])
        last = results["domain"][-1].trained
    scrubbed = await scrubber_table()
    if big:
        with tempfile.TemporaryDirectory() as folder:
            timing = await time_big(big, Path(folder))
        print(f"\nWith {timing['entries']:,} entries: one training took "
              f"{timing['training_s']:.1f} s (in the background); the example lookup of a turn "
              f"p50 {timing['lookup_p50_ms']:.1f} ms, p95 {timing['lookup_p95_ms']:.1f} ms")
    return last, scrubbed


async def scrubber_table() -> Scored:
    """The scrubber on the sets written for it (see `benchmarks.sharing_eval.scrubbing`)."""
    print("\nThe scrubber: personal details left and task words lost, each message alone")
    print(table_head("set", "messages", "personal details", "left", "task words", "kept",
                     align="lrrrrr"))
    scrubber = packaged_scrubber()
    scored = None
    for name in (*TRAINING_SETS, *UNSEEN_SCRUB_SETS):
        scored = await score_set(name, scrubber)
        seen = " (trained on)" if name in TRAINING_SETS else ""
        print(table_row(name + seen, scored.messages, scored.personal, len(scored.left),
                        scored.task_words, f"{scored.task_words_kept:.3f}"))
    assert scored is not None
    return scored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label-noise", type=float, default=0.0,
                        help="share of stream entries the scorer labels with a wrong kind")
    parser.add_argument("--big", type=int, default=10_000,
                        help="entries for the timing of a training and a lookup (0: skip)")
    args = parser.parse_args()
    same_task, scrubbed = asyncio.run(run(args.label_noise, args.big))
    print(f"same_task_at_1={same_task:.3f} task_words_kept={scrubbed.task_words_kept:.3f} "
          f"personal_left={len(scrubbed.left)}")


if __name__ == "__main__":
    main()
