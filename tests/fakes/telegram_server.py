"""A fake Telegram Bot API on 127.0.0.1, so the Telegram frontend is tested through PTB's real
HTTP stack (request encoding, JSON parsing, error mapping) instead of a mocked `Bot`.

Tests push users' messages in (`private_message`, `group_message`, `command`), PTB long-polls
them with getUpdates, and what the bot sends is kept in `sent`, `actions` and `calls`.

The server runs on the test's own event loop: create, start and close it inside the async test
(or an async fixture of the same loop), and push messages from that loop.

It is deliberately a little stricter than Telegram where that catches bugs early: HTML must
escape every `<`, `>` and `&` that is not markup, and the bot may only write to chats that a
pushed update introduced (`strict_chats`).
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import os
import time
import uuid
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from html.parser import HTMLParser
from http import HTTPStatus
from typing import Any

import aiohttp
import pytest
from aiohttp import web

MAX_TEXT_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024

# Parameters that are strings on the wire even when they look like JSON ("123", "true").
# PTB sends every other non-string value JSON-encoded.
_STRING_PARAMS = frozenset(
    {
        "action", "address", "business_connection_id", "callback_query_id", "caption",
        "custom_title", "description", "document", "emoji", "file_id", "first_name",
        "inline_query_id", "language_code", "last_name", "message_effect_id", "name",
        "parse_mode", "payload", "phone_number", "query", "question", "secret_token",
        "short_description", "text", "title", "url",
    }
)
_CHAT_ACTIONS = frozenset(
    {
        "typing", "upload_photo", "record_video", "upload_video", "record_voice",
        "upload_voice", "upload_document", "choose_sticker", "find_location",
        "record_video_note", "upload_video_note",
    }
)
_PARSE_MODES = frozenset({"html", "markdown", "markdownv2"})
# Telegram's HTML subset: tag -> entity type.
_HTML_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic",
    "u": "underline", "ins": "underline",
    "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "code": "code", "pre": "pre", "a": "text_link", "tg-spoiler": "spoiler", "span": "spoiler",
    "blockquote": "blockquote",
}
_HTML_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def bypass_proxies_for_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Adds 127.0.0.1 and localhost to NO_PROXY: httpx (under PTB) honours HTTP(S)_PROXY and
    ALL_PROXY, which would send requests for the fake to a proxy. Call it before the
    Application is built, since httpx reads the environment when PTB creates its clients."""
    for name in ("NO_PROXY", "no_proxy"):
        current = [host for host in os.environ.get(name, "").split(",") if host.strip()]
        monkeypatch.setenv(name, ",".join(["127.0.0.1", "localhost", *current]))


