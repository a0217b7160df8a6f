"""What a command answers with, and the text shapes shared by several commands."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jobs.queue import Job
from jobs.worker import SweepReport
from memory.types import Feedback, Recall, Round, ScoredFeedback, Topic


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


def short_id(topic_id: str) -> str:
    return topic_id[:8]


def topic_line(topic: Topic) -> str:
    return f"[{short_id(topic.id)}] {topic.label}: {topic.description}"


def feedback_line(item: Feedback) -> str:
    shared = " (applies to everyone)" if item.shared else ""
    return f"[{short_id(item.id)}] \"{_clip(item.key, 80)}\" → {_clip(item.feedback, 160)}{shared}"


def clarification_line(found: ScoredFeedback) -> str:
    item = found.feedback
    return (f"  {found.score:.2f} {found.how} [{short_id(item.id)}] "
            f"\"{_clip(item.key, 60)}\" → {_clip(item.feedback, 100)}")


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


def describe_recall(recall: Recall) -> str:
    """The memories behind a reply, as shown by /why and the side panel."""
    lines = [f"Recency: {len(recall.recent)} recent rounds", "Relevance:"]
    lines += [f"  {s.score:.2f} [{short_id(s.topic.id)}] {s.topic.label}" for s in recall.relevant]
    if not recall.relevant:
        lines.append("  (no topic close enough)")
    lines.append("Latest topics:")
    lines += [f"  [{short_id(t.id)}] {t.label}" for t in recall.latest] or ["  (none yet)"]
    lines.append("Clarifications (from corrections):")
    lines += [clarification_line(c) for c in recall.clarifications] or ["  (none applied)"]
    return "\n".join(lines)


def job_line(job: Job) -> str:
    what = (f"rounds {job.first_round_id}-{job.last_round_id}" if job.kind == "summarize"
            else f"label '{job.label_key}' ({len(job.topic_ids)} descriptions)")
    error = f"  last error: {job.last_error}" if job.last_error else ""
    return (f"#{job.id} {job.status:<8} {job.kind:<9} {job.user_id}  {what}  "
            f"attempts={job.attempts}{error}")


def sweep_line(report: SweepReport) -> str:
    return (f"summarized {report.summarized} windows, merged {report.merged} labels, "
            f"{report.failed} failed (retried later), {report.reindexed} index repairs")


def save_attachment(attachment: Attachment, folder: Path) -> Path:
    """Where the terminal frontends put a command's file (the user's own machine)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / attachment.filename
    path.write_bytes(attachment.content)
    return path
