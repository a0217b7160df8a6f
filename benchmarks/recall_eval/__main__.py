"""Recall: does the memory part of the prompt hold what a question about the past needs?

Two long real conversations (the development conversations, `../shared/data/conversations`
beside the project unless `--conversations PATH` says where: 51 sessions over months, 302
questions with the turns that hold their answers) are imported twice, once from each speaker's
side (that speaker is the user, the other one's turns are the companion's replies), through the
same code as `companion ingest`, with the sessions' dates; the memory jobs run as they would.
Then every question is asked through `prepare` as the speaker who said most of its evidence
turns, in the first person ("When did Caroline go ...?" becomes "When did I go ...?").

A question is a hit when the memory part of the prompt (Relevance and Latest_topics) holds one
of its evidence turns: a fact whose provenance is that turn, or a memory that quotes one of the
turn's sentences (of 4 words or more) verbatim. Recency (the last 20 rounds) is counted apart.
Memory tokens are counted with the packaged WordPiece tokenizer over those two slots.

Each question is asked with two prompts over the same memory: the default one (the bundled demo
model's short prompt: Relevance only) and the paper's (Relevance and Latest_topics: what any
other model gets). The memory is made with the offline default settings (the extractive
summarizer; the demo model's own lines are kept as no memory).

Freshness: questions whose evidence lies in rounds no window has summarized yet and that are out
of Recency (the blind spot of per-window memory). Each speaker's chat is imported again in
steps, cut 49 rounds into a window (so 29 of its rounds are out of Recency, none summarized),
and a question is asked at the cut after its evidence when all of it lies in that window and
some of it outside the last 20 rounds.

It runs twice: with the extractive summarizer (the offline default: no model at all) and with a
scripted model that answers the summary and facts prompts the way a capable model would (it
rephrases what the user said about themselves in the third person; see
`benchmarks.support.capable_answer`), served over HTTP as an OpenAI-compatible endpoint.

    python -m benchmarks.recall_eval [--quick] [--conversations PATH]

The last line is `recall_hit=<x> memory_tokens=<n> fresh_hit=<y>`: the paper's prompt and the
freshness of the default prompt, with the offline default settings.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from benchmarks.recall_eval.conversations import (
    CONVERSATIONS,
    Conversation,
    Question,
    Side,
    carries_nothing,
    load,
    quotable,
)
from benchmarks.support import (
    ModelServer,
    capable,
    table_head,
    table_row,
    without_companion_environment,
)
from bot.app import Companion, open_companion
from bot.core.ingest import read_exchanges
from bot.core.prompt import memory_line
from bot.settings import Settings, load_settings
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.relevance import RelevancePlan
from memory.tokens import WordPieceCounter
from memory.types import Fact, Recall, Speaker, Topic

KINDS = ("single-hop", "multi-hop", "temporal", "open-domain")
DEFAULT = "default settings (demo prompt)"
PAPER = "default settings, the paper's prompt"
RECENCY = 20  # rounds in Recency (the default `chat.recency_rounds`)
Junk = tuple[float, int, list[str]]


@dataclass
class Score:
    asked: int = 0
    hits: int = 0
    all_evidence: int = 0
    in_recency: int = 0
    leaked: int = 0  # memories of another user in a prompt (the user filter says: none)
    tokens: list[int] = field(default_factory=list)
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    @property
    def rate(self) -> float:
        return self.hits / max(self.asked, 1)


@dataclass
class Imported:
    """Where each side's rounds came from: (user id, round id) -> (user turn, reply turn)."""

    turns: dict[tuple[str, int], tuple[str | None, str | None]] = field(default_factory=dict)
    conversations: list[Conversation] = field(default_factory=list)


async def import_all(companion: Companion, conversations: list[Conversation]) -> Imported:
    imported = Imported(conversations=conversations)
    for conversation in conversations:
        for side in conversation.sides:
            exchanges = read_exchanges(side.jsonl, companion.settings.chat.max_message_chars)
            await companion.ingest(side.user_id, exchanges)
            stored = await companion.rounds.recent_rounds(side.user_id, 100_000)
            assert len(stored) == len(side.round_turns), "rounds and turns must pair up"
            for round_, turns in zip(stored, side.round_turns, strict=True):
                imported.turns[(side.user_id, round_.id)] = turns
    await companion.worker.sweep()  # anything left due (merges, retries)
    return imported


async def ask_all(companion: Companion, imported: Imported, counter: WordPieceCounter) -> Score:
    score = Score()
    for conversation in imported.conversations:
        for side in conversation.sides:
            for question in side.questions:
                recall, _ = await companion.prepare(side.user_id, question.text)
                _count(score, question, recall, side, imported, counter)
    return score


