"""Migration 4: taught facts (an origin for each fact, and on SQLite a lexical index of the
taught ones) and the memories a reply cited, kept with its round."""

from __future__ import annotations

from sqlalchemy import Connection, text

from memory.sql.migrations.frozen import add_missing_columns

NAME = "taught facts and the memories a reply cited"

# Taught facts get a lexical index of their own on SQLite: the few a user taught are searched
# apart from the many found in conversations, whose common words would crowd them out.
_SQLITE_TAUGHT_INDEX = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS taught_fts USING fts5(user_id, text, content='facts', "
    "content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS taught_fts_insert AFTER INSERT ON facts "
    "WHEN new.origin = 'taught' BEGIN "
    "INSERT INTO taught_fts(rowid, user_id, text) VALUES (new.seq, new.user_id, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS taught_fts_delete AFTER DELETE ON facts "
    "WHEN old.origin = 'taught' BEGIN "
    "INSERT INTO taught_fts(taught_fts, rowid, user_id, text) "
    "VALUES ('delete', old.seq, old.user_id, old.text); END",
)


def apply(conn: Connection) -> None:
    # said (found in a conversation) | taught (by the user, on purpose)
    add_missing_columns(conn, "facts", {"origin": "VARCHAR(16) NOT NULL DEFAULT 'said'"})
    # "fact:<id>", "topic:<id>", "feedback:<id>", as JSON
    add_missing_columns(conn, "rounds", {"cited": "TEXT NULL"})
    if conn.dialect.name == "sqlite":
        for statement in _SQLITE_TAUGHT_INDEX:
            conn.execute(text(statement))
