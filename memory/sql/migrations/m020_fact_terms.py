"""Migration 20: MySQL's lexical index of facts moves from InnoDB's FULLTEXT index over their
keyed words (migration 15) to a postings table, `fact_terms`, filled from every stored fact.
A FULLTEXT index keeps each deleted fact in a list that every search reads whole until OPTIMIZE
TABLE, and a summary deletes a window's provisional facts: searches grew slower with use. The
`words` column goes on both backends (one schema); SQLite's FTS5 tables stay its index."""

from __future__ import annotations

import unicodedata

import regex
from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    ForeignKey,
    Index,
    MetaData,
    String,
    Table,
    column,
    insert,
    inspect,
    select,
    table,
    text,
)

from memory.sql.migrations.frozen import MYSQL, UserId

NAME = "facts searched through a table of their words"
_BATCH = 1000
_TERM_LENGTH = 64
# What memory.lexical.indexed_words said when this migration was written.
_WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")
_LATIN_END = "\u0250"

_metadata = MetaData()
_facts = Table("facts", _metadata, Column("id", String(32), primary_key=True))
_fact_terms = Table(
    "fact_terms",
    _metadata,
    Column("user_id", UserId, primary_key=True),
    Column("taught", Boolean, primary_key=True),
    Column("term", String(_TERM_LENGTH), primary_key=True),
    Column("fact_id", String(32), ForeignKey("facts.id", ondelete="CASCADE"), primary_key=True),
    Index("ix_fact_terms_fact", "fact_id"),
    **MYSQL,
)
_stored = table("facts", column("seq"), column("id"), column("user_id"), column("text"),
                column("origin"))


def indexed_words(said: str) -> list[str]:
    return list(dict.fromkeys(_plain(word) for word in _WORD.findall(said.lower())))


def _plain(word: str) -> str:
    kept: list[str] = []
    for char in unicodedata.normalize("NFD", word):
        if not (unicodedata.combining(char) and kept and kept[-1] < _LATIN_END):
            kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))[:_TERM_LENGTH]


def apply(conn: Connection) -> None:
    _fact_terms.create(conn, checkfirst=True)
    mysql = conn.dialect.name in {"mysql", "mariadb"}
    if mysql:
        _fill(conn)
        if "ft_facts_words" in {index["name"] for index in inspect(conn).get_indexes("facts")}:
            conn.execute(text("DROP INDEX ft_facts_words ON facts"))
    if "words" in {c["name"] for c in inspect(conn).get_columns("facts")}:
        conn.execute(text("ALTER TABLE facts DROP COLUMN words"))


def _fill(conn: Connection) -> None:
    """Batch by batch, in `seq` order. A crash midway rolls the rows back (the migration is
    one transaction); IGNORE keeps a second run from failing on rows a first one left."""
    after = 0
    fill = insert(_fact_terms).prefix_with("IGNORE")
    while rows := conn.execute(
            select(_stored.c.seq, _stored.c.id, _stored.c.user_id, _stored.c.text,
                   _stored.c.origin)
            .where(_stored.c.seq > after).order_by(_stored.c.seq).limit(_BATCH)).all():
        postings = [{"user_id": row.user_id, "taught": row.origin == "taught", "term": term,
                     "fact_id": row.id} for row in rows for term in indexed_words(row.text)]
        if postings:
            conn.execute(fill, postings)
        after = rows[-1].seq