def _count(score: Score, question: Question, recall: Recall, side: Side, imported: Imported,
           counter: WordPieceCounter) -> None:
    """Score one question's recall."""
    [conversation] = [c for c in imported.conversations if side in c.sides]
    held = _held(recall, side, conversation, imported)
    hit = bool(held & set(question.evidence))
    score.asked += 1
    score.hits += hit
    score.all_evidence += set(question.evidence) <= held
    score.in_recency += bool(_in_recency(recall, side, imported) & set(question.evidence))
    score.tokens.append(_memory_tokens(recall, counter))
    score.leaked += sum(m.user_id != side.user_id for m in _memories(recall))
    score.by_kind[question.kind][0] += 1
    score.by_kind[question.kind][1] += hit


def _held(recall: Recall, side: Side, conversation: Conversation, imported: Imported) -> set[str]:
    """The evidence turns the memory part of the prompt holds."""
    memories = _memories(recall)
    held: set[str] = set()
    for memory in memories:
        if isinstance(memory, Fact):
            for round_id in memory.round_ids:
                user_turn, reply_turn = imported.turns.get((side.user_id, round_id), (None, None))
                turn = user_turn if memory.speaker is Speaker.USER else reply_turn
                if turn:
                    held.add(turn)
    text = " ".join(m.description if isinstance(m, Topic) else m.text for m in memories)
    for turn_id, turn in conversation.turns.items():
        if any(sentence in text for sentence in quotable(turn["text"])):
            held.add(turn_id)
    return held


def _memories(recall: Recall) -> list[Topic | Fact]:
    return [f.memory for f in recall.relevant] + list(recall.latest)


def _in_recency(recall: Recall, side: Side, imported: Imported) -> set[str]:
    return {turn for r in recall.recent
            for turn in imported.turns.get((side.user_id, r.id), (None, None)) if turn}


def _memory_tokens(recall: Recall, counter: WordPieceCounter) -> int:
    lines = [memory_line(f.memory) for f in recall.relevant]
    lines += [memory_line(t) for t in recall.latest]
    return counter.count("\n".join(lines))


async def junk_share(companion: Companion, imported: Imported) -> Junk:
    """Share of stored topics and facts that carry no information about the person."""
    texts: list[str] = []
    names: set[str] = set()
    for conversation in imported.conversations:
        for side in conversation.sides:
            names |= {side.speaker.lower(), side.speaker[:3].lower()}
            texts += [t.description for t in await companion.topics.list_topics(side.user_id)]
            texts += [f.text for f in await companion.facts.newest(side.user_id, 100_000)]
    empty = [t for t in texts if carries_nothing(t, names)]
    return len(empty) / max(len(texts), 1), len(texts), empty


# A variant: the plan of Relevance, and whether the prompt is the demo model's short one.
Variant = tuple[RelevancePlan, bool]
Variants = Callable[[RelevancePlan, bool], dict[str, Variant]]


def only_default(default: RelevancePlan, short: bool) -> dict[str, Variant]:
    return {DEFAULT: (default, short)}


def both_prompts(default: RelevancePlan, short: bool) -> dict[str, Variant]:
    return {DEFAULT: (default, short), PAPER: (default, False)}


def what_each_part_adds(default: RelevancePlan, short: bool) -> dict[str, Variant]:
    return {
        **both_prompts(default, short),
        "the paper's layout (3 topics, 5 Latest_topics), the paper's prompt": (
            replace(default, mode="topics"), False),
        "budget, topics only (no facts)": (replace(default, facts=False), short),
        "budget, facts by meaning only": (replace(default, by_words=False), short),
        **{f"budget of {n} tokens": (replace(default, tokens=n), short)
           for n in (300, 450, 800)},
    }


async def evaluate(settings: Settings, variants: Variants,
                   conversations: list[Conversation]) -> tuple[dict[str, Score], Junk]:
    """Import everything once, then ask every question under each variant of Relevance and
    prompt (the default settings' first)."""
    counter = WordPieceCounter(minilm_tokenizer_file())
    async with open_companion(settings) as companion:
        imported = await import_all(companion, conversations)
        scores = {}
        default = companion.recall.settings
        for name, (plan, short) in variants(companion.relevance.plan, default.short_prompt
                                            ).items():
            companion.relevance.plan = plan
            companion.recall.settings = replace(default, short_prompt=short)
            scores[name] = await ask_all(companion, imported, counter)
        junk = await junk_share(companion, imported)
    return scores, junk


