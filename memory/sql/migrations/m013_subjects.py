"""Migration 13: beliefs' subjects are the subjects of a person's life found by meaning
(`memory.beliefs.subjects`: "home", "work", "pets"...) instead of the hand-written claims' own
("country", "employer", "pet_name:dog"), which this renames; and an index to read the newest
statement on a subject."""

from __future__ import annotations

from sqlalchemy import Connection, text

from memory.sql.migrations.frozen import add_missing_indexes

NAME = "subjects by meaning, and the newest statement on a subject"
# The claims' subjects as they were, and the subject of a life each is part of now (frozen:
# what memory.beliefs.subjects.subject_of_claim said when this migration was written).
_RENAMED = {"country": "home", "job": "work", "employer": "work", "relationship": "partner",
            "smokes": "habits"}
_RENAMED_PREFIXES = {"partner_name:": "partner", "pet_name:": "pets", "has_pet:": "pets",
                     "count:pets": "pets", "count:cats": "pets", "count:dogs": "pets",
                     "count:": "family"}


def apply(conn: Connection) -> None:
    for old, new in _RENAMED.items():
        conn.execute(text("UPDATE facts SET subject = :new WHERE subject = :old"),
                     {"new": new, "old": old})
    for prefix, new in _RENAMED_PREFIXES.items():  # the longer prefixes first
        conn.execute(text("UPDATE facts SET subject = :new WHERE subject LIKE :prefix"),
                     {"new": new, "prefix": f"{prefix}%"})
    add_missing_indexes(conn, "facts", {"ix_facts_user_subject_said": "user_id, subject, said_at"})
