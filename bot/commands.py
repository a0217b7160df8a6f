"""Slash commands, shared by every frontend so a command behaves the same everywhere."""

from __future__ import annotations

import shlex

from bot.dialogue import Dialogue
from bot.errors import UserFacingError
from memory.protocols import RoundStore, TopicStore
from memory.types import Recall, Topic

HELP = """Commands:
/help                 this list
/persona [name]       show the personas, or switch to one (remembered)
/topics               the topics I remember about you, with their ids
/forget <id>          forget one topic (use the id from /topics)
/forget all           forget everything: our rounds and all your topics
/why                  the memories behind my last reply"""


def is_command(text: str) -> bool:
    return text.lstrip().startswith("/")


class Commands:
    """Parses and runs a slash command for one user; returns the text to show them."""

    def __init__(self, dialogue: Dialogue, rounds: RoundStore, topics: TopicStore) -> None:
        self._dialogue = dialogue
        self._rounds = rounds
        self._topics = topics

    async def run(self, user_id: str, text: str) -> str:
        try:
            words = shlex.split(text.strip())
        except ValueError:
            words = text.strip().split()
        name, args = words[0].lstrip("/").lower(), words[1:]
        handler = {
            "help": self._help,
            "start": self._help,
            "persona": self._persona,
            "topics": self._list_topics,
            "forget": self._forget,
            "why": self._why,
        }.get(name)
        if handler is None:
            return f"Unknown command /{name}. Type /help for the list."
        # In line with the user's messages: /forget never races a reply being written.
        async with self._dialogue.conversation_lock(user_id):
            try:
                return await handler(user_id, args)
            except UserFacingError as error:
                return str(error)

    async def _help(self, user_id: str, args: list[str]) -> str:
        return HELP

    async def _persona(self, user_id: str, args: list[str]) -> str:
        if args:
            persona = await self._dialogue.set_persona(user_id, args[0].lower())
            return f"Switched to {persona.display_name} ({persona.name}).\n{persona.greeting}"
        current = await self._dialogue.persona_for(user_id)
        lines = [f"Talking to {current.display_name} ({current.name}). Personas:"]
        for persona in self._dialogue.personas.values():
            mark = "*" if persona.name == current.name else " "
            lines.append(f"{mark} {persona.name:<12} {persona.display_name}: {persona.style_notes}")
        lines.append("Switch with /persona <name>.")
        return "\n".join(lines)

    async def _list_topics(self, user_id: str, args: list[str]) -> str:
        topics = await self._topics.list_topics(user_id)
        if not topics:
            return "I have no topics about you yet. They are summarized from our chats over time."
        return "Your topics:\n" + "\n".join(_topic_line(t) for t in topics)

    async def _forget(self, user_id: str, args: list[str]) -> str:
        if not args:
            return "Usage: /forget <id> or /forget all"
        if args[0].lower() == "all":
            topics = await self._topics.forget(user_id)
            rounds = await self._rounds.forget_rounds(user_id)
            self._dialogue.forget_last_recall(user_id)
            return f"Forgotten: {rounds} rounds and {topics} topics. We start afresh."
        topic = await self._find_topic(user_id, args[0])
        await self._topics.forget(user_id, topic.id)
        return f"Forgotten: [{short_id(topic.id)}] {topic.label}"

    async def _find_topic(self, user_id: str, prefix: str) -> Topic:
        matches = [t for t in await self._topics.list_topics(user_id) if t.id.startswith(prefix)]
        if len(matches) != 1:
            problem = "No topic" if not matches else "More than one topic"
            raise UserFacingError(f"{problem} has the id '{prefix}'. See /topics.")
        return matches[0]

    async def _why(self, user_id: str, args: list[str]) -> str:
        recall = self._dialogue.last_recall(user_id)
        if recall is None:
            return "I have not replied to you yet in this session."
        return describe_recall(recall)


def short_id(topic_id: str) -> str:
    return topic_id[:8]


def _topic_line(topic: Topic) -> str:
    return f"[{short_id(topic.id)}] {topic.label}: {topic.description}"


def describe_recall(recall: Recall) -> str:
    """The memories behind a reply, as shown by /why and the side panel."""
    lines = [f"Recency: {len(recall.recent)} recent rounds", "Relevance:"]
    lines += [f"  {s.score:.2f} [{short_id(s.topic.id)}] {s.topic.label}" for s in recall.relevant]
    if not recall.relevant:
        lines.append("  (no topic close enough)")
    lines.append("Latest topics:")
    lines += [f"  [{short_id(t.id)}] {t.label}" for t in recall.latest] or ["  (none yet)"]
    return "\n".join(lines)
