"""Corrections compared by meaning in memory find what the vector store finds: one made in
another process, a shared one of another user, and never another user's own (SQLite and the
real MariaDB, embedded chromadb)."""

from __future__ import annotations

from bot.app.stores import Stores
from bot.settings import Settings
from memory.feedback.store import Correction
from memory.types import SIMILAR
from tests.conftest import opened_stores

KEY = "Can you recommend a good book for the weekend?"
PARAPHRASE = "Could you recommend a good book for the weekend?"


def _correction(user_id: str, *, shared: bool = False) -> Correction:
    """A correction without a frame: only a close paraphrase of its key is corrected."""
    return Correction(user_id=user_id, key=KEY, feedback="No, I meant a novel",
                      understanding="you want a textbook", answer="Here is a textbook.",
                      persona="tutor", shared=shared)


async def _found(stores: Stores, user_id: str, text: str) -> list[tuple[str, str]]:
    [vector] = await stores.embedder.embed([text])

    async def pending() -> list[float]:
        return vector
    return [(found.feedback.feedback, found.how)
            for found in await stores.feedback.lookup(user_id, text, pending())]


async def test_a_correction_made_in_another_process_applies_to_a_paraphrase(
    stores: Stores, store_settings: Settings
) -> None:
    async with opened_stores(store_settings) as other_process:
        assert await _found(other_process, "ana", PARAPHRASE) == []  # nothing corrected yet
        await stores.feedback.remember(_correction("ana"))

        assert await _found(other_process, "ana", PARAPHRASE) == [("No, I meant a novel",
                                                                   SIMILAR)]
        assert await _found(stores, "ana", PARAPHRASE) == [("No, I meant a novel", SIMILAR)]
        assert await _found(other_process, "ana", "What is the capital of Peru?") == []


async def test_only_a_shared_correction_of_another_user_applies(
    stores: Stores, store_settings: Settings
) -> None:
    await stores.feedback.remember(_correction("bea"))
    async with opened_stores(store_settings) as other_process:
        assert await _found(other_process, "ana", PARAPHRASE) == []
        assert await _found(other_process, "bea", PARAPHRASE) == [("No, I meant a novel",
                                                                   SIMILAR)]
        await stores.feedback.remember(_correction("cem", shared=True))
        assert await _found(other_process, "ana", PARAPHRASE) == [("No, I meant a novel",
                                                                   SIMILAR)]
