"""The commands every user has, about their own memory only."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.commands.forgetting import (
    CONFIRM_WORD,
    UserMemories,
    forget_feedback,
    forget_memories,
    what_forget_all_takes,
)
from bot.commands.replies import (
    Attachment,
    CommandReply,
    describe_recall,
    fact_line,
    feedback_line,
    plan_line,
    superseded_line,
    topic_line,
)
from bot.core.fixes import described
from bot.core.persona_choice import PersonaChoice
from bot.core.sharing import Sharing
from bot.core.teaching import TEACH_USAGE, Teaching, taught_note
from bot.core.wording import counted
from bot.errors import UserFacingError
from bot.settings import CheckinSettings, known_zone
from memory.beliefs.rows import SQLBeliefRows
from memory.provenance import ReplyUses
from memory.retraction import Retractions
from memory.sql.user_export import UserExport
from memory.types import Fact, Origin

USER_HELP = """Commands:
/help                 this list
/persona [name]       show the personas, or switch to one (remembered)
/memories             the topics I remember about you, and the newest facts, with their ids
/memories restore <id> use again a memory you said was wrong, or one a newer one replaced
/facts [page]         every fact I remember (what you told me, what I suggested), newest first
/forget <id>          forget one topic, fact or plan (use the id from /memories or /facts)
/forget all           forget everything: our rounds, your topics, facts and corrections
                      (it says what would go; /forget all yes does it)
