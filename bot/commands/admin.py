"""`/admin ...`: what the bot's admins may see and do about any user's memory."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.commands.replies import CommandReply, job_line, round_lines, sweep_line, topic_line
from bot.commands.user import forget_memories
from bot.dialogue import Dialogue
from jobs.queue import FAILED, PENDING, RUNNING
from jobs.worker import MemoryWorker
from memory.protocols import RoundStore, TopicStore
from memory.sql.stats import MemoryStats

ADMIN_HELP = """Admin commands (user ids look like telegram:123 or discord:456):
/admin stats                     users, rounds, topics and jobs
/admin topics <user>             a user's topics with ids
/admin turns <user> [n]          a user's last n rounds (default 10)
/admin jobs                      memory jobs waiting, running or failed
/admin summarize <user>          summarize a user's waiting rounds now
/admin merge <user>              merge a user's labels that are due
/admin forget <user> <id|all>    forget a user's topic, or everything"""

MAX_TURNS = 50
MAX_JOBS = 30


class AdminCommands:
    """Each method answers one `/admin` subcommand; the caller was checked before."""

    def __init__(
        self,
        *,
        dialogue: Dialogue,
        rounds: RoundStore,
        topics: TopicStore,
        worker: MemoryWorker,
        stats: Callable[[], Awaitable[MemoryStats]],
    ) -> None:
        self._dialogue = dialogue
        self._rounds = rounds
        self._topics = topics
        self._worker = worker
        self._stats = stats

    async def run(self, args: list[str]) -> CommandReply:
        name, rest = (args[0].lower(), args[1:]) if args else ("help", [])
        handler, arity = {
            "stats": (self._show_stats, 0),
            "topics": (self._user_topics, 1),
            "turns": (self._user_turns, 1),
            "jobs": (self._jobs, 0),
            "summarize": (self._summarize, 1),
            "merge": (self._merge, 1),
            "forget": (self._forget, 2),
        }.get(name, (None, 0))
        if handler is None or len(rest) < arity:
            return CommandReply(ADMIN_HELP)
        return CommandReply(await handler(rest))

    async def _show_stats(self, args: list[str]) -> str:
        stats = await self._stats()
        jobs = ", ".join(f"{n} {status}" for status, n in sorted(stats.jobs_by_status.items()))
        return (f"Users: {stats.users}\nRounds: {stats.rounds} ({stats.failed_rounds} failed)\n"
                f"Active topics: {stats.active_topics}\nJobs: {jobs or 'none'}")

    async def _user_topics(self, args: list[str]) -> str:
        topics = await self._topics.list_topics(args[0])
        if not topics:
            return f"{args[0]} has no topics."
        return f"Topics of {args[0]}:\n" + "\n".join(topic_line(t) for t in topics)

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
        async with self._dialogue.user_lock(user_id):
            answer = await forget_memories(
                self._dialogue, self._rounds, self._topics, user_id, what
            )
        return f"{user_id}: {answer}"


def _count(text: str) -> int:
    try:
        return max(1, min(int(text), MAX_TURNS))
    except ValueError:
        return 10
