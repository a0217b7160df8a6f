"""Search facts by words, in the lexical index that grows with the rows on each backend: SQLite's
FTS5 table (the user id indexed beside the text) and MySQL's InnoDB FULLTEXT index (over each
fact's words behind the user's key, `memory.lexical.user_words`): either way a search reads
the user's postings only.

One statement per search, the same on both backends: for each word, the user's facts that hold
it, from the index, at most `MAX_MATCHES` + 1 of them; a word with more is a common word for
this user, singles nothing out, and is left out. The facts that hold the other words are ranked
in the same statement by BM25's inverse document frequency over the user's own facts (a fact
holding more of the words first, the rarer words first among those), and only the best come
back: the index's own ranking would read every posting of every word (2-40 ms a turn at 100,000
facts), and ranking in Python would carry every hit through the driver. Every query filters on
the user.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Select,
    bindparam,
    column,
    func,
    literal,
    literal_column,
    select,
    table,
    true,
    union_all,
)
from sqlalchemy.dialects.mysql import match
from sqlalchemy.ext.asyncio import AsyncConnection

from memory.lexical import MAX_MATCHES, boolean_query, fts5_match, searchable_user
from memory.sql.prepared import PreparedRead
from memory.sql.tables import facts

# The FTS5 tables of migrations 3 and 4 (taught facts only): their rowid is `facts.seq`, and
# each matches by its own name.
_FTS = {False: "facts_fts", True: "taught_fts"}
# BM25's document count, fixed: only the order of the scores matters, and with it a fact that
# holds more of the words always ranks above one that holds fewer.
_DOCUMENTS = 1_000_000


async def facts_by_words(
    conn: AsyncConnection, user_id: str, terms: list[str], limit: int, *, taught: bool = False
) -> list[tuple[Any, float]]:
    """The user's active fact rows (only taught ones if `taught`) that hold any of `terms`,
    best first, with their score."""
    dialect = conn.dialect.name
    if dialect == "sqlite":
        if not searchable_user(user_id):
            return []
        matches = [fts5_match(user_id, [term]) for term in terms]
    else:
        matches = [query for term in terms if (query := boolean_query(user_id, [term]))]
    if not matches:
        return []
    params: dict[str, str | int] = {f"match{i}": m for i, m in enumerate(matches)}
    params |= {"user_id": user_id, "cap": MAX_MATCHES + 1, "limit": limit}
    rows = await _statement(dialect, len(matches), taught).rows(conn, **params)
    return [(row, float(row["score"])) for row in rows]


@functools.cache
def _statement(dialect: str, terms: int, taught: bool) -> PreparedRead:
    """The search for a number of words (the words come as `:match0`, `:match1`...): built once
    per size, since building it costs more than running it, and sent by the driver."""
    per_term = [_holding(dialect, i, taught).limit(bindparam("cap")).subquery()
                for i in range(terms)]
    hits = union_all(*(select(literal(i).label("term"), q.c.seq)
                       for i, q in enumerate(per_term))).subquery("hits")
    # Each word's count of facts beside its hits, by a window over one read of the index: a
    # second reference to the hits (a CTE joined to its own counts) made MariaDB read every
    # word's postings twice.
    counted = select(hits.c.term, hits.c.seq,
                     func.count().over(partition_by=hits.c.term).label("matches")
                     ).subquery("counted")
    user: BindParameter[str] = bindparam("user_id")
    origin = facts.c.origin == "taught" if taught else true()
    n = counted.c.matches
    idf = func.ln(1 + (_DOCUMENTS - n + 0.5) / (n + 0.5))
    scored = (
        select(counted.c.seq, func.sum(idf).label("score"))
        .join_from(counted, facts, facts.c.seq == counted.c.seq)
        .where((n <= MAX_MATCHES) & (facts.c.user_id == user) & (facts.c.status == "active")
               & origin)
        .group_by(counted.c.seq)
        .order_by(literal_column("score").desc(), counted.c.seq.desc())  # newer first on a tie
        .limit(bindparam("limit"))
        .subquery("scored")
    )
    return PreparedRead(
        select(facts, scored.c.score).join_from(scored, facts, facts.c.seq == scored.c.seq)
        .order_by(scored.c.score.desc(), scored.c.seq.desc()))


def _holding(dialect: str, term: int, taught: bool) -> Select[Any]:
    """The `seq` of the user's facts (taught ones if `taught`) that hold word number `term`."""
    words: BindParameter[str] = bindparam(f"match{term}")
    if dialect == "sqlite":  # the user is part of the FTS5 query, and matched in the index
        index = table(_FTS[taught], column("rowid"))
        return select(index.c.rowid.label("seq")).where(
            literal_column(_FTS[taught]).op("MATCH")(words))
    found: ColumnElement[Any] = match(facts.c.words, against=words)
    where = (facts.c.user_id == bindparam("user_id")) & (found.in_boolean_mode() > 0)
    return select(facts.c.seq).where(where & (facts.c.origin == "taught") if taught else where)
