"""Migration 3: facts (one short statement each, with its provenance), their lexical index, and
a backfill job for every window summarized before facts existed."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Index,
    MetaData,
    String,
    Table,
    cast,
    column,
    func,
    insert,
    literal,
    select,
    table,
    text,
)

from memory.sql.migrations.frozen import MYSQL, FactText, RowId, Timestamp, UserId, now

NAME = "facts, their lexical index, and a backfill of facts for summarized rounds"

_metadata = MetaData()

_facts = Table(
    "facts",
    _metadata,
    Column("seq", RowId, primary_key=True, autoincrement=True),
    Column("id", String(32), nullable=False, unique=True),
    Column("user_id", UserId, nullable=False),
    Column("text", FactText, nullable=False),
    Column("speaker", String(16), nullable=False),
    Column("said_at", Timestamp, nullable=False),
    Column("round_ids", String(200), nullable=False),
    Column("status", String(16), nullable=False),
    Column("source_job_id", BigInteger, nullable=True),
    Column("indexed", Boolean, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Index("ix_facts_user_status_said", "user_id", "status", "said_at"),
    **MYSQL,
)
# MySQL's FULLTEXT matching follows the column's collation: a binary one would make it
# case-sensitive. (ddl_if takes a tuple of dialects, whatever its type hint says.)
Index("ft_facts_text", _facts.c.text, mysql_prefix="FULLTEXT").ddl_if(
    dialect=("mysql", "mariadb"))  # type: ignore[arg-type]

# SQLite's lexical index of facts: an FTS5 table that reads from `facts` (external content)
# and is kept in step by triggers, in the same transaction. It indexes the user id too, so a
# search reads only the user's postings. Facts never change their text or user, so inserts and
# deletes are all it follows. porter: "paints" finds "painting".
_SQLITE_FACT_INDEX = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(user_id, text, content='facts', "
    "content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS facts_fts_insert AFTER INSERT ON facts BEGIN "
    "INSERT INTO facts_fts(rowid, user_id, text) VALUES (new.seq, new.user_id, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS facts_fts_delete AFTER DELETE ON facts BEGIN "
    "INSERT INTO facts_fts(facts_fts, rowid, user_id, text) "
    "VALUES ('delete', old.seq, old.user_id, old.text); END",
)

# The columns the backfill reads and writes, as they stood then.
_rounds = table("rounds", column("id"), column("user_id"), column("summary_job_id"))
_memory_jobs = table(
    "memory_jobs", column("job_key"), column("kind"), column("user_id"),
    column("first_round_id"), column("last_round_id"), column("status"), column("attempts"),
    column("next_attempt_at"), column("created_at"),
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)  # on MySQL with its FULLTEXT index
    if conn.dialect.name == "sqlite":
        for statement in _SQLITE_FACT_INDEX:
            conn.execute(text(statement))
    _queue_backfill(conn)


def _queue_backfill(conn: Connection) -> None:
    """One "facts" job per window summarized so far: the sweep gives those rounds their facts,
    and their topics stay as they are."""
    rounds, queued_at = _rounds.c, now()
    windows = (
        select(
            literal("facts:") + cast(rounds.summary_job_id, String),
            literal("facts"), rounds.user_id, func.min(rounds.id), func.max(rounds.id),
            literal("pending"), literal(0), literal(queued_at), literal(queued_at),
        )
        .where(rounds.summary_job_id.is_not(None))
        .group_by(rounds.user_id, rounds.summary_job_id)
    )
    conn.execute(insert(_memory_jobs).from_select(
        ["job_key", "kind", "user_id", "first_round_id", "last_round_id", "status", "attempts",
         "next_attempt_at", "created_at"],
        windows,
    ))