async def freshness(settings: Settings, conversations: list[Conversation]) -> Score:
    """The fresh questions (see the module's docstring), each asked at its cut."""
    counter = WordPieceCounter(minilm_tokenizer_file())
    score = Score()
    window = settings.memory.summarize_every
    async with open_companion(settings) as companion:
        for conversation in conversations:
            for side in conversation.sides:
                exchanges = read_exchanges(side.jsonl, settings.chat.max_message_chars)
                for cut, questions in sorted(fresh_questions(side, window).items()):
                    await companion.ingest(side.user_id, exchanges[:cut])
                    imported = Imported(conversations=[conversation])
                    stored = await companion.rounds.recent_rounds(side.user_id, 100_000)
                    for round_, turns in zip(stored, side.round_turns, strict=False):
                        imported.turns[(side.user_id, round_.id)] = turns
                    for question in questions:
                        recall, _ = await companion.prepare(side.user_id, question.text)
                        _count(score, question, recall, side, imported, counter)
    return score


def fresh_questions(side: Side, window: int) -> dict[int, list[Question]]:
    """Rounds to import -> the questions whose evidence is then unsummarized and partly out
    of Recency."""
    round_of = {turn: i for i, turns in enumerate(side.round_turns) for turn in turns if turn}
    by_cut: dict[int, list[Question]] = defaultdict(list)
    for question in side.questions:
        rounds = [round_of[turn] for turn in question.evidence if turn in round_of]
        if not rounds:
            continue
        start = min(rounds) // window * window  # the first round of the evidence's window
        cut = min(start + window - 1, len(side.round_turns))  # rounds imported: none summarized
        if max(rounds) < cut and min(rounds) < cut - RECENCY:
            by_cut[cut].append(question)
    return by_cut


def print_scores(title: str, scores: dict[str, Score]) -> None:
    leaked = sum(s.leaked for s in scores.values())
    print(f"\n{title} (memories of another user in a prompt: {leaked})\n")
    print(table_head("settings", *KINDS, "hit", "all evidence", "in Recency",
                     "memory tokens (mean / max)"))
    for name, s in scores.items():
        kinds = [f"{s.by_kind[k][1] / max(s.by_kind[k][0], 1):.2f}" for k in KINDS]
        print(table_row(name, *kinds, f"**{s.rate:.3f}**", f"{s.all_evidence / s.asked:.2f}",
                        f"{s.in_recency / s.asked:.2f}",
                        f"{statistics.mean(s.tokens):.0f} / {max(s.tokens)}"))


def conversations_in(folder: Path) -> list[Conversation]:
    """The conversations of `folder`; exits with one plain sentence when there are none."""
    if not folder.is_dir():
        raise SystemExit(f"The development conversations are not at {folder}: pass "
                         "--conversations PATH, the folder that holds them (LoCoMo's JSON files).")
    conversations = load(folder)
    if not conversations:
        raise SystemExit(f"The folder {folder} holds no conversations (*.json): pass "
                         "--conversations PATH, the folder that holds them.")
    return conversations


def main() -> None:
    without_companion_environment()  # never the user's own data or model
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="default settings only")
    parser.add_argument("--conversations", type=Path, default=CONVERSATIONS, metavar="PATH",
                        help="the folder of the development conversations "
                             "(default: ../shared/data/conversations beside the project)")
    args = parser.parse_args()
    conversations = conversations_in(args.conversations)
    asked = sum(len(side.questions) for c in conversations for side in c.sides)
    print(f"{len(conversations)} conversations, {asked} questions "
          f"({sum(c.unanswerable for c in conversations)} left out: no evidence turn)")
    for c in conversations:
        for side in c.sides:
            for q in side.questions[:2]:
                print(f"  as {side.speaker}: {q.original!r} -> {q.text!r}")
    with tempfile.TemporaryDirectory() as folder:
        offline = load_settings(None, data_dir=f"{folder}/offline")
        variants = both_prompts if args.quick else what_each_part_adds
        scores, junk = asyncio.run(evaluate(offline, variants, conversations))
        fresh = asyncio.run(freshness(load_settings(None, data_dir=f"{folder}/fresh"),
                                      conversations))
    print_scores("Extractive summarizer (offline default)", scores)
    _print_junk(junk)
    print_scores("Freshness: evidence in rounds not yet summarized, out of Recency "
                 "(default settings, demo prompt)", {DEFAULT: fresh})
    if not args.quick:
        with ModelServer(capable()) as server, tempfile.TemporaryDirectory() as folder:
            scripted = load_settings(None, data_dir=f"{folder}/llm", llm={
                "provider": "openai", "base_url": server.base_url, "model": "scripted"})
            model_scores, model_junk = asyncio.run(
                evaluate(scripted, only_default, conversations))
        print_scores("Scripted capable model", model_scores)
        _print_junk(model_junk)
    paper = scores[PAPER]
    print(f"recall_hit={paper.rate:.3f} memory_tokens={statistics.mean(paper.tokens):.0f} "
          f"fresh_hit={fresh.rate:.3f}")


def _print_junk(junk: Junk) -> None:
    share, total, empty = junk
    print(f"\nMemories that carry nothing about the person: {share:.1%} of {total}")
    for text in empty[:8]:
        print(f"  - {text[:120]}")


if __name__ == "__main__":
    main()
