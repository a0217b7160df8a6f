"""Talking to an opened Companion the way a frontend does, for the tests of what it remembers."""

from __future__ import annotations

from bot.app import Companion
from bot.core.dialogue import Delta, Failed, Finished, Recalled, Refused
from bot.core.inbound import Incoming
from memory.types import Recall


async def say(companion: Companion, text: str, user: str = "ana", *,
              private: bool = True) -> tuple[str, Finished | None]:
    """What the user read (the reply, or why there was none), and how the reply finished."""
    said, finished = "", None
    incoming = Incoming(user_id=user, text=text, conversation_id=f"chat-{user}", private=private)
    async for event in companion.dialogue.respond(incoming):
        match event:
            case Delta(piece):
                said += piece
            case Failed(message) | Refused(message):
                said += message
            case Finished():
                finished = event
    return said, finished


async def say_recalled(companion: Companion, text: str, user: str = "ana", *,
                       private: bool = True) -> tuple[Recall | None, str]:
    """What the turn recalled for its prompt (None when it recalled nothing: a refusal, a
    correction), and what the user read."""
    recall, said = None, ""
    incoming = Incoming(user_id=user, text=text, conversation_id=f"chat-{user}", private=private)
    async for event in companion.dialogue.respond(incoming):
        match event:
            case Recalled(found):
                recall = found
            case Delta(piece) | Failed(piece) | Refused(piece):
                said += piece
    return recall, said


async def run(companion: Companion, text: str, user: str = "ana") -> str:
    """A command's answer."""
    return (await companion.commands.run(user, text)).text


def memory_lines(prompt: str) -> list[str]:
    """The numbered memories of a system prompt."""
    return [line for line in prompt.splitlines() if line[:1] == "[" and "] " in line]