/teach <fact>         teach me something about you ("Remember that ..." works too)
/taught               what you taught me (/taught forget <id>, or /taught forget all)
/why                  the memories behind my last reply, numbered; the ones it cited first
/wrong <n> [truth]    memory n of /why is wrong: I stop using it, keep what is true, answer again
/correct <feedback>   tell me how I misread your last message; I remember it
/feedback             the corrections I remember from you, with their ids
/feedback forget <id> forget one correction (or: /feedback forget all)
/good, /bad           my last reply was good (or not): with /share on, a good one may help others
/share [on|off]       let good replies of mine become examples for my other personas (off now)
/checkins [on|off]    message you once when a plan you told me of is over (off until you say)
/timezone [zone]      your time zone, for your plans' days and check-ins (Europe/Lisbon)
/export               all I store about you, as a JSON file"""
NEWEST_FACTS = 10  # in /memories
MAX_TAUGHT_LISTED = 200
TAUGHT_HELP = ("You have not taught me anything yet. Say \"Remember that ...\" or use "
               "/teach <fact>, and I will use it whenever it matters.")
FACTS_PER_PAGE = 30
NOTHING_TO_EXPLAIN = "There is no reply of mine to explain yet: /why is about my last reply to you."
FEEDBACK_HELP = ("I have no corrections from you. If I misread you, say so (\"No, I meant ...\") "
                 "or use /correct <what you meant>, and I will remember it.")


CHECKINS_ON = ("Check-ins are on: when a plan you told me of is over and you have not written, "
               "I send you one message asking how it went, between {start}:00 and {end}:00 "
               "your time ({zone}; /timezone changes it), at most {per_week} a week. "
               "/checkins off stops them, and so does any /forget.")
CHECKINS_OFF = ("Check-ins are off: I do not message you first. When you write after a plan "
                "you told me of, I still ask how it went. /checkins on turns them on.")


NO_MEMORIES_YET = ("I have no memories of you yet. What you tell me about yourself becomes one "
                   "at once; every 50 messages or so, our chats are also summarized into topics.")


class UserCommands:
    """Each method answers one command for `user_id`, touching only that user's data."""

    def __init__(
        self,
        *,
        personas: PersonaChoice,
        uses: ReplyUses,
        memories: UserMemories,
        exports: UserExport,
        teaching: Teaching,
        retractions: Retractions,
        beliefs: SQLBeliefRows,
        sharing: Sharing,
        checkins: CheckinSettings,
    ) -> None:
        self._personas = personas
        self._uses = uses
        self._sharing = sharing
        self._memories = memories
        self._topics = memories.topics
        self._facts = memories.facts
        self._feedback = memories.feedback
        self._exports = exports
        self._teaching = teaching
        self._retractions = retractions
        self._beliefs = beliefs
        self._checkin_settings = checkins

    async def checkins(self, user_id: str, args: list[str]) -> CommandReply:
        """/checkins [on|off]: whether a plan that is over gets a message of its own."""
        choices = self._memories.checkins
        word = args[0].lower() if args else ""
        if word not in ("", "on", "off"):
            return CommandReply("Usage: /checkins on, or /checkins off", failed=True)
        choice = (await choices.choose(user_id, enabled=word == "on") if word
                  else await choices.of(user_id))
        if not choice.enabled:
            return CommandReply(CHECKINS_OFF)
        settings = self._checkin_settings
        where = ("" if user_id.startswith(("telegram:", "discord:")) else
                 " They are sent on Telegram and Discord; in the terminal, I ask when you "
                 "open it.")
        return CommandReply(CHECKINS_ON.format(
            start=settings.waking_from, end=settings.waking_until,
            zone=choice.timezone or settings.timezone, per_week=settings.per_week) + where)

    async def timezone(self, user_id: str, args: list[str]) -> CommandReply:
        """/timezone [zone]: the person's time zone, for their plans' days and check-ins."""
        choices = self._memories.checkins
        if not args:
            zone = (await choices.of(user_id)).timezone
            return CommandReply(f"Your time zone: {zone or self._checkin_settings.timezone}"
                                f"{'' if zone else ' (the default)'}. Change it with "
                                "/timezone <zone>, such as /timezone Europe/Lisbon.")
        if not known_zone(args[0]):
            raise UserFacingError(f"I do not know the time zone '{args[0]}'. Use a name such "
                                  "as Europe/Lisbon, America/New_York or Asia/Tokyo.")
        await choices.choose(user_id, timezone=args[0])
        return CommandReply(f"Your time zone is now {args[0]}.")

    async def persona(self, user_id: str, args: list[str]) -> CommandReply:
        if args:
            persona = await self._personas.choose(user_id, args[0].lower())
            return CommandReply(
                f"Switched to {persona.display_name} ({persona.name}).\n{persona.greeting}"
            )
        current = await self._personas.of(user_id)
        lines = [f"Talking to {current.display_name} ({current.name}). Personas:"]
        for persona in self._personas.all.values():
            mark = "*" if persona.name == current.name else " "
            about = f": {persona.description}" if persona.description else ""
            lines.append(f"{mark} {persona.name:<12} {persona.display_name}{about}")
        lines.append("Switch with /persona <name>.")
        return CommandReply("\n".join(lines))

    async def memories(self, user_id: str, args: list[str]) -> CommandReply:
        if args and args[0].lower() == "restore":
            return CommandReply(await self._restore(user_id, args[1] if len(args) > 1 else ""))
        topics = await self._topics.list_topics(user_id)
        facts = await self._facts.newest(user_id, NEWEST_FACTS)
        superseded = await self._beliefs.superseded(user_id, NEWEST_FACTS)
        plans = [p for p in await self._memories.plans.of_user(user_id) if p.status != "replaced"]
        if not topics and not facts and not superseded and not plans:
            return CommandReply(NO_MEMORIES_YET)
        lines = ["Your topics:", *(topic_line(t) for t in topics)] if topics else []
        if facts:
            total = await self._facts.count(user_id)
            more = (f" ({len(facts)} newest of {total}; /facts for all)"
                    if total > len(facts) else "")
            lines += [f"Facts{more}:", *(fact_line(f) for f in facts)]
        if plans:
            lines += ["Plans (once one's day has passed, I ask how it went):",
                      *(plan_line(p) for p in plans)]
        if superseded:
            lines += ["No longer true (a newer or surer memory replaced them; I keep them, but "
                      "do not use them):", *(superseded_line(b.fact) for b in superseded)]
        return CommandReply("\n".join(lines))

    async def _restore(self, user_id: str, id_prefix: str) -> str:
        if not id_prefix:
            return ("Usage: /memories restore <id> (the id /wrong gave when it took a memory back, "
                    "or one /memories lists as no longer true)")
        memory = await self._retractions.restore(user_id, id_prefix)
        if memory is None:
            raise UserFacingError(f"No memory you said was wrong, or that was replaced, has the "
                                  f"id '{id_prefix}'.")
        return f"Restored: \"{described(memory)}\". I will use it again."

    async def facts(self, user_id: str, args: list[str]) -> CommandReply:
        page = _page(args[0]) if args else 1
        total = await self._facts.count(user_id)
        pages = max(1, -(-total // FACTS_PER_PAGE))
        if total == 0:
            return CommandReply(NO_MEMORIES_YET)
        facts = await self._facts.newest(user_id, FACTS_PER_PAGE,
                                         (min(page, pages) - 1) * FACTS_PER_PAGE)
        title = f"Facts, newest first (page {min(page, pages)} of {pages}, {total} in all):"
        return CommandReply("\n".join([title, *(fact_line(f) for f in facts)]))

    async def forget(self, user_id: str, args: list[str]) -> CommandReply:
        if not args:
            return CommandReply("Usage: /forget <id> or /forget all", failed=True)
        if args[0].lower() == "all" and [a.lower() for a in args[1:2]] != [CONFIRM_WORD]:
            return CommandReply(await what_forget_all_takes(self._memories, user_id),
                                confirm=f"/forget all {CONFIRM_WORD}")
        return CommandReply(await forget_memories(self._memories, user_id, args[0]), forgot=True)

    async def share(self, user_id: str, args: list[str]) -> CommandReply:
        choice = args[0].lower() if args else ""
        if choice not in {"", "on", "off"}:
            return CommandReply("Usage: /share on, /share off, or /share to see where you stand",
                                failed=True)
        return CommandReply(await self._sharing.opt(user_id, None if not choice
                                                    else choice == "on"))

    async def good(self, user_id: str, args: list[str]) -> CommandReply:
        return CommandReply(await self._sharing.vote_last(user_id, None, True))

    async def bad(self, user_id: str, args: list[str]) -> CommandReply:
        return CommandReply(await self._sharing.vote_last(user_id, None, False))

    async def feedback(self, user_id: str, args: list[str]) -> CommandReply:
        if args and args[0].lower() == "forget":
            if len(args) < 2:
                return CommandReply("Usage: /feedback forget <id> (ids are in /feedback)",
                                    failed=True)
            return CommandReply(await forget_feedback(self._feedback, user_id, args[1]),
                                forgot=True)
        mine = await self._feedback.list_mine(user_id)
        if not mine:
            return CommandReply(FEEDBACK_HELP)
        return CommandReply("Your corrections:\n" + "\n".join(feedback_line(f) for f in mine))

    async def export(self, user_id: str, args: list[str]) -> CommandReply:
        data = await self._exports.export(user_id)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        content = json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")
        return CommandReply(
            f"Here is everything I store about you: {counted(len(data['rounds']), 'round')}, "
            f"{counted(len(data['topics']), 'topic description')}, "
            f"{counted(len(data['facts']), 'fact')} and "
            f"{counted(len(data['feedback']), 'correction')}.",
            Attachment(f"companion-export-{stamp}.json", content),
        )

    async def why(self, user_id: str, args: list[str]) -> CommandReply:
        last = await self._uses.explain(user_id)
        if last is None:
            return CommandReply(NOTHING_TO_EXPLAIN)
        facts = [m.id for m in last.recall.numbered() if isinstance(m, Fact)]
        replaced = await self._beliefs.replaced_by(user_id, facts)
        return CommandReply(describe_recall(last.recall, last.cited, replaced))

    async def teach(self, user_id: str, args: list[str]) -> CommandReply:
        """`args` is the whole fact, as typed (quotes and all)."""
        statement = " ".join(args).strip()
        if not statement:
            return CommandReply(TEACH_USAGE)
        return CommandReply(taught_note(await self._teaching.teach(user_id, statement)))

    async def taught(self, user_id: str, args: list[str]) -> CommandReply:
        if args and args[0].lower() == "forget":
            if len(args) < 2:
                return CommandReply("Usage: /taught forget <id> (ids are in /taught), or all",
                                    failed=True)
            return CommandReply(await self._forget_taught(user_id, args[1]), forgot=True)
        taught = await self._facts.newest(user_id, MAX_TAUGHT_LISTED, origin=Origin.TAUGHT)
        if not taught:
            return CommandReply(TAUGHT_HELP)
        return CommandReply("What you taught me, newest first:\n"
                            + "\n".join(fact_line(f) for f in taught))

    async def _forget_taught(self, user_id: str, what: str) -> str:
        if what.lower() == "all":
            count = await self._facts.forget_taught(user_id)
            return f"Forgotten: {counted(count, 'fact')} you taught me."
        found = [f for f in await self._facts.find(user_id, what) if f.origin is Origin.TAUGHT]
        if len(found) != 1:
            problem = "Nothing you taught me" if not found else "More than one taught fact"
            raise UserFacingError(f"{problem} has the id '{what}'. See /taught.")
        await self._facts.forget(user_id, found[0].id)
        return f"Forgotten: {fact_line(found[0])}"


def _page(text: str) -> int:
    try:
        return max(1, int(text))
    except ValueError:
        return 1
