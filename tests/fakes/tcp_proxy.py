"""A TCP proxy in the test's event loop between Companion and a real server (MariaDB): it can
drop every open connection at once, as a network fault or a server restart does, and refuse
new ones for a while."""

from __future__ import annotations

import asyncio
from contextlib import suppress


class TcpProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self._target = (target_host, target_port)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.refusing = False  # new connections are closed as soon as they are accepted
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def cut(self) -> int:
        """Drop every open connection, both ways; returns how many were open."""
        writers, self._writers = self._writers, set()
        for writer in writers:
            writer.transport.abort()
        return len(writers) // 2

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, upstream_writer}
        await asyncio.gather(self._pump(reader, upstream_writer),
                             self._pump(upstream_reader, writer))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        self._writers.discard(writer)
        writer.transport.abort()
