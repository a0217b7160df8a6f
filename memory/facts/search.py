"""Search facts by words, in the lexical index that grows with the rows on each backend: SQLite's
FTS5 table (the user id indexed beside the text) and MySQL's `fact_terms` (a B-tree of each
fact's words under its user, `memory.facts.terms`): either way a search reads the user's
postings only.

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
    Select,
    bindparam,
    column,
    false,
    func,
    literal,
    literal_column,
    select,
    table,
    true,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from memory.lexical import MAX_MATCHES, fts5_match, searchable_user, word_patterns
from memory.sql.prepared import PreparedRead
from memory.sql.tables import fact_terms, facts

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
    params: dict[str, str | int] = {"user_id": user_id, "cap": MAX_MATCHES + 1, "limit": limit}
    if dialect == "sqlite":
        if not searchable_user(user_id):
            return []
        params |= {f"match{i}": fts5_match(user_id, [term]) for i, term in enumerate(terms)}
    else:
        for i, term in enumerate(terms):
            params[f"prefix{i}"], params[f"word{i}"] = word_patterns(term)
    rows = await _statement(dialect, len(terms), taught).rows(conn, **params)
    return [(row, float(row["score"])) for row in rows]


@functools.cache
def _statement(dialect: str, terms: int, taught: bool) -> PreparedRead:
    """The search for a number of words (each word's query comes as `:match0`... on SQLite,
    `:prefix0` and `:word0`... on MySQL): built once per size, since building it costs more
    than running it, and sent by the driver."""
    per_term = [_holding(dialect, i, taught).limit(bindparam("cap")).subquery()
                for i in range(terms)]
    hits = union_all(*(select(literal(i).label("term"), q.c.fact)
                       for i, q in enumerate(per_term))).subquery("hits")
    # Each word's count of facts beside its hits, by a window over one read of the index: a
    # second reference to the hits (a CTE joined to its own counts) made MariaDB read every
    # word's postings twice.
    counted = select(hits.c.term, hits.c.fact,
                     func.count().over(partition_by=hits.c.term).label("matches")
                     ).subquery("counted")
    origin = facts.c.origin == "taught" if taught else true()
    n = counted.c.matches
    idf = func.ln(1 + (_DOCUMENTS - n + 0.5) / (n + 0.5))
    found_fact = facts.c.seq if dialect == "sqlite" else facts.c.id  # what an index posts
    # The hits are the user's already (the index is searched by user); the user is checked on
    # the rows that come back, where it costs nothing. Beside the hits, it let MariaDB read
    # every fact of the user's to filter the hits by them.
    scored = (
        select(facts.c.seq, func.sum(idf).label("score"))
        .join_from(counted, facts, found_fact == counted.c.fact)
        .where((n <= MAX_MATCHES) & (facts.c.status == "active") & origin)
        .group_by(facts.c.seq)
        .order_by(literal_column("score").desc(), facts.c.seq.desc())  # newer first on a tie
        .limit(bindparam("limit"))
        .subquery("scored")
    )
    return PreparedRead(
        select(facts, scored.c.score).join_from(scored, facts, facts.c.seq == scored.c.seq)
        .where(facts.c.user_id == bindparam("user_id"))
        .order_by(scored.c.score.desc(), scored.c.seq.desc()))


def _holding(dialect: str, term: int, taught: bool) -> Select[Any]:
    """The user's facts (taught ones if `taught`) that hold word number `term`, as the index
    names them (`fact`: their `seq` in FTS5, their `id` in `fact_terms`)."""
    if dialect == "sqlite":  # the user is part of the FTS5 query, and matched in the index
        index = table(_FTS[taught], column("rowid"))
        return select(index.c.rowid.label("fact")).where(
            literal_column(_FTS[taught]).op("MATCH")(bindparam(f"match{term}")))
    # One range of the postings' key per kind of fact searched; a fact holding two words of
    # the prefix ("painting", "paints") counts once.
    taught_column = fact_terms.c.taught
    kinds = taught_column == true()
    if not taught:
        kinds = kinds | (taught_column == false())
    held = (fact_terms.c.term.like(bindparam(f"prefix{term}"))
            | (fact_terms.c.term == bindparam(f"word{term}")))
    return (select(fact_terms.c.fact_id.label("fact")).distinct()
            .where((fact_terms.c.user_id == bindparam("user_id")) & kinds & held))