def utf16_len(text: str) -> int:
    """Telegram measures entity offsets and lengths in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


class ApiError(Exception):
    """An error answer of the Bot API; raised by method handlers, turned into JSON by the route."""

    def __init__(
        self, description: str, status: int = 400, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.description = description
        self.status = status
        self.parameters = parameters

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False, "error_code": self.status, "description": self.description
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


class HtmlError(ValueError):
    """The text is not valid Telegram HTML."""


class _TelegramHtml(HTMLParser):
    """Reads Telegram's HTML subset into plain text plus entities, refusing what Telegram refuses
    (and, stricter, any unescaped `<`, `>`, `&`, so forgotten escaping fails the test)."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self._source = source
        self._line_starts = [0] + [i + 1 for i, char in enumerate(source) if char == "\n"]
        self._parts: list[str] = []
        self._length16 = 0
        self._open: list[tuple[str, int, dict[str, Any]]] = []
        self._entities: list[dict[str, Any]] = []

    def parse(self) -> tuple[str, list[dict[str, Any]]]:
        if "</>" in self._source:  # html.parser drops it silently
            offset = self._bytes(self._source.index("</>"))
            raise HtmlError(f"Empty end tag at byte offset {offset}")
        self.feed(self._source)
        self.close()
        if self._open:
            tag = self._open[-1][0]
            raise HtmlError(f'Can\'t find end tag corresponding to start tag "{tag}"')
        entities = sorted(self._entities, key=lambda e: (e["offset"], -e["length"]))
        return "".join(self._parts), entities

    def _index(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def _bytes(self, index: int) -> int:
        return len(self._source[:index].encode())

    def _append(self, text: str) -> None:
        self._parts.append(text)
        self._length16 += utf16_len(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        offset = self._bytes(self._index())
        if tag not in _HTML_TAGS:
            raise HtmlError(f'Unsupported start tag "{tag}" at byte offset {offset}')
        attributes = dict(attrs)
        entity: dict[str, Any] = {"type": _HTML_TAGS[tag]}
        if tag == "span" and attributes.get("class") != "tg-spoiler":
            raise HtmlError(f'Tag "span" must have class "tg-spoiler" at byte offset {offset}')
        if tag == "a":
            href = attributes.get("href")
            entity = {"type": "text_link", "url": href} if href else {}
        if tag == "blockquote" and "expandable" in attributes:
            entity["type"] = "expandable_blockquote"
        language = attributes.get("class") or ""
        if tag == "code" and self._open and self._open[-1][0] == "pre":
            if language.startswith("language-"):
                self._open[-1][2]["language"] = language.removeprefix("language-")
            entity = {}  # Telegram folds <pre><code> into one "pre" entity
        self._open.append((tag, self._length16, entity))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        offset = self._bytes(self._index())
        raise HtmlError(f'Unsupported self-closing tag "{tag}" at byte offset {offset}')

    def handle_endtag(self, tag: str) -> None:
        offset = self._bytes(self._index())
        if not self._open:
            raise HtmlError(f"Unexpected end tag at byte offset {offset}")
        open_tag, start, entity = self._open.pop()
        if open_tag != tag:
            raise HtmlError(
                f'Unmatched end tag at byte offset {offset}, expected "</{open_tag}>", '
                f'found "</{tag}>"'
            )
        length = self._length16 - start
        if entity and length:
            self._entities.append({**entity, "offset": start, "length": length})

    def handle_data(self, data: str) -> None:
        for char in "<>&":
            if char in data:
                offset = self._bytes(self._index() + data.index(char))
                escaped = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}[char]
                raise HtmlError(
                    f'Unescaped "{char}" at byte offset {offset}; write it as {escaped}'
                )
        self._append(data)

    def handle_entityref(self, name: str) -> None:
        index = self._index()
        if name not in _HTML_ENTITIES or not self._source.startswith(f"&{name};", index):
            raise HtmlError(
                f'Unsupported HTML entity "&{name}" at byte offset {self._bytes(index)}'
            )
        self._append(_HTML_ENTITIES[name])

    def handle_charref(self, name: str) -> None:
        index = self._index()
        try:
            if not self._source.startswith(f"&#{name};", index):
                raise ValueError(name)
            code = int(name[1:], 16) if name[:1] in "xX" else int(name)
            char = chr(code)
        except (ValueError, OverflowError):
            raise HtmlError(
                f'Bad character reference "&#{name}" at byte offset {self._bytes(index)}'
            ) from None
        self._append(char)

    def _refuse(self, what: str) -> None:
        raise HtmlError(f"Unsupported {what} at byte offset {self._bytes(self._index())}")

    def handle_comment(self, data: str) -> None:
        self._refuse("comment")

    def handle_decl(self, decl: str) -> None:
        self._refuse("declaration")

    def handle_pi(self, data: str) -> None:
        self._refuse("processing instruction")

    def unknown_decl(self, data: str) -> None:
        self._refuse("declaration")


def parse_html(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Plain text and entities of a Telegram HTML text; raises HtmlError where Telegram would."""
    return _TelegramHtml(text).parse()


def _decode_param(name: str, value: str | bytes) -> Any:
    """PTB JSON-encodes every non-string parameter; strings travel as they are."""
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode()
    if name in _STRING_PARAMS:
        return value
    try:
        decoded = json.loads(value)
    except ValueError:
        return value
    return value if isinstance(decoded, str) else decoded


def _default_description(status: int, retry_after: int) -> str:
    if status == 429:
        return f"Too Many Requests: retry after {retry_after}"
    known = {
        400: "Bad Request: injected failure",
        401: "Unauthorized",
        403: "Forbidden: bot was blocked by the user",
        404: "Not Found",
        409: "Conflict: terminated by other getUpdates request",
    }
    if status in known:
        return known[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Injected failure"


def _keyboard(markup: Any) -> list[list[dict[str, Any]]]:
    """The rows of buttons of an inline keyboard, as sent (a JSON string or a dict)."""
    if isinstance(markup, str):
        markup = json.loads(markup)
    return (markup or {}).get("inline_keyboard", [])


def _key(chat_id: int, message_id: int) -> tuple[int, int]:
    return chat_id, message_id


class FakeTelegram:
    """A fake Bot API: tests push user messages in, and read what the bot sent."""

    def __init__(
        self, token: str = "123456:TEST-TOKEN-of-the-fake-bot-api-server",
        bot_username: str = "companion_test_bot",
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_first_name = "Companion Test"
        # The bot may only write to chats a pushed update introduced (Telegram: "chat not found").
        self.strict_chats = True

        self.sent: list[dict[str, Any]] = []
        self.actions: list[tuple[int, str]] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        # Every error answer given, injected or not: (method, params, description).
        self.errors: list[tuple[str, dict[str, Any], str]] = []
        self.commands: list[dict[str, Any]] = []

        self._port: int | None = None
        self._runner: web.AppRunner | None = None
        self._closing = False
        self._wake = asyncio.Event()
        self._pending: deque[dict[str, Any]] = deque()
        self._allowed: Any = None  # the last getUpdates' (or setWebhook's) allowed_updates
        # A webhook set by the bot: (url, secret token); updates are posted to it, not queued.
        self.webhook: tuple[str, str] | None = None
        self._deliveries: set[asyncio.Task[None]] = set()
        self._update_ids = itertools.count(1)
        self._message_ids: defaultdict[int, itertools.count[int]] = defaultdict(
            lambda: itertools.count(1)
        )
        self._chats: dict[int, dict[str, Any]] = {}
        self._messages: dict[tuple[int, int], dict[str, Any]] = {}
        self._records: dict[tuple[int, int], dict[str, Any]] = {}
        self._files: dict[str, dict[str, Any]] = {}
        self._failures: defaultdict[str, deque[dict[str, Any]]] = defaultdict(deque)
        self._methods: dict[str, Callable[[dict[str, Any]], Any]] = {
            "getme": self._get_me,
            "deletewebhook": self._delete_webhook,
            "setwebhook": self._set_webhook,
            "getupdates": self._get_updates,
            "sendmessage": self._send_message,
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "answercallbackquery": self._true,
            "sendchataction": self._send_chat_action,
            "senddocument": self._send_document,
            "getfile": self._get_file,
            "setmycommands": self._set_my_commands,
            "getmycommands": self._get_my_commands,
            "deletemycommands": self._delete_my_commands,
            "close": self._true,
            "logout": self._true,
        }

    # ---- lifecycle

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started; await start() first")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    async def start(self) -> None:
        """Binds an ephemeral port on 127.0.0.1."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        # Long polls are woken on close, so a short grace period is plenty.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]
        self._closing = False

    async def close(self) -> None:
        """Answers every waiting long poll with [] at once, then stops the server."""
        self._closing = True
        self._notify()
        for delivery in list(self._deliveries):
            delivery.cancel()
        await asyncio.gather(*self._deliveries, return_exceptions=True)
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ---- users' side

    def private_message(self, user_id: int, text: str, *, first_name: str = "Ann") -> dict:
        """Queues a message from a user in their private chat with the bot (chat id == user id)."""
        chat = self._private_chat(user_id, first_name)
        return self._push_message(chat, user_id, first_name, text)

    def group_message(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        mention: bool = False,
        reply_to: dict | None = None,
        first_name: str = "Ann",
    ) -> dict:
        """Queues a supergroup message; `mention` addresses the bot with a real mention entity,
        `reply_to` (a message the bot sent: a `sent` entry or a Message dict) makes it a reply."""
        entities: list[dict[str, Any]] = []
        if mention:
            handle = f"@{self.bot_username}"
            text = f"{handle} {text}"
            entities.append({"type": "mention", "offset": 0, "length": utf16_len(handle)})
        return self._push_message(
            self._group_chat(chat_id), user_id, first_name, text, entities, reply_to
        )

    def command(
        self, user_id: int, text: str, *, chat_id: int | None = None, first_name: str = "Ann"
    ) -> dict:
        """Queues a "/word args" message with its bot_command entity; in a group when `chat_id`
        is given ("/word@botname" is passed through as written)."""
        if not text.startswith("/"):
            raise ValueError(f"a command starts with '/': {text!r}")
        word = text.split(maxsplit=1)[0]
        entities = [{"type": "bot_command", "offset": 0, "length": utf16_len(word)}]
        if chat_id is None or chat_id == user_id:
            chat = self._private_chat(user_id, first_name)
        else:
            chat = self._group_chat(chat_id)
        return self._push_message(chat, user_id, first_name, text, entities)

    def reaction(self, user_id: int, message_id: int, emoji: str, *,
                 first_name: str = "Ann") -> dict[str, Any]:
        """Queues a user's emoji reaction to a message in their private chat with the bot
        (Telegram sends these only to bots that asked for "message_reaction" updates)."""
        return self.push_update({"message_reaction": {
            "chat": self._private_chat(user_id, first_name),
            "message_id": message_id,
            "user": {"id": user_id, "is_bot": False, "first_name": first_name},
            "date": int(time.time()),
            "old_reaction": [],
            "new_reaction": [{"type": "emoji", "emoji": emoji}],
        }})

    def press_button(self, user_id: int, message_id: int, text: str, *, chat_id: int | None = None,
                     first_name: str = "Ann") -> dict[str, Any]:
        """Queues a user's press of an inline button of a bot's message, found by the button's
        text; as in Telegram, only a button the message still shows can be pressed."""
        chat_id = user_id if chat_id is None else chat_id
        message = self._messages[_key(chat_id, message_id)]
        buttons = [button for row in _keyboard(message.get("reply_markup"))
                   for button in row if button.get("text") == text]
        if not buttons:
            raise AssertionError(f"message {message_id} shows no button {text!r}")
        return self.push_update({"callback_query": {
            "id": uuid.uuid4().hex,
            "from": {"id": user_id, "is_bot": False, "first_name": first_name},
            "message": copy.deepcopy(message),
            "chat_instance": str(chat_id),
            "data": buttons[0]["callback_data"],
        }})

    def push_update(self, update: dict[str, Any]) -> dict[str, Any]:
        """Queues any other kind of update (the update_id is filled in); with a webhook set,
        posts it there instead, as Telegram does."""
        update = {**update, "update_id": next(self._update_ids)}
        if self.webhook is not None:
            task = asyncio.get_running_loop().create_task(self._deliver(update, *self.webhook))
            self._deliveries.add(task)
            task.add_done_callback(self._deliveries.discard)
            return update
        self._pending.append(update)
        self._notify()
        return update

    async def _deliver(self, update: dict[str, Any], url: str, secret: str) -> None:
        """Telegram retries a webhook that does not answer 200; here, a few times."""
        if not self._wanted(update):
            return
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret}
        async with aiohttp.ClientSession() as session:
            for _ in range(20):
                try:
                    async with session.post(url, json=update, headers=headers) as response:
                        if response.status == 200:
                            return
                        self.errors.append(("webhook", update, f"HTTP {response.status}"))
                except aiohttp.ClientError as error:
                    self.errors.append(("webhook", update, repr(error)))
                await asyncio.sleep(0.2)

    # ---- bot's side, as observed

    def messages_to(self, chat_id: int) -> list[dict]:
        return [record for record in self.sent if record["chat_id"] == chat_id]

    def calls_to(self, method: str) -> list[dict[str, Any]]:
        """The params of every call to one method (case-insensitive, like Telegram)."""
        return [params for name, params in self.calls if name.lower() == method.lower()]

    @property
    def pending_updates(self) -> int:
        """Updates queued and not yet confirmed by a later getUpdates offset."""
        return len(self._pending)

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        """Polls until `predicate()` is true; else fails with what the bot did, for diagnosis."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() >= deadline:
                raise AssertionError(f"condition not met within {timeout} s\n{self.dump()}")
            await asyncio.sleep(0.01)

    def dump(self) -> str:
        """A readable account of what the bot sent and called, for failure messages."""
        lines = [f"sent ({len(self.sent)}):"]
        lines += [f"  {_printable(record)}" for record in self.sent] or ["  (nothing)"]
        lines.append(f"errors answered ({len(self.errors)}):")
        lines += [f"  {name}: {description}" for name, _, description in self.errors[-10:]]
        others = [(name, p) for name, p in self.calls if name.lower() != "getupdates"]
        lines.append(f"calls other than getUpdates ({len(others)}, last 15):")
        lines += [f"  {name} {_printable(params)}" for name, params in others[-15:]]
        lines.append(f"updates not yet confirmed by the bot: {len(self._pending)}")
        return "\n".join(lines)

    # ---- failure injection

    def fail_next(
        self,
        method: str,
        *,
        status: int = 429,
        retry_after: int = 1,
        description: str = "",
        times: int = 1,
    ) -> None:
        """The next `times` calls to `method` answer with this error (429 adds retry_after).

        PTB 22 raises RetryAfter for a 429; building it warns (PTBDeprecationWarning) unless
        PTB_TIMEDELTA=true, which also makes `retry_after` a timedelta."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": status,
            "description": description or _default_description(status, retry_after),
        }
        if status == 429:
            body["parameters"] = {"retry_after": retry_after}
        self._failures[method.lower()].extend(copy.deepcopy(body) for _ in range(times))

    # ---- HTTP

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await self._read_params(request)
        self.calls.append((method, params))
        if request.match_info["token"] != self.token:
            return self._error(method, params, ApiError("Unauthorized", 401))
        failures = self._failures.get(method.lower())
        if failures:
            body = failures.popleft()
            self.errors.append((method, params, body["description"]))
            return web.json_response(body, status=body["error_code"])
        handler = self._methods.get(method.lower(), self._true)
        try:
            result = handler(params)
            if asyncio.iscoroutine(result):
                result = await result
        except ApiError as error:
            return self._error(method, params, error)
        return web.json_response({"ok": True, "result": result})

    def _error(self, method: str, params: dict[str, Any], error: ApiError) -> web.Response:
        self.errors.append((method, params, error.description))
        return web.json_response(error.body(), status=error.status)

    async def _download(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        stored = self._files.get(path.rsplit("/", 1)[-1])
        if request.match_info["token"] != self.token or stored is None:
            raise web.HTTPNotFound()
        return web.Response(body=stored["content"], content_type=stored["mime_type"])

    @staticmethod
    async def _read_params(request: web.Request) -> dict[str, Any]:
        params: dict[str, Any] = {k: _decode_param(k, v) for k, v in request.query.items()}
        if request.content_type == "application/json":
            body = await request.json()
            if isinstance(body, dict):
                params.update(body)
        elif request.can_read_body:
            form = await request.post()
            for name, value in form.items():
                if isinstance(value, web.FileField):
                    params[name] = {
                        "file_name": value.filename,
                        "mime_type": value.content_type,
                        "content": value.file.read(),
                    }
                else:
                    params[name] = _decode_param(name, value)
        return params

    # ---- methods

    def _true(self, params: dict[str, Any]) -> bool:
        return True

    def _bot_user(self) -> dict[str, Any]:
        return {
            "id": self.bot_id, "is_bot": True, "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _get_me(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            **self._bot_user(),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    def _delete_webhook(self, params: dict[str, Any]) -> bool:
        if params.get("drop_pending_updates"):
            self._pending.clear()
        self.webhook = None
        return True

    def _set_webhook(self, params: dict[str, Any]) -> bool:
        if not str(params.get("url", "")).startswith(("https://", "http://127.0.0.1")):
            raise ApiError("Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        if "allowed_updates" in params:
            self._allowed = params["allowed_updates"]
        self.webhook = (params["url"], str(params.get("secret_token", "")))
        return True

    def _asked(self) -> set[str]:
        allowed = json.loads(self._allowed) if isinstance(self._allowed, str) else self._allowed
        return set(allowed or [])

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook is not None:
            raise ApiError("Conflict: can't use getUpdates method while webhook is active; "
                           "use deleteWebhook to delete the webhook first", 409)
        offset = params.get("offset")
        if isinstance(offset, int):
            self._confirm(offset)
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = float(params.get("timeout") or 0)
        if "allowed_updates" in params:  # Telegram remembers it until the next one
            self._allowed = params["allowed_updates"]
        self._drop_unasked()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self._pending and not self._closing:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            # The event is replaced on every notify, so each waiter sees the one it waits on set.
            try:
                await asyncio.wait_for(self._wake.wait(), remaining)
            except TimeoutError:
                break
        self._drop_unasked()
        return list(itertools.islice(self._pending, limit))

    def _drop_unasked(self) -> None:
        self._pending = deque(u for u in self._pending if self._wanted(u))

    def _wanted(self, update: dict[str, Any]) -> bool:
        """As Telegram does: a bot that named the updates it wants gets only those; reactions
        reach only a bot that asked for them by name."""
        kind = next(key for key in update if key != "update_id")
        asked = self._asked()
        return kind in asked if asked else kind != "message_reaction"

    def _confirm(self, offset: int) -> None:
        if offset < 0:
            while len(self._pending) > -offset:
                self._pending.popleft()
            return
        while self._pending and self._pending[0]["update_id"] < offset:
            self._pending.popleft()

    def _send_message(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = self._target_chat(params)
        text, parse_mode, plain, entities = self._checked_text(params)
        message = self._bot_message(chat_id, params)
        message["text"] = plain
        if entities:
            message["entities"] = entities
        self._store(message, params, text=text, parse_mode=parse_mode)
        return message

    def _edit_message_reply_markup(self, params: dict[str, Any]) -> dict[str, Any]:
        key = _key(self._target_chat(params), int(params["message_id"]))
        if key not in self._messages:
            raise ApiError("Bad Request: message to edit not found")
        markup = params.get("reply_markup")
        markup = json.loads(markup) if isinstance(markup, str) else markup
        message = self._messages[key]
        if not _keyboard(markup):
            message.pop("reply_markup", None)
        else:
            message["reply_markup"] = markup
        self._records[key]["reply_markup"] = markup
        return message

    def _checked_text(
        self, params: dict[str, Any]
    ) -> tuple[str, Any, str, list[dict[str, Any]]]:
        """The text as sent and as users see it, refused as Telegram refuses it."""
        text = params.get("text")
        if not isinstance(text, str) or not text:
            raise ApiError("Bad Request: message text is empty")
        parse_mode = params.get("parse_mode")
        plain, entities = self._render(text, parse_mode, params.get("entities"))
        if not plain.strip():
            raise ApiError("Bad Request: message text is empty")
        if len(plain) > MAX_TEXT_LENGTH:
            raise ApiError("Bad Request: message is too long")
        return text, parse_mode, plain, entities

    def _edit_message_text(self, params: dict[str, Any]) -> dict[str, Any] | bool:
        if "inline_message_id" in params:
            return True
        chat_id = self._target_chat(params)
        key = _key(chat_id, params.get("message_id", 0))
        record = self._records.get(key)
        if record is None:
            raise ApiError("Bad Request: message to edit not found")
        message = self._messages[key]
        if "text" not in message:
            raise ApiError("Bad Request: there is no text in the message to edit")
        text, parse_mode, plain, entities = self._checked_text(params)
        markup = params.get("reply_markup")
        if (
            plain == message["text"]
            and entities == message.get("entities", [])
            and markup == message.get("reply_markup")
        ):
            raise ApiError(
                "Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message"
            )
        message["text"] = plain
        message.pop("entities", None)
        if entities:
            message["entities"] = entities
        if markup is None:
            message.pop("reply_markup", None)
        else:
            message["reply_markup"] = markup
        message["edit_date"] = int(time.time())
        record.update(
            text=text, plain=plain, parse_mode=parse_mode, reply_markup=markup,
            edits=record["edits"] + 1,
        )
        return message

    def _send_chat_action(self, params: dict[str, Any]) -> bool:
        chat_id = self._target_chat(params)
        action = params.get("action")
        if action not in _CHAT_ACTIONS:
            raise ApiError("Bad Request: wrong parameter action in request")
        self.actions.append((chat_id, action))
        return True

    def _send_document(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = self._target_chat(params)
        caption = params.get("caption")
        parse_mode = params.get("parse_mode")
        plain, entities = "", []
        if caption:
            plain, entities = self._render(caption, parse_mode, params.get("caption_entities"))
            if len(plain) > MAX_CAPTION_LENGTH:
                raise ApiError("Bad Request: message caption is too long")
        upload = params.get("document")
        if isinstance(upload, dict):
            if not upload["content"]:
                raise ApiError("Bad Request: file must be non-empty")
            stored = self._store_file(upload["file_name"], upload["content"], upload["mime_type"])
        elif isinstance(upload, str) and upload in self._files:
            stored = self._files[upload]
        elif isinstance(upload, str) and upload.startswith(("http://", "https://")):
            stored = self._store_file(upload.rsplit("/", 1)[-1], b"", "application/octet-stream")
        else:
            raise ApiError("Bad Request: there is no document in the request")
        message = self._bot_message(chat_id, params)
        message["document"] = {
            key: stored[key]
            for key in ("file_id", "file_unique_id", "file_name", "mime_type", "file_size")
        }
        if plain:
            message["caption"] = plain
        if entities:
            message["caption_entities"] = entities
        document = {"file_name": stored["file_name"], "content": stored["content"],
                    "mime_type": stored["mime_type"]}
        self._store(message, params, text=None, parse_mode=parse_mode, document=document,
                    caption=caption)
        return message

    def _get_file(self, params: dict[str, Any]) -> dict[str, Any]:
        stored = self._files.get(str(params.get("file_id")))
        if stored is None:
            raise ApiError("Bad Request: invalid file_id")
        return {
            "file_id": stored["file_id"],
            "file_unique_id": stored["file_unique_id"],
            "file_size": stored["file_size"],
            "file_path": f"documents/{stored['file_id']}",
        }

    def _set_my_commands(self, params: dict[str, Any]) -> bool:
        self.commands = list(params.get("commands") or [])
        return True

    def _get_my_commands(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return self.commands

    def _delete_my_commands(self, params: dict[str, Any]) -> bool:
        self.commands = []
        return True

    # ---- helpers

    def _notify(self) -> None:
        """Wakes every waiting long poll; a fresh event keeps later waits from returning early."""
        self._wake.set()
        self._wake = asyncio.Event()

    def _private_chat(self, user_id: int, first_name: str) -> dict[str, Any]:
        chat = {"id": user_id, "type": "private", "first_name": first_name}
        self._chats[user_id] = chat
        return chat

    def _group_chat(self, chat_id: int) -> dict[str, Any]:
        chat = self._chats.setdefault(
            chat_id, {"id": chat_id, "type": "supergroup", "title": f"Test group {chat_id}"}
        )
        return chat

    def _push_message(
        self,
        chat: dict[str, Any],
        user_id: int,
        first_name: str,
        text: str,
        entities: Iterable[dict[str, Any]] = (),
        reply_to: dict | None = None,
    ) -> dict:
        message: dict[str, Any] = {
            "message_id": next(self._message_ids[chat["id"]]),
            "from": {"id": user_id, "is_bot": False, "first_name": first_name,
                     "language_code": "en"},
            "chat": dict(chat),
            "date": int(time.time()),
            "text": text,
        }
        if entities := list(entities):
            message["entities"] = entities
        if reply_to is not None:
            message["reply_to_message"] = self._reply_copy(reply_to, chat["id"])
        self._messages[_key(chat["id"], message["message_id"])] = message
        self.push_update({"message": message})
        return message

    def _reply_copy(self, reply_to: dict, chat_id: int) -> dict[str, Any]:
        """The replied-to message as it is now (edits included), without nested replies."""
        reply_chat = reply_to.get("chat_id", reply_to.get("chat", {}).get("id", chat_id))
        if reply_chat != chat_id:
            raise ValueError(f"reply_to is a message of chat {reply_chat}, not of {chat_id}")
        stored = self._messages.get(_key(reply_chat, reply_to["message_id"]))
        if stored is None:
            raise ValueError(f"reply_to names no known message: {reply_to!r}")
        original = copy.deepcopy(stored)
        original.pop("reply_to_message", None)
        return original

    def _target_chat(self, params: dict[str, Any]) -> int:
        chat_id = params.get("chat_id")
        if not isinstance(chat_id, int) or (self.strict_chats and chat_id not in self._chats):
            raise ApiError("Bad Request: chat not found")
        return chat_id

    def _render(
        self, text: str, parse_mode: Any, entities: Any
    ) -> tuple[str, list[dict[str, Any]]]:
        if parse_mode is None or parse_mode == "":
            return text, list(entities or [])
        if not isinstance(parse_mode, str) or parse_mode.lower() not in _PARSE_MODES:
            raise ApiError("Bad Request: unsupported parse_mode")
        if parse_mode.lower() != "html":
            return text, []  # Markdown is passed through unchecked
        try:
            return parse_html(text)
        except HtmlError as error:
            raise ApiError(f"Bad Request: can't parse entities: {error}") from None

    def _reply_target(self, chat_id: int, params: dict[str, Any]) -> dict[str, Any] | None:
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            reply_chat = reply.get("chat_id", chat_id)
            lenient = bool(reply.get("allow_sending_without_reply"))
        elif "reply_to_message_id" in params:
            message_id = params["reply_to_message_id"]
            reply_chat = chat_id
            lenient = bool(params.get("allow_sending_without_reply"))
        else:
            return None
        stored = None
        if isinstance(message_id, int):
            stored = self._messages.get(_key(reply_chat, message_id))
        if stored is None:
            if lenient:
                return None
            raise ApiError("Bad Request: message to be replied not found")
        original = copy.deepcopy(stored)
        original.pop("reply_to_message", None)
        return original

    def _bot_message(self, chat_id: int, params: dict[str, Any]) -> dict[str, Any]:
        reply = self._reply_target(chat_id, params)
        chat = self._chats.get(chat_id) or {"id": chat_id, "type": "private", "first_name": "?"}
        message: dict[str, Any] = {
            "message_id": next(self._message_ids[chat_id]),
            "from": self._bot_user(),
            "chat": dict(chat),
            "date": int(time.time()),
        }
        if isinstance(params.get("message_thread_id"), int):
            message["message_thread_id"] = params["message_thread_id"]
        if reply is not None:
            message["reply_to_message"] = reply
        if params.get("reply_markup") is not None:
            message["reply_markup"] = params["reply_markup"]
        return message

    def _store(
        self,
        message: dict[str, Any],
        params: dict[str, Any],
        *,
        text: str | None,
        parse_mode: Any,
        document: dict[str, Any] | None = None,
        caption: str | None = None,
    ) -> None:
        chat_id = message["chat"]["id"]
        key = _key(chat_id, message["message_id"])
        self._messages[key] = message
        record: dict[str, Any] = {
            "message_id": message["message_id"],
            "chat_id": chat_id,
            "text": text,  # as the bot wrote it, markup included
            "plain": message.get("text"),  # as users see it
            "edits": 0,
            "parse_mode": parse_mode,
            "document": document,
            "caption": caption,
            "reply_to_message_id": message.get("reply_to_message", {}).get("message_id"),
            "message_thread_id": message.get("message_thread_id"),
            "reply_markup": params.get("reply_markup"),
        }
        self._records[key] = record
        self.sent.append(record)

    def _store_file(self, file_name: str | None, content: bytes, mime_type: str) -> dict[str, Any]:
        file_id = f"DOC{len(self._files) + 1}-{uuid.uuid4().hex[:12]}"
        stored = {
            "file_id": file_id,
            "file_unique_id": uuid.uuid4().hex[:16],
            "file_name": file_name,
            "mime_type": mime_type or "application/octet-stream",
            "file_size": len(content),
            "content": content,
        }
        self._files[file_id] = stored
        return stored


def _printable(value: Any) -> str:
    """A one-line repr where file contents are shown by size, not spelled out."""

    def shrink(item: Any) -> Any:
        if isinstance(item, bytes | bytearray):
            return f"<{len(item)} bytes>"
        if isinstance(item, dict):
            return {key: shrink(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [shrink(inner) for inner in item]
        return item

    return repr(shrink(value))
