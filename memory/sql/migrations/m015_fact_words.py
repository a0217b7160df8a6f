"""Migration 15: MySQL's FULLTEXT index of facts moves from their text to their words, each
behind the user's key (`words`), so that a search reads the user's postings only; SQLite's FTS5
index already does. Every stored fact gets its words (on SQLite too: one schema)."""

from __future__ import annotations

import hashlib

import regex
from sqlalchemy import Connection, bindparam, column, inspect, select, table, text, update

from memory.sql.migrations.frozen import add_missing_columns

NAME = "facts searched by their words behind the user's key"
_BATCH = 1000
# What memory.lexical.user_words said when this migration was written.
_WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")
_facts = table("facts", column("seq"), column("user_id"), column("text"), column("words"))


def user_words(user_id: str, said: str) -> str:
    key = "u" + hashlib.sha256(user_id.encode()).hexdigest()[:8]
    return " ".join(key + word for word in dict.fromkeys(_WORD.findall(said.lower())))


def apply(conn: Connection) -> None:
    mysql = conn.dialect.name in {"mysql", "mariadb"}
    ddl = "TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL" if mysql else "TEXT NULL"
    add_missing_columns(conn, "facts", {"words": ddl})
    _fill(conn)
    if mysql:  # the index is built once, over the filled column
        indexes = {index["name"] for index in inspect(conn).get_indexes("facts")}
        if "ft_facts_words" not in indexes:
            conn.execute(text("CREATE FULLTEXT INDEX ft_facts_words ON facts (words)"))
        if "ft_facts_text" in indexes:
            conn.execute(text("DROP INDEX ft_facts_text ON facts"))


def _fill(conn: Connection) -> None:
    """Batch by batch, in `seq` order, so that a run after a crash goes on where it stopped."""
    after = 0
    fill = (update(_facts).where(_facts.c.seq == bindparam("row_seq"))
            .values(words=bindparam("row_words")))
    while rows := conn.execute(
            select(_facts.c.seq, _facts.c.user_id, _facts.c.text)
            .where(_facts.c.words.is_(None) & (_facts.c.seq > after))
            .order_by(_facts.c.seq).limit(_BATCH)).all():
        conn.execute(fill, [{"row_seq": row.seq, "row_words": user_words(row.user_id, row.text)}
                            for row in rows])
        after = rows[-1].seq
