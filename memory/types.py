"""Record types shared by the stores and the dialogue core."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum


class RoundStatus(StrEnum):
    """Where a round stands: the user's message is stored first, the reply later."""

    PENDING = "pending"  # stored, the model has not answered yet
    ANSWERED = "answered"
    FAILED = "failed"  # the model could not answer; the user's message is kept


@dataclass(frozen=True, slots=True)
class Plan:
    """A coming event the user told of (`memory.plans`): their sentence, the days it is on,
    the round it was said in, and whether they were asked about it since (status open, asked,
    or replaced: a later plan said it changed)."""

    id: str
    user_id: str
    text: str
    first_day: date
    last_day: date
    said_at: datetime
    round_id: int
    persona: str | None = None
    status: str = "open"


@dataclass(frozen=True, slots=True)
class Round:
    """One exchange: what the user said and what the companion replied."""

    id: int
    user_id: str
    conversation_id: str
    persona: str
    user_text: str
    reply_text: str | None
    status: RoundStatus
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Exchange:
    """A finished round brought in from elsewhere (an import)."""

    user_text: str
    reply_text: str | None
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Topic:
    """A topic description: a short label and what the user said about it."""

    id: str
    user_id: str
    label: str
    description: str
    created_at: datetime
    updated_at: datetime
    # The id of a superseded belief whose old value this topic quotes, and no newer one: the
    # prompt shows it as earlier (see memory.beliefs.outdated).
    quotes_superseded: str | None = None


class Speaker(StrEnum):
    """Who said a fact: the user, or the companion (a suggestion, an answer)."""

    USER = "user"
    COMPANION = "companion"


class Origin(StrEnum):
    """How a fact came to be: said in a conversation (found by the memory jobs), or taught on
    purpose by the user ("Remember that ...", `/teach`), the highest trust."""

    SAID = "said"
    TAUGHT = "taught"


@dataclass(frozen=True, slots=True)
class Fact:
    """One short statement from a round, kept in the words it was said in: something the user
    told about themselves and their life, or something concrete the companion suggested."""

    id: str
    user_id: str
    text: str
    speaker: Speaker
    said_at: datetime  # when the round it came from was said
    round_ids: tuple[int, ...]  # provenance: the rounds it came from
    origin: Origin = Origin.SAID
    persona: str = ""  # the persona of the rounds it came from ("" when not known)
    inferred: bool = False  # a model's wording of what was said, not the speaker's own words
    # Kept the moment its round was stored, until the summary of the round's window replaces it.
    provisional: bool = False
    # The single-valued subject of the speaker's life it says something about ("home", "work"; see
    # memory.beliefs.subjects), None when none or not known yet.
    subject: str | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """A memory (topic or fact) found for a message, with how it was found.

    `score` orders what was found (higher is better): the fused rank of both searches, or the
    cosine similarity when only topics are searched by meaning. `similarity` is the cosine of
    the message and the memory when the search by meaning found it, `words` the lexical score
    when the search by words did; `tokens` is what it costs in the prompt.
    """

    memory: Topic | Fact
    score: float
    similarity: float | None = None
    words: float | None = None
    tokens: int = 0
    # Brought in as the user's newest statement on a subject of the message or of a memory
    # found (see memory.beliefs.subjects), even if neither search found it.
    newest_on: str | None = None
    # A newer statement on the same subject is in the prompt too: this one is shown as earlier.
    earlier: bool = False

    @property
    def how(self) -> str:
        if self.similarity is not None and self.words is not None:
            return "words and meaning"
        if self.words is not None:
            return "words"
        if self.similarity is None and self.newest_on is not None:
            return f"the newest on {self.newest_on}"
        return "meaning"


@dataclass(frozen=True, slots=True)
class ScoredTopic:
    """A topic found by similarity; score is cosine similarity, higher is closer."""

    topic: Topic
    score: float


@dataclass(frozen=True, slots=True)
class Feedback:
    """A correction the user gave (MemPrompt's memory entry): the message the companion
    misunderstood is the key, the user's feedback the value."""

    id: str
    user_id: str  # who gave it; it applies to them only unless `shared`
    key: str  # the misunderstood message x
    feedback: str  # fb, in the user's words
    understanding: str | None  # u: how the companion said it understood x, if it said so
    frame: str  # the words of x that carry the misunderstanding (see memory.feedback.matching)
    rule: str  # a phrase the user said the feedback is about ("when I say X ..."), or ""
    persona: str
    shared: bool  # applies to every user (an admin promoted it, or sharing was on)
    created_at: datetime


