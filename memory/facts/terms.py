"""Writing facts with MySQL's lexical index of them: each new fact's words go into
`fact_terms` in the fact's own transaction, and leave with the fact (the table's foreign key
cascades a delete). SQLite's FTS5 tables follow `facts` by their own triggers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from memory.lexical import indexed_words
from memory.sql.tables import fact_terms, facts
from memory.types import Origin


async def insert_facts(conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert fact rows (`memory.facts.rows.fact_row`), and on MySQL their words."""
    if not rows:
        return
    await conn.execute(insert(facts), list(rows))
    if conn.dialect.name != "sqlite" and (postings := _postings(rows)):
        await conn.execute(insert(fact_terms), postings)


def _postings(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"user_id": row["user_id"], "taught": row["origin"] == Origin.TAUGHT.value,
             "term": term, "fact_id": row["id"]}
            for row in rows for term in indexed_words(row["text"])]
