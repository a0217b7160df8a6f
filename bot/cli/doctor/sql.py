"""The sql part: SQLite's file or the server answers, and which migrations are applied."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli.doctor.check import Check, Where
from bot.cli.doctor.paths import nearest_existing, sqlite_file, writable, writable_folder
from bot.cli.doctor.timeouts import SQL_TIMEOUT
from bot.core.wording import counted
from bot.network import root_cause
from bot.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy.engine import URL


async def check_sql(settings: Settings, where: Where) -> Check:
    """Reachable, and which migrations are applied (read only: Companion migrates at start)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(settings.sql_url)
    except ArgumentError:  # its message repeats the URL, password included
        return Check("sql", False, "sql.url is not a database URL",
                     f"correct {where('sql.url')}, e.g. "
                     "mysql://user:password@127.0.0.1:3306/companion")
    if url.get_backend_name() == "sqlite":
        return await _check_sqlite(settings.sql_url, sqlite_file(url), where)
    return await _check_sql_server(settings.sql_url, url, where)


async def _check_sqlite(url_text: str, path: Path | None, where: Where) -> Check:
    from sqlalchemy.exc import DBAPIError

    if path is None:
        return Check("sql", True, "sqlite in memory (nothing is kept when Companion stops)")
    if not path.exists():  # opening it would create it: say so instead
        folder = nearest_existing(path.parent)
        if not writable_folder(folder):
            return Check("sql", False, f"cannot create the database {path}: {folder} is not "
                         "writable", f"make {folder} writable, or change {where('data_dir')}")
        return Check("sql", True, f"sqlite {path} will be created when Companion starts")
    if not writable(path):
        return Check("sql", False, f"sqlite {path} is read-only",
                     f"make it writable (chmod u+w {path}), or change {where('sql.url')}")
    try:
        versions = await _applied_versions(url_text)
    except DBAPIError as error:
        return Check("sql", False, f"sqlite {path} cannot be read ({error.orig})",
                     f"restore it from a backup, or point {where('sql.url')} at another file")
    return _schema(f"sqlite {path}", versions)


async def _check_sql_server(url_text: str, url: URL, where: Where) -> Check:
    from sqlalchemy.exc import DBAPIError

    server = f"{url.get_backend_name()} at {url.host or 'localhost'}:{url.port or 3306}"
    start_it = f"start the server (e.g. sudo systemctl start mariadb) or correct {where('sql.url')}"
    try:
        versions = await _applied_versions(url_text)
    except TimeoutError:
        return Check("sql", False, f"no answer from {server} within {SQL_TIMEOUT:g} s", start_it)
    except ImportError as error:
        return Check("sql", False, f"the driver of {url.drivername} is not installed ({error})",
                     f"use mysql:// for MySQL or MariaDB, or sqlite:/// in {where('sql.url')}")
    except DBAPIError as error:
        return _sql_server_failure(server, url, error.orig or error, where)
    return _schema(f"{server}/{url.database}", versions)


def _sql_server_failure(server: str, url: URL, error: BaseException, where: Where) -> Check:
    code = error.args[0] if error.args and isinstance(error.args[0], int) else None
    message = str(error.args[1]) if len(error.args) > 1 else str(error)
    if code in {2002, 2003, 2005, 2006, 2013}:  # MySQL's "can't connect" family
        return Check("sql", False, f"cannot connect to {server} ({root_cause(error)})",
                     "start the server (e.g. sudo systemctl start mariadb) or correct "
                     f"{where('sql.url')}")
    if code in {1045, 1698}:  # access denied (1698: no password where one is needed)
        return Check("sql", False, f"{server} refused the user '{url.username}' ({message})",
                     f"check the user and password in {where('sql.url')}")
    if code == 1049:
        return Check("sql", False, f"{server} has no database '{url.database}'",
                     f"create it (CREATE DATABASE {url.database} CHARACTER SET utf8mb4 COLLATE "
                     f"utf8mb4_bin) or correct {where('sql.url')}")
    return Check("sql", False, f"{server} failed: {message}",
                 f"correct {where('sql.url')}, or see the server's log")


async def _applied_versions(url_text: str) -> set[int] | None:
    """The migrations recorded in the database; None when it has no migrations table yet."""
    from sqlalchemy import inspect, select

    from memory.sql.engine import open_engine
    from memory.sql.tables import schema_migrations

    engine = open_engine(url_text)
    try:
        async with asyncio.timeout(SQL_TIMEOUT), engine.connect() as conn:
            if not await conn.run_sync(lambda c: inspect(c).has_table("schema_migrations")):
                return None
            return set((await conn.execute(select(schema_migrations.c.version))).scalars())
    finally:
        await engine.dispose()


def _schema(what: str, versions: set[int] | None) -> Check:
    from memory.sql.migrations import MIGRATIONS

    known = {version for version, _, _ in MIGRATIONS}
    done = versions or set()
    missing = known - done
    if missing:  # not a problem: every Companion process migrates when it starts
        detail = (f"{what}, {counted(len(missing), 'migration')} not yet applied; they are "
                  "applied when Companion starts")
    else:
        detail = f"{what}, schema up to date ({counted(len(known), 'migration')})"
    if newer := sorted(done - known):
        detail += (f" (it also has migration {', '.join(map(str, newer))}, from a newer "
                   "Companion)")
    return Check("sql", True, detail)