# How a correction was found for a message (`/why` says it):
SAME_MESSAGE = "same message"  # the message corrected, retyped
YOUR_RULE = "your rule"  # the phrase of a rule the user stated, in a request of the same shape
SAME_REQUEST = "same request"  # the corrected request about another subject (its frame)
SIMILAR = "similar meaning"  # close in meaning to a message whose subject is not known


@dataclass(frozen=True, slots=True)
class ScoredFeedback:
    """Feedback found for a message; `how` says which lookup found it."""

    feedback: Feedback
    score: float
    how: str  # SAME_MESSAGE, YOUR_RULE, SAME_REQUEST or SIMILAR


class PoolStatus(StrEnum):
    """Where an exchange stands in the shared pool (Memory Sharing)."""

    CANDIDATE = "candidate"  # waits for an admin's review
    SHARED = "shared"  # an example for every persona of its scope
    REJECTED = "rejected"  # an admin or its user said no; kept out of every prompt


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """A prompt and its answer, personal details scrubbed, that may show any persona of its
    scope how to answer well. `user_id` and `round_id` say where it came from (None for the
    personas' own examples and grown ones); they never reach a prompt."""

    id: str
    prompt: str
    answer: str
    persona: str
    domain: str
    kind: str | None  # the kind of task, from the rubric's list (None: not scored yet)
    status: PoolStatus
    source: str  # "example" (a persona file), "chat", "admin" or "grown"
    score: int | None = None  # 0-100 from the scorer
    rubric_version: int | None = None
    votes: int = 0  # thumbs-up minus thumbs-down from its user
    user_id: str | None = None
    round_id: int | None = None
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Recall:
    """The memories that went into one prompt, so a frontend can show why the companion said it."""

    recent: tuple[Round, ...]
    relevant: tuple[Found, ...]
    latest: tuple[Topic, ...]
    clarifications: tuple[ScoredFeedback, ...] = ()
    # Two beliefs that disagree, earlier first, to ask the user about once (see
    # memory.beliefs.belief).
    to_check: tuple[Fact, ...] = ()
    # Good exchanges from the shared pool, shown as examples (not memories: never cited).
    examples: tuple[PoolEntry, ...] = ()
    # The embedder could not read the message (another script, emoji): no memory was chosen
    # by meaning, only by words.
    words_only: bool = False
    # The demo model's short prompt: no Latest_topics, examples or beliefs to check were shown.
    short_prompt: bool = False
    # A plan whose day has passed, to ask the user about once (`memory.plans`).
    follow_up: Plan | None = None

    def numbered(self) -> tuple[Memory, ...]:
        """The memories as the prompt numbers them, from 1: Relevance, then Latest_topics,
        then clarifications, then the beliefs to check. A reply cites them by these numbers."""
        return (*(f.memory for f in self.relevant), *self.latest,
                *(c.feedback for c in self.clarifications), *self.to_check)

    def earlier(self) -> frozenset[str]:
        """The memories (`memory_key`) shown as earlier: a fact with a newer one on its subject
        shown, a topic that quotes only what a superseded belief said."""
        topics = (*(f.memory for f in self.relevant), *self.latest)
        return frozenset({*(memory_key(f.memory) for f in self.relevant if f.earlier),
                          *(memory_key(t) for t in topics
                            if isinstance(t, Topic) and t.quotes_superseded)})

    @classmethod
    def empty(cls) -> Recall:
        return cls(recent=(), relevant=(), latest=())


Memory = Topic | Fact | Feedback  # anything the prompt numbers


def memory_text(memory: Memory) -> str:
    """What a memory says: a topic's description, a fact's text, a correction's feedback."""
    if isinstance(memory, Topic):
        return memory.description
    return memory.text if isinstance(memory, Fact) else memory.feedback


def memory_key(memory: Memory) -> str:
    """"fact:<id>", "topic:<id>" or "feedback:<id>": a memory of any kind, in one string."""
    kind = "topic" if isinstance(memory, Topic) else "fact" if isinstance(memory, Fact) else (
        "feedback")
    return f"{kind}:{memory.id}"
