"""Statements sent by the database driver itself, for those every turn runs.

SQLAlchemy builds, caches and runs a Core statement with about 0.3 ms of CPU on top of the
driver's own, and 0.4 ms more for a read of 20 rows (MariaDB, measured 29 November 2026); a
turn sends about 23 statements. A `PreparedRead` or `PreparedWrite` is compiled by SQLAlchemy
once per dialect, its values named bound parameters; each run sends the compiled SQL through the
connection's driver, in the connection's transaction, and converts values and rows with the
column types' own processors. A driver's error comes out as SQLAlchemy's would (an
`IntegrityError`; `memory.sql.failures` reads the rest), and a connection that the error shows
gone is invalidated, so the pool does not hand it out again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import BindParameter, Select, bindparam
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.dml import UpdateBase

Processor = Callable[[Any], Any]
AnySelect = Select[*tuple[Any, ...]]  # of any number of columns


@dataclass(frozen=True, slots=True)
class _Compiled:
    """A statement compiled for one dialect."""

    sql: str
    binds: tuple[tuple[str, Any, Processor | None], ...]  # name, value if none given, processor
    columns: tuple[tuple[str, Processor | None], ...]  # a row's keys and their processors

    def parameters(self, values: dict[str, Any]) -> tuple[Any, ...]:
        sent = (values.get(name, default) for name, default, _ in self.binds)
        return tuple(value if process is None else process(value)
                     for value, (_, _, process) in zip(sent, self.binds, strict=True))

    def row(self, raw: Sequence[Any]) -> dict[str, Any]:
        return {key: value if process is None else process(value)
                for (key, process), value in zip(self.columns, raw, strict=True)}


class _Prepared:
    """A statement whose values are `bindparam`s, compiled at its first run on each dialect.
    Build it once (a module constant); a run takes the values by their names."""

    def __init__(self, statement: AnySelect | UpdateBase) -> None:
        self._statement = statement
        self._by_dialect: dict[str, _Compiled] = {}

    def _compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(dialect.name)
        if found is None:
            found = self._by_dialect[dialect.name] = _compile(self._statement, dialect)
        return found


class PreparedRead(_Prepared):
    """A SELECT run by the driver."""

    def __init__(self, statement: AnySelect) -> None:
        super().__init__(statement)

    async def rows(self, conn: AsyncConnection, **values: Any) -> list[dict[str, Any]]:
        compiled = self._compiled(conn.dialect)
        sent = await _send(conn, compiled.sql, compiled.parameters(values), fetch=True)
        return [compiled.row(raw) for raw in sent.rows]


@dataclass(frozen=True, slots=True)
class Written:
    """What a write did: the rows it matched or changed, and the new row's key (an insert
    into a table with an autoincrement key)."""

    rowcount: int
    lastrowid: int | None


class PreparedWrite(_Prepared):
    """An INSERT, UPDATE or DELETE run by the driver."""

    def __init__(self, statement: UpdateBase) -> None:
        super().__init__(statement)

    async def run(self, conn: AsyncConnection, **values: Any) -> Written:
        compiled = self._compiled(conn.dialect)
        sent = await _send(conn, compiled.sql, compiled.parameters(values), fetch=False)
        return sent.written


def _compile(statement: AnySelect | UpdateBase, dialect: Dialect) -> _Compiled:
    compiled = statement.compile(dialect=dialect)
    binds = tuple((name, compiled.binds[name].effective_value,
                   compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
                  for name in compiled.positiontup or ())
    selected = statement.selected_columns if isinstance(statement, Select) else ()
    columns = tuple((str(column.key),
                     column.type.dialect_impl(dialect).result_processor(dialect, None))
                    for column in selected)
    return _Compiled(compiled.string, binds, columns)


_READ = Written(rowcount=-1, lastrowid=None)  # what a read wrote: nothing (as DB-API says)


@dataclass(frozen=True, slots=True)
class _Sent:
    rows: Sequence[Sequence[Any]]
    written: Written


async def _send(conn: AsyncConnection, sql: str, parameters: tuple[Any, ...], *, fetch: bool
                ) -> _Sent:
    # One switch into SQLAlchemy's synchronous side for the whole statement (its begin, the
    # driver's connection, the driver's call), not one for each: a turn sends about 15.
    return await conn.run_sync(_send_sync, sql, parameters, fetch)


def _send_sync(conn: Connection, sql: str, parameters: tuple[Any, ...], fetch: bool) -> _Sent:
    if not conn.in_transaction():
        # As SQLAlchemy's own execute does: the block that opened the connection ends what
        # the statement began (a MySQL read begins a transaction that must not go back to the
        # pool open, holding its snapshot).
        conn.begin()
    pooled = conn.connection
    adapted: Any = pooled.dbapi_connection  # the dialect's adapter of the asyncio driver
    dialect = conn.dialect
    try:
        if dialect.name == "sqlite":  # aiosqlite
            return cast(_Sent, adapted.run_async(lambda driver: _sqlite(driver, sql, parameters,
                                                                        fetch)))
        return cast(_Sent, adapted.run_async(lambda driver: _asyncmy(driver, sql, parameters,
                                                                     fetch)))
    except dialect.loaded_dbapi.Error as error:
        gone = dialect.is_disconnect(error, adapted, None)
        if gone:
            conn.invalidate()
        raise DBAPIError.instance(sql, parameters, error, dialect.loaded_dbapi.Error,
                                  connection_invalidated=gone, dialect=dialect) from error


async def _sqlite(driver: Any, sql: str, parameters: tuple[Any, ...], fetch: bool) -> _Sent:
    if fetch:  # one trip to aiosqlite's thread, not three
        return _Sent(list(await driver.execute_fetchall(sql, parameters)), _READ)
    async with driver.execute(sql, parameters) as cursor:
        return await _outcome(cursor, fetch)


async def _asyncmy(driver: Any, sql: str, parameters: tuple[Any, ...], fetch: bool) -> _Sent:
    async with driver.cursor() as cursor:
        await cursor.execute(sql, parameters)
        return await _outcome(cursor, fetch)


async def _outcome(cursor: Any, fetch: bool) -> _Sent:
    rows = list(await cursor.fetchall()) if fetch else []
    return _Sent(rows, Written(cursor.rowcount, cursor.lastrowid))


def numbered_binds(name: str, count: int) -> list[BindParameter[Any]]:
    """`count` bound parameters `:name0`, `:name1`... (an `IN` list built once per length)."""
    return [bindparam(f"{name}{i}") for i in range(count)]


def numbered_values(name: str, values: Sequence[Any]) -> dict[str, Any]:
    """`values` as the bound parameters of `numbered_binds(name, len(values))`."""
    return {f"{name}{i}": value for i, value in enumerate(values)}
