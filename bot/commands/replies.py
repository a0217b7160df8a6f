"""What a command answers with, and the text shapes shared by several commands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.core.wording import counted
from memory.days import day
from memory.types import (
    SAME_REQUEST,
    YOUR_RULE,
    Fact,
    Feedback,
    Found,
    Origin,
    Plan,
    PoolEntry,
    Recall,
    Round,
    ScoredFeedback,
    Speaker,
    Topic,
)

if TYPE_CHECKING:  # a command's text needs no job queue or worker loaded
    from jobs.queue import Job
    from jobs.worker import SweepReport

# Latest_topics under the bundled demo model, whose short prompt holds none.
LEFT_OUT = "(not shown: the demo model's short prompt leaves them out; see companion setup)"


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file for the user (the `/export` JSON). Frontends send it their own way."""

    filename: str
    content: bytes
    mime_type: str = "application/json"


@dataclass(frozen=True, slots=True)
class CommandReply:
    text: str
    attachment: Attachment | None = None
    # The command could not be done (unknown, misused, refused, nothing with that id): the
    # text says why, and a script sees it in the exit status.
    failed: bool = False
    # A command that confirms this one ("/forget all yes"): the text says to type it, and
    # Telegram and Discord also show it as a button.
    confirm: str = ""
    # The user's own memories were forgotten: what a frontend shows of them may be gone.
    forgot: bool = False


def short_id(topic_id: str) -> str:
    return topic_id[:8]


def topic_line(topic: Topic) -> str:
    return f"[{short_id(topic.id)}] {topic.label}: {topic.description}"


def fact_line(fact: Fact) -> str:
    who = "you said" if fact.speaker is Speaker.USER else "I said"
    if fact.origin is Origin.TAUGHT:
        who = "you taught me"
    return f"[{short_id(fact.id)}] {day(fact.said_at)}, {who}: {fact.text}"


def found_line(found: Found) -> str:
    """A memory in /why: what it is, when, how it was found and with which scores."""
    memory = found.memory
    scores = []
    if found.similarity is not None:
        scores.append(f"similarity {found.similarity:.2f}")
    if found.words is not None:
        scores.append(f"words {found.words:.1f}")
    if isinstance(memory, Topic):
        what, when, text = (f"topic '{memory.label}'{_quoting(memory)}", memory.updated_at,
                            memory.description)
    elif memory.origin is Origin.TAUGHT:
        what, when, text = "fact (you taught me)", memory.said_at, memory.text
    else:
        who = "you" if memory.speaker is Speaker.USER else "I"
        shown = ", shown as earlier: you said something newer on it" if found.earlier else ""
        what, when, text = f"fact ({who}{shown})", memory.said_at, memory.text
    return (f"[{short_id(memory.id)}] {what}, {day(when)}, by {found.how} "
            f"({', '.join(scores)}): "
            f"{_clip(text, 100)}")


def _quoting(topic: Topic) -> str:
    """Why a topic is shown as earlier: it quotes only a belief something newer replaced."""
    if not topic.quotes_superseded:
        return ""
    return (f", shown as earlier: it quotes what you said before something newer replaced it "
            f"[{short_id(topic.quotes_superseded)}]")


def feedback_line(item: Feedback) -> str:
    shared = " (applies to everyone)" if item.shared else ""
    return f"[{short_id(item.id)}] \"{_clip(item.key, 80)}\" → {_clip(item.feedback, 160)}{shared}"


def clarification_line(found: ScoredFeedback) -> str:
    item = found.feedback
    return (f"{found.score:.2f} {found.how}{_lookup_detail(found)} [{short_id(item.id)}] "
            f"\"{_clip(item.key, 60)}\" → {_clip(item.feedback, 100)}")


def _lookup_detail(found: ScoredFeedback) -> str:
    """What the lookup matched: the rule's phrase, or the request's words without its subject."""
    if found.how == YOUR_RULE:
        return f' on "{found.feedback.rule}"'
    if found.how == SAME_REQUEST and found.feedback.frame:
        return f' ("{found.feedback.frame} …")'
    return ""


def round_lines(round_: Round, max_chars: int = 200) -> list[str]:
    when = round_.created_at.strftime("%Y-%m-%d %H:%M")
    said = _clip(round_.user_text, max_chars)
    lines = [f"#{round_.id} {when} [{round_.status.value}] user: {said}"]
    if round_.reply_text:
        lines.append(f"    reply: {_clip(round_.reply_text, max_chars)}")
    return lines


