"""`/admin ...`: what the bot's admins may see and do about any user's memory."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.commands.forgetting import UserMemories, forget_memories
from bot.commands.replies import (
    CommandReply,
    entry_line,
    fact_line,
    feedback_line,
    job_line,
    round_lines,
    superseded_line,
    sweep_line,
    topic_line,
)
from bot.commands.user import MAX_TAUGHT_LISTED
from bot.core.sharing import Sharing
from bot.core.turn_lock import TurnLock
from bot.errors import UserFacingError
from jobs.queue import FAILED, PENDING, RUNNING
from jobs.worker import MemoryWorker
from memory.beliefs.rows import SQLBeliefRows
from memory.pool.retriever_rows import SQLRetrieverRows
from memory.sql.stats import MemoryStats
from memory.types import Feedback, Origin, PoolStatus

ADMIN_HELP = """Admin commands (user ids look like telegram:123 or discord:456):
/admin stats                     users, rounds, topics and jobs
/admin topics <user>             a user's topics with ids
/admin facts <user> [n]          a user's newest n facts with ids (default 20)
/admin taught <user>             the facts a user taught
/admin beliefs <user>            a user's superseded beliefs and open questions
/admin turns <user> [n]          a user's last n rounds (default 10)
/admin jobs                      memory jobs waiting, running or failed
/admin summarize <user>          summarize a user's waiting rounds now
/admin merge <user>              merge a user's labels that are due
/admin forget <user> <id|all>    forget a user's topic, or everything
/admin feedback [user]           corrections (a user's, or everyone's newest) with ids
/admin promote <id>              let one user's correction apply to every user
/admin demote <id>               make a promoted correction its user's own again
/admin pool                      the shared pool: counts, candidates waiting, the retriever
/admin pool approve|reject <id>  share a candidate with every persona of its scope, or not
/admin pool share <round id>     share one round of any chat (personal details taken out)"""

MAX_TURNS = 50
MAX_JOBS = 30
MAX_FEEDBACK = 30
MAX_SUPERSEDED = 50


class AdminCommands:
    """Each method answers one `/admin` subcommand; the caller was checked before."""

    def __init__(
        self,
        *,
        turns: TurnLock,
        memories: UserMemories,
        beliefs: SQLBeliefRows,
        worker: MemoryWorker,
        stats: Callable[[], Awaitable[MemoryStats]],
        sharing: Sharing,
        retrievers: SQLRetrieverRows,
    ) -> None:
        self._turns = turns
        self._memories = memories
        self._rounds = memories.rounds
        self._topics = memories.topics
        self._facts = memories.facts
        self._beliefs = beliefs
        self._feedback = memories.feedback
        self._worker = worker
        self._stats = stats
        self._sharing = sharing
        self._retrievers = retrievers

    async def run(self, args: list[str], admin_id: str = "") -> CommandReply:
        name, rest = (args[0].lower(), args[1:]) if args else ("help", [])
        if name == "pool":
            return CommandReply(await self._pool(rest, admin_id))
        handler, arity = {
            "stats": (self._show_stats, 0),
            "topics": (self._user_topics, 1),
            "facts": (self._user_facts, 1),
            "taught": (self._user_taught, 1),
            "beliefs": (self._user_beliefs, 1),
            "turns": (self._user_turns, 1),
            "jobs": (self._jobs, 0),
            "summarize": (self._summarize, 1),
            "merge": (self._merge, 1),
            "forget": (self._forget, 2),
            "feedback": (self._list_feedback, 0),
            "promote": (self._promote, 1),
            "demote": (self._demote, 1),
        }.get(name, (None, 0))
        if handler is None or len(rest) < arity:
            return CommandReply(ADMIN_HELP)
        return CommandReply(await handler(rest))

    async def _show_stats(self, args: list[str]) -> str:
        stats = await self._stats()
        jobs = ", ".join(f"{n} {status}" for status, n in sorted(stats.jobs_by_status.items()))
        return (f"Users: {stats.users}\nRounds: {stats.rounds} ({stats.failed_rounds} failed)\n"
                f"Active topics: {stats.active_topics}\nFacts: {stats.active_facts}\n"
                f"Jobs: {jobs or 'none'}")

    async def _user_topics(self, args: list[str]) -> str:
        topics = await self._topics.list_topics(args[0])
        if not topics:
            return f"{args[0]} has no topics."
        return f"Topics of {args[0]}:\n" + "\n".join(topic_line(t) for t in topics)

    async def _user_taught(self, args: list[str]) -> str:
        taught = await self._facts.newest(args[0], MAX_TAUGHT_LISTED, origin=Origin.TAUGHT)
        if not taught:
            return f"{args[0]} has taught nothing."
        lines = [f"Facts {args[0]} taught, newest first (\"you\" is {args[0]}):"]
        return "\n".join(lines + [fact_line(f) for f in taught])

    async def _user_beliefs(self, args: list[str]) -> str:
        user_id = args[0]
        superseded = await self._beliefs.superseded(user_id, MAX_SUPERSEDED)
        questions = await self._beliefs.questions(user_id)
        if not superseded and not questions:
            return f"{user_id} has no superseded beliefs and no open questions."
        lines = [f"Beliefs of {user_id} (\"you\" is {user_id}):"]
        if superseded:
            replacements = {b.id: b for b in await self._beliefs.beliefs(
                user_id, [b.superseded_by for b in superseded if b.superseded_by])}
            lines.append("Superseded, newest first:")
            for belief in superseded:
                winner = replacements.get(belief.superseded_by or "")
                lines.append(f"  {superseded_line(belief.fact)}")
                lines.append(f"     by: {fact_line(winner.fact) if winner else '(gone)'}")
        for status, earlier, later in questions:
            lines.append(f"Question ({status}): "
                         + " vs ".join(fact_line(f) if f else "(gone)" for f in (earlier, later)))
        return "\n".join(lines)

    async def _user_facts(self, args: list[str]) -> str:
        count = _count(args[1] if len(args) > 1 else "20")
        facts = await self._facts.newest(args[0], count)
        if not facts:
            return f"{args[0]} has no facts."
        total = await self._facts.count(args[0])
        lines = [f"Newest {len(facts)} of {total} facts of {args[0]} (\"you\" is {args[0]}):"]
        return "\n".join(lines + [fact_line(f) for f in facts])

    async def _user_turns(self, args: list[str]) -> str:
        count = _count(args[1] if len(args) > 1 else "10")
        rounds = await self._rounds.recent_rounds(args[0], count)
        if not rounds:
            return f"{args[0]} has no rounds."
        lines = [f"Last {len(rounds)} rounds of {args[0]}:"]
        for round_ in rounds:
            lines += round_lines(round_)
        return "\n".join(lines)

    async def _jobs(self, args: list[str]) -> str:
        jobs = await self._worker.queue.jobs(statuses=(PENDING, RUNNING, FAILED))
        if not jobs:
            return "No memory jobs waiting, running or failed."
        shown = [job_line(job) for job in jobs[-MAX_JOBS:]]
        more = [f"(and {len(jobs) - MAX_JOBS} older)"] if len(jobs) > MAX_JOBS else []
        return "\n".join(more + shown)

    async def _summarize(self, args: list[str]) -> str:
        return f"{args[0]}: " + sweep_line(await self._worker.upkeep(args[0]))

    async def _merge(self, args: list[str]) -> str:
        return f"{args[0]}: " + sweep_line(await self._worker.merge_now(args[0]))

    async def _forget(self, args: list[str]) -> str:
        user_id, what = args[0], args[1]
        # The user's own lock: never in the middle of one of their replies.
        async with self._turns.turn(user_id):
            answer = await forget_memories(
                self._memories, user_id, what,
            )
        return f"{user_id}: {answer}"

    async def _pool(self, args: list[str], admin_id: str) -> str:
        action = args[0].lower() if args else ""
        if action in {"approve", "reject"} and len(args) > 1:
            status = PoolStatus.SHARED if action == "approve" else PoolStatus.REJECTED
            entry = await self._sharing.decide(args[1], status, admin_id)
            word = "Shared" if status is PoolStatus.SHARED else "Rejected"
            return f"{word}: {entry_line(entry)}"
        if action == "share" and len(args) > 1:
            try:
                round_id = int(args[1])
            except ValueError:
                raise UserFacingError("Usage: /admin pool share <round id>") from None
            entry = await self._sharing.share_round(round_id, admin_id)
            return f"Shared, personal details taken out: {entry_line(entry)}"
        if action:
            return ADMIN_HELP
        review = await self._sharing.review()
        counts = ", ".join(f"{n} {status}" for status, n in sorted(review.counts.items()))
        lines = [f"Shared pool: {counts or 'empty'}."]
        trainings = await self._retrievers.trainings(limit=1)
        if trainings:
            t = trainings[0]
            lines.append(f"Retriever: last training (version {t.version}, {t.entries} entries) "
                         f"scored {t.score:.2f} on the entries it did not see against "
                         f"{t.previous_score:.2f} for the version then in use; "
                         + ("in use." if t.accepted else "not as good, so not used."))
        else:
            lines.append("Retriever: plain cosine (not trained yet).")
        if review.candidates:
            lines.append("Candidates waiting for review (/admin pool approve|reject <id>):")
            lines += [entry_line(e) for e in review.candidates]
        else:
            lines.append("No candidates waiting.")
        return "\n".join(lines)

    async def _list_feedback(self, args: list[str]) -> str:
        if args:
            items = await self._feedback.list_mine(args[0])
            title = f"Corrections of {args[0]}:"
        else:
            items = await self._feedback.list_all(MAX_FEEDBACK)
            title = f"The newest corrections (at most {MAX_FEEDBACK}):"
        if not items:
            return "No corrections stored." if not args else f"{args[0]} has no corrections."
        return "\n".join([title] + [f"{feedback_line(f)}  by {f.user_id}" for f in items])

    async def _promote(self, args: list[str]) -> str:
        item = await self._find_feedback(args[0])
        await self._feedback.set_shared(item, True)
        line = feedback_line(replace(item, shared=True))
        return f"Promoted: it now applies to every user.\n{line}"

    async def _demote(self, args: list[str]) -> str:
        item = await self._find_feedback(args[0])
        await self._feedback.set_shared(item, False)
        line = feedback_line(replace(item, shared=False))
        return f"Demoted: it applies to {item.user_id} only.\n{line}"

    async def _find_feedback(self, id_prefix: str) -> Feedback:
        try:
            return await self._feedback.find(id_prefix, None)
        except LookupError as error:
            raise UserFacingError(
                f"There is {error} with the id '{id_prefix}'. See /admin feedback."
            ) from None


def _count(text: str) -> int:
    try:
        return max(1, min(int(text), MAX_TURNS))
    except ValueError:
        return 10
