"""The conversations of the recall study: read them, turn each into one speaker's chat with a
companion, and the rules the study judges by.

A conversation is two people over months (the development conversations, from LoCoMo, in
`../shared/data/conversations` beside the project unless `--conversations` says where). Seen
from one speaker's side, that speaker is the user and the other one's turns are the companion's
replies: a user turn and the reply after it make a round, a reply with no user turn before it
(the other person opened the session) is a round of its own. Photos are left out: Companion
reads text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# ../shared/data/conversations, seen from the project's root.
CONVERSATIONS = Path(__file__).resolve().parents[3] / "shared" / "data" / "conversations"
MIN_QUOTE_WORDS = 4  # a turn's sentence found verbatim in a memory counts from this length


@dataclass(frozen=True)
class Question:
    text: str  # as asked, in the first person where the asker is named
    original: str
    kind: str
    evidence: tuple[str, ...]  # turn ids


@dataclass(frozen=True)
class Side:
    """One speaker's chat: the lines to import and, per round, the turns it holds."""

    user_id: str
    speaker: str
    other: str
    jsonl: list[str]
    round_turns: list[tuple[str | None, str | None]]  # (user turn id, reply turn id)
    questions: list[Question]


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: dict[str, dict[str, Any]]  # id -> turn (speaker, text)
    sides: tuple[Side, Side]
    unanswerable: int  # questions whose evidence names no turn of the conversation


def load(folder: Path = CONVERSATIONS) -> list[Conversation]:
    return [_conversation(path) for path in sorted(folder.glob("*.json"))]


def _conversation(path: Path) -> Conversation:
    data = json.loads(path.read_text(encoding="utf-8"))
    turns = {t["id"]: t for s in data["sessions"] for t in s["turns"]}
    by_side: dict[str, list[Question]] = {name: [] for name in data["speakers"]}
    unanswerable = 0
    for item in data["questions"]:
        evidence = tuple(e.strip() for raw in item["evidence"] for e in raw.split(";")
                         if e.strip() in turns)
        if not evidence:
            unanswerable += 1
            continue
        asker = _asker(evidence, turns, data["speakers"])
        other = next(s for s in data["speakers"] if s != asker)
        by_side[asker].append(Question(first_person(item["question"], asker, other),
                                       item["question"], item["kind"], evidence))
    a, b = data["speakers"]
    sides = (_side(path.stem, data, a, b, by_side[a]), _side(path.stem, data, b, a, by_side[b]))
    return Conversation(path.stem, turns, sides, unanswerable)


def _asker(evidence: tuple[str, ...], turns: dict[str, Any], speakers: list[str]) -> str:
    """The speaker who said most of the evidence (the first named on a tie)."""
    said = [turns[e]["speaker"] for e in evidence]
    return max(speakers, key=lambda s: (said.count(s), -speakers.index(s)))


def _side(name: str, data: dict[str, Any], speaker: str, other: str,
          questions: list[Question]) -> Side:
    lines: list[str] = []
    rounds: list[tuple[str | None, str | None]] = []
    for session in data["sessions"]:
        start = session_time(session["date"])
        for minute, turn in enumerate(session["turns"]):
            mine = turn["speaker"] == speaker
            lines.append(json.dumps({
                "role": "user" if mine else "assistant", "text": turn["text"],
                "timestamp": (start + timedelta(minutes=minute)).isoformat()}))
            if mine:
                rounds.append((turn["id"], None))
            elif rounds and rounds[-1][1] is None and rounds[-1][0] is not None:
                rounds[-1] = (rounds[-1][0], turn["id"])
            else:
                rounds.append((None, turn["id"]))
    return Side(f"{name}:{speaker}", speaker, other, lines, rounds, questions)


def session_time(text: str) -> datetime:
    """`1:56 pm on 8 May, 2023` -> a UTC datetime."""
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def first_person(question: str, name: str, other: str) -> str:
    """"When did Caroline go ...?" asked by Caroline: "When did I go ...?". "His" and "her"
    become "my" too: in these questions they stand for the person asked about."""
    q = re.sub(rf"\b{name}'s\b", "my", question)
    q = re.sub(rf"\b{name} and {other}\b|\b{other} and {name}\b", f"{other} and I", q)
    q = re.sub(rf"\b(does|did|has|is|was|would|will|can|could|should|do|have|are|were) {name}\b",
               r"\1 I", q)
    q = re.sub(rf"^{name}\b", "I", q)
    q = re.sub(rf"\b{name}\b", "me", q)
    q = re.sub(r"\b(?:his|her)\b(?= [a-z])", "my", re.sub(r"\b(?:him|her)self\b", "myself", q))
    return re.sub(r"\bdoes I\b", "do I", re.sub(r"\bhas I\b", "have I", re.sub(
        r"\bis I\b", "am I", q)))


def quotable(text: str) -> Iterator[str]:
    """The sentences of a turn long enough that finding one verbatim in a memory means the
    memory holds that turn."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        if len(sentence.split()) >= MIN_QUOTE_WORDS:
            yield sentence.strip()


# The benchmark's own rule for a memory that carries no information about the person, written
# apart from the product's filter so that it can catch what the filter lets through: once the
# speakers' names, pronouns, function words and the words of agreement, thanks, greetings and
# praise are taken out, fewer than two words are left.
_NOTHING_WORDS = set("""
a an the and or but so if then than that this these those there here it its it's i i'm i've i'd
i'll me my mine myself we we're we've our ours us you you're you've your yours he she him her his
they them their is am are was were be been being do does did done have has had will would can
could should may might must to of in on at for with about from by as up out just really very
too also so such all any some much many more most lot lots thing things stuff one ones yeah yes
yep no ok okay oh wow hey hi hello bye thanks thank thx agree agreed totally absolutely
definitely sure true right great awesome cool amazing nice lovely wonderful fantastic good glad
happy fun sounds sound congrats congratulations welcome hope wish proud lucky love loved
appreciate appreciated cheers haha lol omg same too me mean means know see let get got feel
feeling felt what how when where why who which
""".split())
_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_TEMPLATE = re.compile(r"^.*?talked about [^,]*, and the \w+ said:\s*", re.IGNORECASE)


def carries_nothing(text: str, names: set[str]) -> bool:
    """True for agreement, thanks, greetings, praise and statements whose only content is a
    pronoun ("I'm really lucky to have them")."""
    said = _TEMPLATE.sub("", text).lower()
    words = [w for w in _WORDS.findall(said) if w not in _NOTHING_WORDS and w not in names]
    return len(words) < 2
