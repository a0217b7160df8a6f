"""Files and folders as several parts see them: SQLite's file, and what can be written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import URL


def sqlite_file(url: URL) -> Path | None:
    """The file of a SQLite URL; None for other databases and for SQLite in memory."""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    return Path(database)


def nearest_existing(path: Path) -> Path:
    """`path`, or the nearest folder above it that exists (what would hold it once created)."""
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def writable(path: Path) -> bool:
    """A folder files can be made in, or a file that can be written."""
    if path.is_dir():
        return os.access(path, os.W_OK | os.X_OK)
    return path.is_file() and os.access(path, os.W_OK)


def writable_folder(path: Path) -> bool:
    return path.is_dir() and writable(path)
