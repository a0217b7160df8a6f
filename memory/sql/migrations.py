"""Numbered schema migrations, each applied once and recorded in `schema_migrations`.

A migration never changes once released: a later change to a table is a new migration.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    Connection,
    String,
    bindparam,
    cast,
    func,
    insert,
    inspect,
    literal,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.beliefs.belief import belief_columns
from memory.sql import tables
from memory.sql.engine import utcnow
from memory.types import Fact, Origin, Speaker

Step = Callable[[Connection], None]


def _create_core_tables(conn: Connection) -> None:
    core = (tables.rounds, tables.profiles, tables.topics, tables.memory_progress,
            tables.memory_jobs)
    for table in core:
        table.create(conn, checkfirst=True)


def _create_feedback_table(conn: Connection) -> None:
    tables.feedback.create(conn, checkfirst=True)


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


def _create_facts(conn: Connection) -> None:
    """The facts table with its lexical index, and a backfill job for every window summarized
    before facts existed: the sweep gives those rounds their facts, topics stay as they are."""
    tables.facts.create(conn, checkfirst=True)  # on MySQL with its FULLTEXT index
    if conn.dialect.name == "sqlite":
        for statement in _SQLITE_FACT_INDEX:
            conn.execute(text(statement))
    rounds, jobs = tables.rounds, tables.memory_jobs
    now = utcnow()
    windows = (
        select(
            literal("facts:") + cast(rounds.c.summary_job_id, String),
            literal("facts"), rounds.c.user_id, func.min(rounds.c.id), func.max(rounds.c.id),
            literal("pending"), literal(0), literal(now), literal(now),
        )
        .where(rounds.c.summary_job_id.is_not(None))
        .group_by(rounds.c.user_id, rounds.c.summary_job_id)
    )
    conn.execute(insert(jobs).from_select(
        ["job_key", "kind", "user_id", "first_round_id", "last_round_id", "status", "attempts",
         "next_attempt_at", "created_at"],
        windows,
    ))


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
# Columns of migration 4, added where the table does not have them yet.
_ADDED_COLUMNS = (
    ("facts", "origin", "VARCHAR(16) NOT NULL DEFAULT 'said'"),
    ("rounds", "cited", "TEXT NULL"),
)


def _teaching(conn: Connection) -> None:
    """Taught facts (an origin for facts, and their own lexical index on SQLite) and the
    memories a reply cited, kept with its round."""
    _add_missing_columns(conn, _ADDED_COLUMNS)
    if conn.dialect.name == "sqlite":
        for statement in _SQLITE_TAUGHT_INDEX:
            conn.execute(text(statement))


# Columns of migration 5. Facts stored before it count as checked: an upgrade does not start
# superseding what was said long ago; new beliefs are checked against them.
_BELIEF_COLUMNS = (
    ("facts", "about", "VARCHAR(16) NULL"),
    ("facts", "persona", "VARCHAR(64) NULL"),
    ("facts", "subject", "VARCHAR(120) NULL"),
    ("facts", "confidence", "FLOAT NOT NULL DEFAULT 0"),
    ("facts", "repeats", "INTEGER NOT NULL DEFAULT 1"),
    ("facts", "checked", "BOOLEAN NOT NULL DEFAULT 1"),
    ("facts", "superseded_by", "VARCHAR(32) NULL"),
)


def _beliefs(conn: Connection) -> None:
    """Facts become beliefs: who each is about, its subject and confidence (computed for the
    facts stored so far with the rules of this release), and the questions about conflicts."""
    _add_missing_columns(conn, _BELIEF_COLUMNS)
    existing = {index["name"] for index in inspect(conn).get_indexes("facts")}
    for index in tables.facts.indexes:
        if index.name not in existing and index.name != "ft_facts_text":
            index.create(conn)
    tables.belief_questions.create(conn, checkfirst=True)
    facts = tables.facts
    stored = conn.execute(
        select(facts.c.seq, facts.c.id, facts.c.user_id, facts.c.text, facts.c.speaker,
               facts.c.said_at, facts.c.origin)
        .where(facts.c.about.is_(None) & (facts.c.confidence == 0))
    ).mappings().all()
    changes = []
    for row in stored:
        fact = Fact(row["id"], row["user_id"], row["text"], Speaker(row["speaker"]),
                    row["said_at"], (), Origin(row["origin"]))
        columns = belief_columns(fact)
        changes.append({"row": row["seq"], "new_about": columns["about"],
                        "new_subject": columns["subject"],
                        "new_confidence": columns["confidence"]})
    if changes:  # one statement, executed for every row
        conn.execute(
            update(facts).where(facts.c.seq == bindparam("row")).values(
                about=bindparam("new_about"), subject=bindparam("new_subject"),
                confidence=bindparam("new_confidence")),
            changes,
        )


def _shared_pool(conn: Connection) -> None:
    for table in (tables.pool_entries, tables.pool_optins, tables.pool_retrievers,
                  tables.reply_messages):
        table.create(conn, checkfirst=True)


def _user_turns(conn: Connection) -> None:
    tables.user_turns.create(conn, checkfirst=True)


def _message_counts(conn: Connection) -> None:
    tables.message_counts.create(conn, checkfirst=True)


def _index_model(conn: Connection) -> None:
    """Nothing recorded yet: the indexes are taken to be the configured model's, as before."""
    tables.index_model.create(conn, checkfirst=True)
    conn.execute(insert(tables.index_model).values(name="vectors", embedder=None,
                                                   changed_at=utcnow()))


