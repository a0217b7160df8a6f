"""The fact store on SQLite and the real MariaDB: the lexical index on both, the vector index per
user, and the user filter everywhere."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy import func, select, text, update

from bot.app.stores import Stores
from memory.facts.rows import REPLACED, HeldFacts
from memory.lexical import MAX_MATCHES
from memory.sql.tables import fact_terms, facts
from memory.types import Fact, Origin, Speaker

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _fact(n: int, user: str, text: str) -> Fact:
    return Fact(f"{n:032x}", user, text, Speaker.USER, SAID, (n,))


async def test_facts_are_found_by_words_stemmed_and_only_the_users(stores: Stores) -> None:
    await stores.facts.add_facts([
        _fact(1, "ana", "I moved to Xiamen in 2019."),
        _fact(2, "ana", "I love painting sunsets by the lake."),
        _fact(3, "ana", "My brother plays the drums."),
    ])
    await stores.facts.add_facts([_fact(4, "ben", "I grew up in Xiamen.")])
    found = await stores.facts.by_words("ana", "When did I go to xiamen?", 10)
    assert [f.text for f, _ in found] == ["I moved to Xiamen in 2019."]
    assert found[0][1] > 0
    painted = await stores.facts.by_words("ana", "Which paintings did I make?", 10)
    assert [f.text for f, _ in painted] == ["I love painting sunsets by the lake."]
    assert await stores.facts.by_words("ana", "the and of", 10) == []  # no words
    assert [f.text for f, _ in await stores.facts.by_words("ben", "Xiamen", 10)] == [
        "I grew up in Xiamen."]


async def test_a_word_too_common_for_the_user_finds_nothing_in_particular(stores: Stores) -> None:
    common = [_fact(n, "ana", f"Coffee with milk again, cup {n}.")
              for n in range(MAX_MATCHES + 1)]
    await stores.facts.rows.insert(common)  # the words alone are what this is about
    await stores.facts.rows.insert([_fact(9999, "ana", "Coffee in Xiamen was the best.")])
    found = await stores.facts.by_words("ana", "coffee in Xiamen", 10)
    assert [f.text for f, _ in found] == ["Coffee in Xiamen was the best."]
    assert await stores.facts.by_words("ana", "coffee", 10) == []


async def test_a_name_is_found_without_its_accent_and_a_two_letter_word_by_itself(
        stores: Stores) -> None:
    await stores.facts.add_facts([_fact(1, "ana", "José moved to the UK in 2019."),
                                  _fact(2, "ana", "My brother plays the drums.")])
    for asked in ("Where does Jose live?", "when did I go to the uk?"):
        found = await stores.facts.by_words("ana", asked, 10)
        assert [f.text for f, _ in found] == ["José moved to the UK in 2019."], asked


async def test_no_word_of_a_forgotten_fact_is_left_in_the_lexical_index(stores: Stores) -> None:
    await stores.facts.add_facts([_fact(1, "ana", "I moved to Xiamen in 2019."),
                                  replace(_fact(2, "ana", "Call me Annie."),
                                          origin=Origin.TAUGHT)])
    said = replace(_fact(3, "ana", "My sister Zhu lives in Xiamen."), provisional=True)
    await stores.facts.keep_provisional([said])
    await stores.facts.add_facts([_fact(4, "ben", "I grew up in Xiamen.")])
    assert await _postings(stores, "ana") > 0
    await stores.facts.forget("ana", said.id)  # a provisional fact keeps its id, not its words
    assert await stores.facts.by_words("ana", "Zhu", 10) == []
    await stores.facts.forget("ana")
    assert await _postings(stores, "ana") == 0
    assert await _postings(stores, "ben") > 0


async def _postings(stores: Stores, user_id: str) -> int:
    """What the lexical index holds of the user's facts: FTS5's rows on SQLite, MySQL's
    postings."""
    async with stores.engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            query = text("SELECT count(*) FROM facts_fts WHERE facts_fts MATCH :user")
            return int(await conn.scalar(query, {"user": f'user_id : "{user_id}"'}) or 0)
        return int(await conn.scalar(select(func.count()).select_from(fact_terms)
                                     .where(fact_terms.c.user_id == user_id)) or 0)


async def test_forgetting_facts_removes_them_from_both_indexes(stores: Stores) -> None:
    await stores.facts.add_facts([_fact(1, "ana", "I moved to Xiamen in 2019."),
                                  _fact(2, "ana", "My brother plays the drums.")])
    assert await stores.facts.forget("ana", f"{1:032x}") == 1
    assert await stores.facts.by_words("ana", "Xiamen", 10) == []
    [vector] = await stores.embedder.embed(["I moved to Xiamen"])
    assert [f.text for f, _ in await stores.facts.by_meaning("ana", vector, 10)] == [
        "My brother plays the drums."]
    assert await stores.facts.forget("ana") == 1
    assert await stores.facts.by_meaning("ana", vector, 10) == []
    assert await stores.facts.count("ana") == 0


async def test_a_provisional_fact_is_found_by_meaning_from_its_row_and_only_the_users(
        stores: Stores) -> None:
    said = replace(_fact(1, "ana", "I moved to Xiamen in 2019."), provisional=True)
    # Kept with the subject its meaning is about, so it can be the newest on it at once.
    assert await stores.facts.keep_provisional([said]) == [replace(said, subject="home")]
    assert await stores.facts.keep_provisional([said]) == []  # kept once
    await stores.facts.add_facts([_fact(2, "ana", "My brother plays the drums.")])
    [vector] = await stores.embedder.embed(["Where did I move?"])
    found = await stores.facts.by_meaning("ana", vector, 10)
    assert [f.text for f, _ in found] == ["I moved to Xiamen in 2019.",
                                          "My brother plays the drums."]
    assert found[0][0].provisional and found[0][1] > found[1][1]
    assert await stores.facts.by_meaning("ben", vector, 10) == []
    await stores.facts.retract("ana", said.id)
    assert [f.text for f, _ in await stores.facts.by_meaning("ana", vector, 10)] == [
        "My brother plays the drums."]


async def test_replaced_provisional_facts_leave_every_search_kept_before_their_rows_held_vectors(
        stores: Stores) -> None:
    # Before migration 12 a provisional fact's vector went into the index, not its row.
    older = replace(_fact(1, "ana", "I moved to Xiamen in 2019."), provisional=True)
    await stores.facts.rows.insert_provisional([older], None)
    await stores.facts.index([replace(older, provisional=False)])
    newer = replace(_fact(2, "ana", "My brother plays the drums in Xiamen."), provisional=True)
    await stores.facts.keep_provisional([newer])
    [vector] = await stores.embedder.embed(["Xiamen"])
    assert len(await stores.facts.by_meaning("ana", vector, 10)) == 2
    ids = [older.id, newer.id]
    async with stores.engine.begin() as conn:  # as their window's summary marks them
        await conn.execute(update(facts).where(facts.c.id.in_(ids))
                           .values(status=REPLACED, indexed=False))
    await stores.facts.drop_replaced([older, newer])
    assert await stores.facts.by_meaning("ana", vector, 10) == []
    async with stores.engine.connect() as conn:
        left = await conn.scalar(select(func.count()).where(facts.c.id.in_(ids)))
    assert left == 0


async def test_a_fact_retracted_while_it_was_indexed_stays_out_of_the_index(
        stores: Stores) -> None:
    fact = _fact(1, "ana", "I moved to Xiamen in 2019.")
    await stores.facts.rows.insert([fact])
    await stores.facts.retract("ana", fact.id)  # clears the index before the vector is in
    await stores.facts.index([fact])  # the write that was under way lands late
    [vector] = await stores.embedder.embed(["Where did I move?"])
    assert await stores.facts.by_meaning("ana", vector, 10) == []
    assert await stores.facts.rows.unindexed() == []


async def test_held_says_which_indexes_may_hold_a_users_facts_and_only_the_users(
        stores: Stores) -> None:
    rows = stores.facts.rows
    assert _kinds(await rows.held("ana")) == (False, False)
    await stores.facts.keep_provisional(
        [replace(_fact(1, "ana", "I moved to Xiamen in 2019."), provisional=True)])
    assert _kinds(await rows.held("ana")) == (False, False)  # searched in SQL
    await stores.facts.add_facts([_fact(2, "ana", "My brother plays the drums."),
                                  replace(_fact(3, "ben", "Call me Benny."),
                                          origin=Origin.TAUGHT)])
    assert _kinds(await rows.held("ana")) == (False, True)
    assert _kinds(await rows.held("ben")) == (True, False)
    await stores.facts.retract("ana", f"{2:032x}")
    await stores.facts.retract("ben", f"{3:032x}")
    assert _kinds(await rows.held("ana")) == (False, False)
    assert _kinds(await rows.held("ben")) == (False, False)


def _kinds(held: HeldFacts) -> tuple[bool, bool]:
    return held.taught, held.said
