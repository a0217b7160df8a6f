"""The MySQL engine on the real MariaDB: every spelling of a MySQL URL reaches it through
asyncmy, and a pooled connection the server closed while it sat idle is replaced before a
turn uses it (and one it still holds is not)."""

from __future__ import annotations

import asyncio

import pymysql
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from memory.sql.engine import open_engine
from tests.conftest import MYSQL

pytestmark = pytest.mark.mysql


@pytest.mark.parametrize("driver", ["mysql", "mysql+aiomysql", "mariadb+pymysql"])
async def test_any_mysql_url_is_served_by_asyncmy(mysql_url: str, driver: str) -> None:
    url = make_url(mysql_url).set(drivername=driver).render_as_string(hide_password=False)
    engine = open_engine(url)
    try:
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1
        assert engine.dialect.driver == "asyncmy"
    finally:
        await engine.dispose()


async def test_a_pooled_connection_closed_by_the_server_is_replaced(mysql_url: str) -> None:
    engine = open_engine(mysql_url)
    try:
        async with engine.connect() as conn:
            first = (await conn.execute(text("SELECT CONNECTION_ID()"))).scalar_one()
        async with engine.connect() as conn:  # one the server still holds is used again
            assert (await conn.execute(text("SELECT CONNECTION_ID()"))).scalar_one() == first
        with pymysql.connect(**MYSQL) as admin, admin.cursor() as cursor:
            cursor.execute(f"KILL {int(first)}")  # as a restart or wait_timeout would
        await asyncio.sleep(0.3)  # the server's end of the stream reaches the idle socket
        async with engine.connect() as conn:
            second = (await conn.execute(text("SELECT CONNECTION_ID()"))).scalar_one()
        assert second != first
    finally:
        await engine.dispose()