def _reply_uses(conn: Connection) -> None:
    """What each reply used (Recency, Relevance, Latest_topics...), by id, kept with its round:
    `/why` and `/wrong` then work in any process, after a restart, and never show a memory
    that was forgotten meanwhile."""
    _add_missing_columns(conn, (("rounds", "used", "TEXT NULL"),))


def _add_missing_columns(conn: Connection, columns: tuple[tuple[str, str, str], ...]) -> None:
    for table, column, ddl in columns:
        if column not in {c["name"] for c in inspect(conn).get_columns(table)}:
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}"))


MIGRATIONS: tuple[tuple[int, str, Step], ...] = (
    (1, "rounds, profiles, topics and memory jobs", _create_core_tables),
    (2, "feedback memories", _create_feedback_table),
    (3, "facts, their lexical index, and a backfill of facts for summarized rounds",
     _create_facts),
    (4, "taught facts and the memories a reply cited", _teaching),
    (5, "beliefs: subjects, confidence, supersession and questions about conflicts", _beliefs),
    (6, "the shared pool of good exchanges, opt-ins, retriever versions and reply messages",
     _shared_pool),
    (7, "whose turn it is, across processes", _user_turns),
    (8, "messages per user and minute, across processes", _message_counts),
    (9, "the embedding model the vector indexes were built with", _index_model),
    (10, "what each reply used, kept with its round", _reply_uses),
)

_LOCK_NAME = "companion_migrations"


async def migrate(engine: AsyncEngine) -> list[int]:
    """Apply the migrations this database lacks; returns the versions applied now."""
    async with engine.begin() as conn:
        return await conn.run_sync(_apply_missing)


def _apply_missing(conn: Connection) -> list[int]:
    is_mysql = conn.dialect.name in {"mysql", "mariadb"}
    if is_mysql:  # two processes starting at once must not both run a migration
        conn.execute(text("SELECT GET_LOCK(:name, 60)"), {"name": _LOCK_NAME})
    try:
        tables.schema_migrations.create(conn, checkfirst=True)
        done = set(conn.execute(select(tables.schema_migrations.c.version)).scalars())
        applied = []
        for version, name, step in MIGRATIONS:
            if version in done:
                continue
            step(conn)
            conn.execute(
                insert(tables.schema_migrations).values(
                    version=version, name=name, applied_at=utcnow()
                )
            )
            applied.append(version)
        return applied
    finally:
        if is_mysql:
            conn.execute(text("SELECT RELEASE_LOCK(:name)"), {"name": _LOCK_NAME})
