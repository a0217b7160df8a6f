"""A short prompt for the bundled demo model (SmolLM2-135M), which the paper's prompt drowns.

A 135M model reads a long system message with a transcript in it as text to continue: it
rambles, invents, and writes the host's next line itself. It does use what was just said when
the recent rounds are real chat turns (user and assistant messages) after a system message of a
few lines (see benchmarks/demo_probe). So this prompt keeps the persona's first sentence, a
length rule, the memories found for the message and the corrections that apply as plain lines;
it leaves out the date, the latest topics, the shared pool's examples and the citation and
"Understanding:" instructions, which such a model cannot follow. Every other model gets the
paper's prompt (`build_messages`).

Pure: the same persona, recall and message always give the same messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from bot.core.prompt import PromptStyle, keep_end
from memory.protocols import ChatMessage
from memory.types import Fact, Origin, Recall, Round, Speaker, Topic, memory_text
from personas.loader import Persona

LENGTH_RULE = "Reply in one to three short sentences."
# The end of the role prompt's first sentence: a full stop, "!" or "?" followed by a space.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def build_demo_messages(
    persona: Persona,
    recall: Recall,
    message: str,
    *,
    user_name: str = "host",
    recency_max_chars: int = 16_000,
    today: date | None = None,  # unused: the date only distracts a model this small
) -> list[ChatMessage]:
    """A short system message, Recency as chat turns (oldest first), then the user's message.

    Takes the same arguments as `build_messages`, so `Dialogue` can use either.
    """
    return [
        {"role": "system", "content": demo_system(persona, recall, user_name)},
        *recent_turns(recall.recent, recency_max_chars),
        {"role": "user", "content": message},
    ]


DEMO_PROMPT = PromptStyle(build_demo_messages, short=True)


def demo_system(persona: Persona, recall: Recall, user_name: str = "host") -> str:
    """The role prompt's first sentence, the length rule, and the memories found, one a line."""
    lines = [f"{first_sentence(persona.role_prompt)} {LENGTH_RULE}"]
    memories = [_memory(found.memory, user_name, found.earlier) for found in recall.relevant]
    if memories:
        lines.append(f"What you remember about the {user_name}:")
        lines += memories
    # Corrections the user gave apply to every model: a small one follows a plain sentence.
    lines += [f"When the {user_name} said \"{c.feedback.key}\", they meant: {c.feedback.feedback}"
              for c in recall.clarifications]
    return "\n".join(lines)


def recent_turns(rounds: tuple[Round, ...], max_chars: int) -> Iterator[ChatMessage]:
    """Each round as a user message and an assistant message; a side that was not said (a
    failed reply, a conversation the companion opened) is left out."""
    for round_ in rounds:
        if round_.user_text:
            yield {"role": "user", "content": keep_end(round_.user_text, max_chars)}
        if round_.reply_text:
            yield {"role": "assistant", "content": keep_end(round_.reply_text, max_chars)}


def first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


def _memory(memory: Topic | Fact, user_name: str, earlier: bool = False) -> str:
    """`earlier`: the user said something newer on its subject since."""
    text = memory_text(memory)
    if isinstance(memory, Topic):
        return f"- Earlier: {text}" if memory.quotes_superseded else f"- {text}"
    if earlier:
        return f"- Earlier, the {user_name} said: {text}"
    if memory.origin is Origin.TAUGHT or memory.speaker is Speaker.USER:
        return f"- The {user_name} said: {text}"
    return f"- You said: {text}"
