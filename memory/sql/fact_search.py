"""Search facts by words, in the lexical index that grows with the rows on each backend: SQLite's
FTS5 table (BM25 ranking) and MySQL's InnoDB FULLTEXT index (its own relevance).

A word the user has said in more than `MAX_MATCHES` facts is left out of the search: for them it
is a common word that singles nothing out (its BM25 weight is near nothing), and ranking all its
rows would cost a turn tens of milliseconds. Every query filters on the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Float, bindparam, column, func, select, text
from sqlalchemy.dialects.mysql import match
from sqlalchemy.ext.asyncio import AsyncConnection

from memory.lexical import (
    MAX_MATCHES,
    boolean_query,
    fts5_head,
    fts5_match,
    fts5_word,
    searchable_user,
)
from memory.sql.tables import facts


async def facts_by_words(
    conn: AsyncConnection, user_id: str, terms: list[str], limit: int
) -> Sequence[Any]:
    """The user's active fact rows that hold any of `terms`, best first, each with `score`."""
    if conn.dialect.name == "sqlite":
        return await _sqlite(conn, user_id, terms, limit)
    return await _mysql(conn, user_id, terms, limit)


async def _sqlite(
    conn: AsyncConnection, user_id: str, terms: list[str], limit: int
) -> Sequence[Any]:
    """One statement: the rare words are picked (each count stops past the cap), joined into an
    FTS5 query, their best postings ranked, and only those rows read from `facts`."""
    if not searchable_user(user_id):
        return []
    counted = " UNION ALL ".join(
        f"SELECT :term{i} WHERE (SELECT count(*) FROM (SELECT 1 FROM facts_fts "
        f"WHERE facts_fts MATCH :one{i} LIMIT :cap)) < :cap"
        for i in range(len(terms)))
    statement = text(
        f"WITH rare(term) AS ({counted}), "
        "query(words) AS (SELECT :head || group_concat(term, ' OR ') || ')' FROM rare "
        "HAVING count(*) > 0) "
        "SELECT f.*, r.score FROM (SELECT facts_fts.rowid AS seq, "
        "-bm25(facts_fts, 0.0, 1.0) AS score FROM query, facts_fts "
        "WHERE facts_fts MATCH query.words ORDER BY score DESC LIMIT :limit) AS r "
        "JOIN facts AS f ON f.seq = r.seq WHERE f.user_id = :user_id AND f.status = 'active' "
        "ORDER BY r.score DESC"
    ).columns(*facts.c, column("score", Float))  # typed, so timestamps come back as datetimes
    params: dict[str, Any] = {"head": fts5_head(user_id), "cap": MAX_MATCHES + 1,
                              "limit": limit, "user_id": user_id}
    for i, term in enumerate(terms):
        params[f"term{i}"] = fts5_word(term)
        params[f"one{i}"] = fts5_match(user_id, [term])
    return (await conn.execute(statement, params)).mappings().all()


async def _mysql(
    conn: AsyncConnection, user_id: str, terms: list[str], limit: int
) -> Sequence[Any]:
    """Two statements: InnoDB cannot build a search from query results."""
    indexed = [term for term in terms if boolean_query([term])]  # 3 letters or more
    if not indexed:
        return []
    counts = select(*(_mysql_count(user_id, term, f"term{i}").label(f"n{i}")
                      for i, term in enumerate(indexed)))
    found = (await conn.execute(counts, {"cap": MAX_MATCHES + 1})).one()
    rare = [term for term, n in zip(indexed, found, strict=True) if n <= MAX_MATCHES]
    if not rare:
        return []
    score = match(facts.c.text, against=boolean_query(rare)).in_boolean_mode()
    query = (select(facts, score.label("score"))
             .where(_active_of(user_id) & (score > 0)).order_by(score.desc()).limit(limit))
    return (await conn.execute(query)).mappings().all()


def _mysql_count(user_id: str, term: str, name: str) -> Any:
    """How many of the user's facts hold `term`, counted up to `:cap`."""
    words = match(facts.c.text, against=bindparam(name, boolean_query([term])))
    hits = (select(facts.c.seq).where(_active_of(user_id) & (words.in_boolean_mode() > 0))
            .limit(bindparam("cap")))
    return select(func.count()).select_from(hits.subquery()).scalar_subquery()


def _active_of(user_id: str) -> Any:
    return (facts.c.user_id == user_id) & (facts.c.status == "active")
