"""Topics follow beliefs: when a belief is superseded, a topic that quotes only its old value is
shown as earlier in the prompt and in /why, a topic that holds the new value too stays current,
another user's topics are untouched, and restoring the belief makes its topics current again;
through a whole companion, with the offline judge."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from tests.chatting import memory_lines, run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM
from tests.jobs.beliefs.test_checks import JUNE, MARCH, _export, _said

OLD_ONLY = "The host and I talked about home, and the host said: the flat in Paris is tiny."
BOTH = "The host and I talked about travel, and the host said: Paris is lovely, Berlin is huge."
WHERE = "Can you recommend a cafe near where I live?"


@pytest.fixture
async def bank(tmp_path: Path, llm: ScriptedLLM, sql_url: str) -> AsyncIterator[Companion]:
    settings = make_settings(tmp_path, llm, sql_url, beliefs={"judge": "heuristic"})
    async with open_companion(settings) as opened:
        yield opened


def _topic_lines(prompt: str) -> dict[str, str]:
    """The prompt's memory lines that quote one of the two topics, by topic."""
    return {name: line for line in memory_lines(prompt)
            for name, text in (("old only", OLD_ONLY), ("both", BOTH)) if text[-20:] in line}


async def test_a_topic_quoting_only_the_old_value_is_shown_as_earlier_until_restored(
    bank: Companion, llm: ScriptedLLM
) -> None:
    for user in ("ana", "bob"):
        await bank.topics.add_topic(user, "home", OLD_ONLY, at=MARCH)
        await bank.topics.add_topic(user, "travel", BOTH, at=MARCH + timedelta(days=30))
    paris = await _said(bank, "ana", "I live in Paris.", MARCH)
    await _said(bank, "ana", "We moved to Berlin last month!", JUNE)
    await _said(bank, "bob", "I live in Paris.", MARCH)
    assert (await bank.worker.check_beliefs("ana")).superseded == 1
    await bank.worker.check_beliefs("bob")

    await say(bank, WHERE, "ana")
    shown = _topic_lines(llm.last_system_prompt)
    assert ", earlier:" in shown["old only"] and ", earlier:" not in shown["both"]
    why = await run(bank, "/why", "ana")
    assert "shown as earlier: it quotes what you said before" in why
    assert f"[{paris.id[:8]}]" in why

    await say(bank, WHERE, "bob")  # the same topic of another user stays current
    assert ", earlier:" not in _topic_lines(llm.last_system_prompt)["old only"]

    quoting = {t["description"]: t["quotes_superseded"] for t in (await _export(bank))["topics"]}
    assert quoting == {OLD_ONLY: paris.id, BOTH: None}

    await run(bank, f"/memories restore {paris.id[:8]}", "ana")
    await say(bank, WHERE, "ana")
    assert ", earlier:" not in _topic_lines(llm.last_system_prompt)["old only"]
