"""The tables as they stand today: the shape the row code reads and writes.

Nothing creates tables from these definitions: the migrations in `memory.sql.migrations` do,
each with its own frozen copy of the shapes it made. A change here needs a new migration that
makes it. tests/memory/sql/test_migrations.py checks that a migrated database has these tables,
columns (name, type, nullability, default) and indexes; only the order of columns may differ,
as a migration adds a column last.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.dialects import mysql

from memory.lexical import TERM_LENGTH

metadata = MetaData()

# Exact round-trip of any Unicode on MySQL: 4-byte UTF-8 and a binary collation.
_MYSQL: dict[str, Any] = {"mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_bin"}
# SQLite autoincrements only an INTEGER PRIMARY KEY; MySQL gets a BIGINT.
RowId = BigInteger().with_variant(Integer(), "sqlite")
# Microsecond timestamps, so ordering by time is stable on MySQL too.
Timestamp = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
# Replies can be long; MySQL's TEXT stops at 64 KB.
LongText = Text().with_variant(mysql.MEDIUMTEXT(), "mysql", "mariadb")
UserId = String(191)  # 191 x 4 bytes fits InnoDB's index key limit with utf8mb4
# Case-insensitive on MySQL, as migration 3 made it for a full-text index since dropped; the
# stored text still round-trips exactly (utf8mb4).
FactText = Text().with_variant(
    mysql.TEXT(charset="utf8mb4", collation="utf8mb4_unicode_ci"), "mysql", "mariadb"
)

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("name", String(100), nullable=False),
    Column("applied_at", Timestamp, nullable=False),
    **_MYSQL,
)

rounds = Table(
    "rounds",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("user_id", UserId, nullable=False),
    Column("conversation_id", UserId, nullable=False),
    Column("persona", String(64), nullable=False),
    Column("user_text", LongText, nullable=False),
    Column("reply_text", LongText, nullable=True),
    Column("status", String(16), nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("replied_at", Timestamp, nullable=True),
    # The summarize job that turned this round into topics; NULL while unsummarized.
    Column("summary_job_id", BigInteger, nullable=True),
    # The memories the reply cited ("fact:<id>", "topic:<id>", "feedback:<id>"), as JSON;
    # added by migration 4.
    Column("cited", Text, nullable=True),
    # What the reply was given, by id (see memory.provenance), as JSON; added by migration 10.
    Column("used", Text, nullable=True),
    Index("ix_rounds_user_id_id", "user_id", "id"),
    **_MYSQL,
)

profiles = Table(
    "profiles",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("persona", String(64), nullable=True),
    Column("updated_at", Timestamp, nullable=False),
    **_MYSQL,
)

topics = Table(
    "topics",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("label", String(200), nullable=False),
    # The normalized label that topics are merged by ("Hobbies" and "hobby" share one).
    Column("label_key", String(200), nullable=False),
    Column("description", LongText, nullable=False),
    # active: in the vector index and the prompt. merged: kept as history of `merged_into`.
    Column("status", String(16), nullable=False),
    Column("merged_into", String(36), nullable=True),
    Column("source_job_id", BigInteger, nullable=True),
    # False while the vector index may not match this row yet (a sweep repairs it).
    Column("indexed", Boolean, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("updated_at", Timestamp, nullable=False),
    # A superseded belief whose old value the description quotes, and no newer one: the topic
    # is shown as earlier (memory.beliefs.outdated).
    Column("quotes_superseded", String(32), nullable=True),
    Index("ix_topics_user_status_updated", "user_id", "status", "updated_at"),
    Index("ix_topics_user_label_key", "user_id", "label_key"),
    **_MYSQL,
)

# Per user: rounds stored but not yet given to a summarize job, and the last round that was.
memory_progress = Table(
    "memory_progress",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("pending_rounds", Integer, nullable=False),
    Column("scheduled_through", BigInteger, nullable=False),
    **_MYSQL,
)

# Durable summarize and merge work. `job_key` makes each window and each merge happen once.
memory_jobs = Table(
    "memory_jobs",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("job_key", String(191), nullable=False, unique=True),
    Column("kind", String(16), nullable=False),
    Column("user_id", UserId, nullable=False),
    Column("first_round_id", BigInteger, nullable=True),
    Column("last_round_id", BigInteger, nullable=True),
    Column("label_key", String(200), nullable=True),
    Column("topic_ids", Text, nullable=True),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", Timestamp, nullable=False),
    Column("claimed_by", String(64), nullable=True),
    Column("claimed_at", Timestamp, nullable=True),
    Column("last_error", Text, nullable=True),
    Column("created_at", Timestamp, nullable=False),
    Column("finished_at", Timestamp, nullable=True),
    Index("ix_memory_jobs_status_due", "status", "next_attempt_at"),
    **_MYSQL,
)

# Facts: one short statement each, with its provenance, added by migration 3. The lexical index
# over `text` is an FTS5 table on SQLite (see memory/sql/migrations/m003_facts.py) and
# `fact_terms` on MySQL.
facts = Table(
    "facts",
    metadata,
    # An integer key the SQLite FTS5 index can follow (`content_rowid`); `id` is the public one.
    Column("seq", RowId, primary_key=True, autoincrement=True),
    Column("id", String(32), nullable=False, unique=True),
    Column("user_id", UserId, nullable=False),
    Column("text", FactText, nullable=False),
    Column("speaker", String(16), nullable=False),  # user | companion
    Column("said_at", Timestamp, nullable=False),  # the time of the round it came from
    Column("round_ids", String(200), nullable=False),  # provenance: round ids, space-separated
    # active: in the indexes and the prompt; retracted: said to be wrong by the user (`/wrong`),
    # kept for audit and undo, out of every prompt.
    Column("status", String(16), nullable=False),
    # said (found in a conversation) | taught (by the user, on purpose); added by migration 4.
    Column("origin", String(16), nullable=False, server_default="said"),
    Column("source_job_id", BigInteger, nullable=True),
    # False while the vector index may not hold this row yet (a sweep repairs it).
    Column("indexed", Boolean, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    # Beliefs (migration 5): who the fact is about (user | companion; NULL: no belief, such as
    # the companion's suggestions), the persona that said it, the subject it claims something
    # about (see memory.beliefs.subjects), how sure we are of it, how often it was said, whether it
    # was checked against the beliefs before it, and what superseded it (status superseded).
    Column("about", String(16), nullable=True),
    Column("persona", String(64), nullable=True),
    Column("subject", String(120), nullable=True),
    Column("confidence", Float, nullable=False, server_default="0"),
    Column("repeats", Integer, nullable=False, server_default="1"),
    Column("checked", Boolean, nullable=False, server_default="1"),
    Column("superseded_by", String(32), nullable=True),
    # A user's statement kept the moment its round was stored, until the summary of the round's
    # window replaces it (migration 11). Never a belief: the window's facts are checked.
    Column("provisional", Boolean, nullable=False, server_default="0"),
    # A provisional fact's vector (float32, base64: MySQL drivers mishandle bytes in a batch
    # insert), searched in SQL until its window is summarized; NULL for every other fact, whose
    # vector is in the vector index (migration 12).
    Column("vector", Text, nullable=True),
    Index("ix_facts_user_status_said", "user_id", "status", "said_at"),
    Index("ix_facts_user_checked", "user_id", "checked"),
    Index("ix_facts_user_subject", "user_id", "subject"),
    Index("ix_facts_user_subject_said", "user_id", "subject", "said_at"),
    Index("ix_facts_user_provisional", "user_id", "provisional", "status"),
    Index("ix_facts_user_origin_status", "user_id", "origin", "status"),
    **_MYSQL,
)
# MySQL's lexical index of facts (migration 20): each word of each fact (`memory.lexical.
# indexed_words`) with the fact's user and whether it was taught, so that a search reads only
# the user's postings of the word, in a B-tree (a prefix is a range of it). Rows go with their
# fact (ON DELETE CASCADE). InnoDB's FULLTEXT index kept every deleted fact in a list each
# search read whole until OPTIMIZE TABLE, and a summary deletes a window's provisional facts.
# SQLite's lexical index is its FTS5 tables (migration 3): this one stays empty there.
fact_terms = Table(
    "fact_terms",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("taught", Boolean, primary_key=True),
    Column("term", String(TERM_LENGTH), primary_key=True),
    Column("fact_id", String(32), ForeignKey("facts.id", ondelete="CASCADE"), primary_key=True),
    Index("ix_fact_terms_fact", "fact_id"),
    **_MYSQL,
)

# Corrections (MemPrompt's memory M), added by migration 2. A newer correction of the same
# message (`key_hash`) supersedes the older one, which is kept as history.
feedback = Table(
    "feedback",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("key_text", LongText, nullable=False),
    Column("key_hash", String(64), nullable=False),  # sha256 of the normalized key
    Column("feedback", LongText, nullable=False),
    Column("understanding", Text, nullable=True),
    Column("frame", Text, nullable=False),
    Column("rule", String(200), nullable=False),
    Column("persona", String(64), nullable=False),
    # active: looked up for new messages. superseded: replaced by `superseded_by`.
    Column("status", String(16), nullable=False),
    Column("superseded_by", String(36), nullable=True),
    # Applies to every user: promoted by an admin, or given while sharing was on.
    Column("shared", Boolean, nullable=False),
    # False while the vector index may not hold this row yet (the next lookup repairs it).
    Column("indexed", Boolean, nullable=False),
    Column("round_id", BigInteger, nullable=True),  # the round that gave the correction
    Column("created_at", Timestamp, nullable=False),
    Index("ix_feedback_user_status", "user_id", "status"),
    Index("ix_feedback_user_key", "user_id", "key_hash"),
    Index("ix_feedback_shared_status", "shared", "status"),
    **_MYSQL,
)

# Two beliefs of a user that disagree where neither clearly wins (migration 5): the next reply in
# a private chat asks the user once (status open -> asked); settled once either side is gone.
belief_questions = Table(
    "belief_questions",
    metadata,
    Column("id", String(32), primary_key=True),  # from the pair: the same conflict is one row
    Column("user_id", UserId, nullable=False),
    Column("earlier_id", String(32), nullable=False),
    Column("later_id", String(32), nullable=False),
    Column("status", String(16), nullable=False),  # open | asked | settled
    Column("created_at", Timestamp, nullable=False),
    Column("asked_at", Timestamp, nullable=True),
    Index("ix_belief_questions_user_status", "user_id", "status"),
    **_MYSQL,
)

# The shared pool of good exchanges (Memory Sharing), added by migration 6. SQL is the record;
# the vectors of shared entries live in a chroma collection per domain.
pool_entries = Table(
    "pool_entries",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("prompt", LongText, nullable=False),  # scrubbed of personal details
    Column("answer", LongText, nullable=False),
    Column("persona", String(64), nullable=False),
    Column("domain", String(32), nullable=False),
    Column("kind", String(64), nullable=True),
    Column("status", String(16), nullable=False),  # candidate | shared | rejected
    Column("source", String(16), nullable=False),  # example | chat | admin | grown
    Column("score", Integer, nullable=True),
    Column("rubric_version", Integer, nullable=True),
    Column("votes", Integer, nullable=False),
    Column("user_id", UserId, nullable=True),
    Column("round_id", BigInteger, nullable=True, unique=True),  # one entry per round
    # False while the vector index may not match this row yet (a sweep repairs it).
    Column("indexed", Boolean, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("reviewed_by", UserId, nullable=True),
    Index("ix_pool_entries_status_domain", "status", "domain"),
    Index("ix_pool_entries_user", "user_id"),
    **_MYSQL,
)

# Who lets their good exchanges enter the pool (/share on); nobody does until they say so.
pool_optins = Table(
    "pool_optins",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("since", Timestamp, nullable=False),
    **_MYSQL,
)

# Each training of the pool's retriever; the newest accepted one is in use.
pool_retrievers = Table(
    "pool_retrievers",
    metadata,
    Column("version", RowId, primary_key=True, autoincrement=True),
    Column("trained_at", Timestamp, nullable=False),
    Column("entries", Integer, nullable=False),  # the labelled shared entries it saw
    Column("held_back", Integer, nullable=False),
    Column("score", Float, nullable=False),  # same kind at 1 on the held-back entries
    Column("previous_score", Float, nullable=False),  # the version in use, on the same entries
    Column("cosine_score", Float, nullable=True),  # plain cosine, on the same entries
    Column("accepted", Boolean, nullable=False),
    Column("model", LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb"),
           nullable=False),
    **_MYSQL,
)

# The platform messages that showed a reply, so a reaction to one reaches its round.
reply_messages = Table(
    "reply_messages",
    metadata,
    Column("message_key", String(191), primary_key=True),  # "telegram:<chat>:<message>"
    Column("user_id", UserId, nullable=False),
    Column("round_id", BigInteger, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    **_MYSQL,
)

# Whose turn it is, across processes (migration 7): a user's messages are answered one at a time
# even when they reach different bot processes (see memory/sql/user_turns.py).
user_turns = Table(
    "user_turns",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("holder", String(64), nullable=False),
    Column("expires_at", Timestamp, nullable=False),
    **_MYSQL,
)

# How many messages each user sent in the current minute, across processes (migration 8): the
# rate limit holds however many bot processes a user's messages reach.
message_counts = Table(
    "message_counts",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("minute", BigInteger, nullable=False),  # minutes since the epoch
    Column("count", Integer, nullable=False),
    **_MYSQL,
)

# Which embedding model the `indexed` flags speak for (migration 9): one row, `name` "vectors".
# When the configured model changes, every flag is reset and the new model's index is rebuilt.
index_model = Table(
    "index_model",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("embedder", String(64), nullable=True),  # NULL: not recorded yet
    Column("changed_at", Timestamp, nullable=False),
    **_MYSQL,
)

# Coming events the user told of (memory.plans; migration 17): their sentence, the days it is
# on, the round it came from; asked about once after its last day (status open -> asked), or
# replaced by a later plan that says it changed.
plans = Table(
    "plans",
    metadata,
    Column("id", String(32), primary_key=True),  # from the round: finding it twice is harmless
    Column("user_id", UserId, nullable=False),
    Column("persona", String(64), nullable=True),
    Column("text", FactText, nullable=False),
    Column("first_day", Date, nullable=False),
    Column("last_day", Date, nullable=False),
    Column("said_at", Timestamp, nullable=False),
    Column("round_id", RowId, nullable=False),
    Column("status", String(16), nullable=False),  # open | asked | replaced
    Column("asked_at", Timestamp, nullable=True),
    # How it was asked about: "reply" (in a reply to the user) or "checkin" (a message sent
    # when they had not written; migration 18).
    Column("asked_via", String(16), nullable=True),
    Index("ix_plans_user_status_last", "user_id", "status", "last_day"),
    **_MYSQL,
)

# Who asked for check-ins (/checkins on), and in which time zone (/timezone; migration 18).
checkins = Table(
    "checkins",
    metadata,
    Column("user_id", UserId, primary_key=True),
    Column("enabled", Boolean, nullable=False),
    Column("timezone", String(64), nullable=True),  # an IANA name; NULL: checkins.timezone
    Column("updated_at", Timestamp, nullable=False),
    **_MYSQL,
)
