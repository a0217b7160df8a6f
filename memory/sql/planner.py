"""What SQLite's query planner should assume of our tables.

Without statistics SQLite guesses that an equality on an index's column leaves about ten
rows. For `user_id = ?` that is wrong by orders of magnitude: a user who talks for months has
tens of thousands of facts or rounds. So `user_id = ? AND id IN (5 ids)` walked the user's
whole index instead of looking up 5 ids: 30-50 ms at 100,000 facts, against 0.02 ms.
ANALYZE would measure the truth, but a new database has nothing to measure; SQLite's
documentation suggests, for that case, shipping statistics of the data's shape in
`sqlite_stat1`. These are written when the database is opened.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection, text

# SQLite's own assumption of a table's size when it knows nothing.
TABLE_ROWS = 1_000_000
# Distinct values of a column in a table of TABLE_ROWS rows: users (10,000 rows each, a long
# history), few values of a flag or a status, and nearly one row each for anything else (ids,
# times, words, subjects).
USERS = 100
FEW = 4
MANY = 100_000
# A declared type such as VARCHAR(16), whatever follows it (a collation).
_VARCHAR = re.compile(r"VARCHAR\((\d+)\)")


def write_planner_statistics(conn: Connection) -> None:
    """Our statistics for every index of a table with a `user_id`, in place of what
    `sqlite_stat1` held for them; nothing is written when they are already there."""
    wanted = {(table, index): stat for table, index, stat in _statistics(conn)}
    held = _held(conn)
    if all(held.get(key) == stat for key, stat in wanted.items()):
        return  # a read only: a cheap command beside a running bot takes no write lock
    conn.execute(text("ANALYZE sqlite_schema"))  # creates sqlite_stat1 where missing
    for (table, index), stat in wanted.items():
        conn.execute(text("DELETE FROM sqlite_stat1 WHERE tbl = :table AND idx = :index"),
                     {"table": table, "index": index})
        conn.execute(text("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (:t, :i, :s)"),
                     {"t": table, "i": index, "s": stat})
    conn.execute(text("ANALYZE sqlite_schema"))  # this connection reads them again


def _held(conn: Connection) -> dict[tuple[str, str], str]:
    exists = conn.execute(text(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'")).first()
    if exists is None:
        return {}
    return {(row.tbl, row.idx): row.stat for row in
            conn.execute(text("SELECT tbl, idx, stat FROM sqlite_stat1"))}


def _statistics(conn: Connection) -> list[tuple[str, str, str]]:
    found = []
    for table in conn.execute(text(
            "SELECT name FROM sqlite_schema WHERE type = 'table'")).scalars():
        types = {row.name: row.type.upper() for row in
                 conn.execute(text(f"PRAGMA table_info('{table}')"))}
        if "user_id" not in types:
            continue
        for index in conn.execute(text(f"PRAGMA index_list('{table}')")).mappings():
            columns = [row.name for row in
                       conn.execute(text(f"PRAGMA index_info('{index['name']}')"))]
            found.append((table, index["name"],
                          _stat([types[c] if c != "user_id" else "user_id" for c in columns],
                                unique=bool(index["unique"]))))
    return found


def _stat(kinds: list[str], *, unique: bool) -> str:
    """sqlite_stat1's `stat`: the rows of the index, then how many rows share each prefix."""
    distinct = 1
    rows = []
    for kind in kinds:
        distinct = min(TABLE_ROWS, distinct * _distinct(kind))
        rows.append(max(1, TABLE_ROWS // distinct))
    if unique:
        rows[-1] = 1
    return " ".join(str(n) for n in [TABLE_ROWS, *rows])


def _distinct(kind: str) -> int:
    if kind == "user_id":
        return USERS
    if kind == "BOOLEAN" or _short_text(kind):
        return FEW
    return MANY


def _short_text(kind: str) -> bool:
    """A VARCHAR of at most 16 characters: a status, an origin, a speaker."""
    length = _VARCHAR.match(kind)
    return length is not None and int(length.group(1)) <= 16