def _clip(text: str, max_chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def describe_recall(
    recall: Recall, cited: Sequence[int] = (),
    replaced: Mapping[str, Sequence[Fact]] | None = None,
) -> str:
    """The memories behind a reply, as shown by /why and the side panel: first the ones the
    reply cited, then the others it was given, each with the number the prompt gave it (the
    number `/wrong` takes). `replaced`: for a fact, the superseded beliefs it replaced."""
    replaced = replaced or {}
    relevance = [found_line(f) + _replaced(replaced.get(f.memory.id, ()))
                 for f in recall.relevant]
    latest = [f"[{short_id(t.id)}] {t.label}, {day(t.updated_at)}{_quoting(t)}"
              for t in recall.latest]
    clarifications = [clarification_line(c) for c in recall.clarifications]
    to_check = [fact_line(f) for f in recall.to_check]
    numbered = dict(enumerate([*relevance, *latest, *clarifications, *to_check], start=1))
    lines = [f"Recency: {counted(len(recall.recent), 'recent round')}"]
    if numbered:
        lines.append("My reply relied on:" if cited else "My reply cited no memory.")
        lines += [f"  {n}. {numbered[n]}" for n in cited if n in numbered]
    tokens = sum(f.tokens for f in recall.relevant)
    start = 1
    for title, section, empty in (
        (f"Relevance ({tokens} tokens):", relevance, "(no memory close enough)"),
        ("Latest topics:", latest, LEFT_OUT if recall.short_prompt else "(none yet)"),
        ("Clarifications (from corrections):", clarifications, "(none applied)"),
        *([("To check with you (they disagree):", to_check, "")] if to_check else []),
    ):
        lines.append(title)
        shown = [f"  {n}. {numbered[n]}" for n in range(start, start + len(section))
                 if n not in cited]
        lines += shown or [f"  {empty}" if not section else "  (cited above)"]
        start += len(section)
    if recall.words_only:
        lines.append("Search by meaning: not used for this message. The embedding model cannot "
                     "read its language or script, so memories and corrections were matched by "
                     "their words only.")
    if recall.examples:
        lines.append("Examples from the shared pool (good answers from other chats, personal "
                     "details taken out):")
        lines += [f"  - [{short_id(e.id)}] {e.kind or 'example'}: \"{shortened(e.prompt)}\" -> "
                  f"\"{shortened(e.answer)}\"" for e in recall.examples]
    if recall.follow_up is not None:
        lines.append(f"Asked how a plan went: {plan_line(recall.follow_up)}")
    if numbered:
        lines.append("If one of them is wrong: /wrong <n> [what is true]")
    return "\n".join(lines)


def plan_line(plan: Plan) -> str:
    """'[1a2b3c4d] 9 March 2026, you said: my interview is on Friday (13 March 2026; asked)'"""
    days = day(plan.first_day) if plan.first_day == plan.last_day else (
        f"{day(plan.first_day)} to {day(plan.last_day)}")
    status = {"asked": "; asked how it went", "replaced": "; changed since"}.get(plan.status, "")
    return (f"[{short_id(plan.id)}] {day(plan.said_at)}, you said: {plan.text} "
            f"({days}{status})")


def shortened(text: str, limit: int = 80) -> str:
    """One line of at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _replaced(old: Sequence[Fact]) -> str:
    return "".join(f"\n       replaces: {superseded_line(f)}" for f in old)


def superseded_line(fact: Fact) -> str:
    """A superseded belief, with how to bring it back."""
    return f"{fact_line(fact)} (superseded; /memories restore {short_id(fact.id)})"


def job_line(job: Job) -> str:
    what = (f"rounds {job.first_round_id}-{job.last_round_id}" if job.kind in ("summarize", "facts")
            else "new beliefs" if job.kind == "beliefs"
            else "facts stored before beliefs" if job.kind == "belief_columns"
            else f"label '{job.label_key}' ({counted(len(job.topic_ids), 'description')})")
    error = f"  last error: {job.last_error}" if job.last_error else ""
    return (f"#{job.id} {job.status:<8} {job.kind:<9} {job.user_id}  {what}  "
            f"attempts={job.attempts}{error}")


def sweep_line(report: SweepReport) -> str:
    backfill = (f", facts found for {counted(report.backfilled, 'earlier window')}"
                if report.backfilled else "")
    beliefs = (f", checked {counted(report.beliefs_checked, 'new belief')} "
               f"({report.superseded} superseded)" if report.beliefs_checked else "")
    abandoned = (f", {counted(report.abandoned_rounds, 'message')} whose reply never came "
                 "marked failed" if report.abandoned_rounds else "")
    return (f"summarized {counted(report.summarized, 'window')}, merged "
            f"{counted(report.merged, 'label')}{backfill}{beliefs}, {report.failed} failed "
            f"(retried later), {counted(report.reindexed, 'index repair')}{abandoned}"
            f"{_waiting(report)}")


def _waiting(report: SweepReport) -> str:
    """Why rounds were left: a window is summarized only once it is full."""
    if not report.window or not report.waiting_rounds:
        return ""
    return (f"; {counted(report.waiting_rounds, 'round')} not summarized yet: a window needs "
            f"{report.window} (what they tell is found already, as provisional facts)")


def save_attachment(attachment: Attachment, folder: Path) -> Path:
    """Where the terminal frontends put a command's file (the user's own machine)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / attachment.filename
    path.write_bytes(attachment.content)
    return path


def entry_line(entry: PoolEntry) -> str:
    """One entry as the admin commands show it."""
    score = "unscored" if entry.score is None else f"score {entry.score}"
    return (f"[{short_id(entry.id)}] {entry.domain}/{entry.kind or '?'} from {entry.persona} "
            f"({entry.source}, {score}, votes {entry.votes:+d}): "
            f"\"{shortened(entry.prompt, 120)}\" -> \"{shortened(entry.answer, 120)}\"")
