"""A mkdocs hook: the settings reference, made from the settings model at every build.

A page holds the line `<!-- settings-reference -->`; this hook puts there one table per section
of `bot.settings.Settings`: each setting as `section.key`, its environment variable, its type
and limits, its default, and what it does. What it does comes from the field's `description`
when the model gives one, else from the comment above the key in `config.toml` (the file that
documents every setting), else from the comment above the field in `bot/settings.py`, else
from `FALLBACK` below, for the keys that share a comment in `config.toml`.

The build warns (and `mkdocs build --strict` fails) when `config.toml` and the model disagree:
a setting one has and the other lacks, or a default that differs. So neither can drift from the
page.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from mkdocs.plugins import get_plugin_logger

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pydantic import BaseModel  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402

log = get_plugin_logger(__name__)

MARKER = "<!-- settings-reference -->"
CONFIG = ROOT / "config.toml"
SETTINGS_SOURCE = ROOT / "bot" / "settings.py"
ENV_PREFIX = "COMPANION_"
# What a setting does, for the keys config.toml documents together with a neighbour. A field
# description in bot/settings.py wins over these; one that names no setting is warned about.
FALLBACK = {
    "chat.relevance_tokens": "Tokens that Relevance and Latest_topics take together (relevance "
                             "= \"budget\"): Relevance first, Latest_topics what is left.",
    "chat.relevance_topics": "How many topics Relevance holds with relevance = \"topics\".",
    "llm.base_url": "The OpenAI-compatible endpoint (provider \"openai\").",
    "llm.model": "The chat model's name at base_url.",
    "llm.max_tokens": "The longest reply, in tokens.",
    "llm.timeout_seconds": "How long one request to the endpoint may take.",
    "llm.local_context_tokens": "The context window of the local model, in tokens.",
    "embeddings.base_url": "The embeddings endpoint (provider \"openai\").",
    "embeddings.model": "The embedding model's name at base_url.",
    "embeddings.api_key_env": "The environment variable that holds the endpoint's API key.",
    "embeddings.timeout_seconds": "How long one request to the endpoint may take.",
    "memory.retry_seconds": "The first delay before a failing job is tried again; it doubles "
                            "each time (see max_attempts).",
    "feedback.wording_max_words": "Messages of at most this many words may also match a "
                                  "correction by word-level edit similarity "
                                  "(wording_similarity).",
    "sharing.score_timeout_seconds": "A score that takes longer decides nothing; the job is "
                                     "tried again.",
    "access.block_users": "Users ignored without a reply.",
    "telegram.webhook_listen": "The address each process's webhook server listens on (with "
                               "webhook_url).",
    "telegram.webhook_port": "The port each process's webhook server listens on (with "
                             "webhook_url).",
    "discord.edit_interval_seconds": "A streamed reply edits its message at most this often.",
    "discord.shard_ids": "The shards this process runs, each from 0 to shard_count - 1 "
                         "(empty: all of them).",
}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, settings_reference())


def settings_reference() -> str:
    """The reference as Markdown, with a warning for every disagreement with config.toml."""
    from bot.settings import Settings

    toml_values = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    toml_notes = config_comments(CONFIG.read_text(encoding="utf-8"))
    source_notes = source_comments(SETTINGS_SOURCE.read_text(encoding="utf-8"))
    blocks = []
    top_rows = []
    known = set()
    for name, field in Settings.model_fields.items():
        section = _section_model(field)
        known |= ({name} if section is None else {f"{name}.{key}" for key in section.model_fields})
        if section is None:
            top_rows.append(_row(name, field, toml_notes, source_notes, Settings.__name__))
            _check_default(name, field, toml_values)
            continue
        rows = [_row(f"{name}.{key}", sub, toml_notes, source_notes, section.__name__)
                for key, sub in section.model_fields.items()]
        _check_section(name, section, toml_values.get(name))
        blocks.append(f"### `[{name}]`\n\n{_table(rows)}")
    _check_unknown(Settings, toml_values)
    for stale in sorted(set(FALLBACK) - known):
        log.warning("docs/hooks/settings_reference.py describes %s, which is no setting", stale)
    return "\n\n".join([f"### Top level\n\n{_table(top_rows)}", *blocks]) + "\n"


def _section_model(field: FieldInfo) -> type[BaseModel] | None:
    kind = field.annotation
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None


def _row(dotted: str, field: FieldInfo, toml_notes: dict[str, str],
         source_notes: dict[tuple[str, str], str], model_name: str) -> list[str]:
    key = dotted.rsplit(".", 1)[-1]
    note = (field.description or toml_notes.get(dotted)
            or source_notes.get((model_name, key)) or FALLBACK.get(dotted, ""))
    if not note:
        log.warning("Setting %s has no description: add a comment above it in config.toml",
                    dotted)
    env = ENV_PREFIX + dotted.replace(".", "__").upper()
    return [f"`{dotted}`<br><small>`{env}`</small>", _type(field), _default(field),
            _cell(note)]


def _table(rows: list[list[str]]) -> str:
    lines = ["| setting | type | default | what it does |", "| --- | --- | --- | --- |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _type(field: FieldInfo) -> str:
    described = _annotation(field.annotation)
    limits = []
    for rule in field.metadata:
        for attribute, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(rule, attribute, None)
            if value is not None:
                limits.append(f"{sign} {value:,}" if isinstance(value, int) else
                              f"{sign} {value}")
        pattern = getattr(rule, "pattern", None)
        if pattern:
            limits.append(f"matches `{pattern}`")
    return described + (f", {', '.join(limits)}" if limits else "")


def _annotation(kind: Any) -> str:
    origin = get_origin(kind)
    if origin is Literal:
        return "one of " + ", ".join(f"`{value}`" for value in get_args(kind))
    if origin in (Union, types.UnionType):
        inner = [arg for arg in get_args(kind) if arg is not type(None)]
        return " or ".join(_annotation(arg) for arg in inner) + " (empty: see default)"
    if origin is tuple:
        return f"list of {_annotation(get_args(kind)[0])}"
    if kind is Path:
        return "path"
    return getattr(kind, "__name__", str(kind))


def _default(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "empty"
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, str) and not value:
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"`{value:,}`" if isinstance(value, int) else f"`{value:g}`"
    if isinstance(value, list):
        return f"`{value!r}`".replace("'", '"')
    return f"`{value}`"


def config_comments(text: str) -> dict[str, str]:
    """The comment lines right above each key of config.toml, as `section.key` -> text. A
    comment block that ends at a blank line belongs to no key."""
    notes: dict[str, str] = {}
    section = ""
    comment: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if header := re.fullmatch(r"\[([A-Za-z0-9_.]+)\]", stripped):
            section, comment = header.group(1), []
        elif stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
        elif key := re.match(r"([A-Za-z0-9_]+)\s*=", stripped):
            if comment:
                notes[f"{section}.{key.group(1)}" if section else key.group(1)] = " ".join(comment)
            comment = []
        else:
            comment = []
    return notes


def source_comments(text: str) -> dict[tuple[str, str], str]:
    """The comment lines right above each field of each class in bot/settings.py."""
    lines = text.splitlines()
    notes: dict[tuple[str, str], str] = {}
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.ClassDef):
            continue
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                above = []
                number = statement.lineno - 2
                while number >= 0 and lines[number].strip().startswith("#"):
                    above.insert(0, lines[number].strip().lstrip("#").strip())
                    number -= 1
                if above:
                    notes[(node.name, statement.target.id)] = " ".join(above)
    return notes


def _check_section(name: str, section: type[BaseModel], values: Any) -> None:
    if not isinstance(values, dict):
        log.warning("config.toml has no [%s] section, which the settings model has", name)
        return
    for key in section.model_fields:
        if key not in values:
            log.warning("config.toml has no %s.%s, which the settings model has", name, key)
    for key in values:
        if key not in section.model_fields:
            log.warning("config.toml has %s.%s, which the settings model lacks", name, key)
    known = {key: value for key, value in values.items() if key in section.model_fields}
    try:
        from_file = section(**known)
    except ValueError as error:  # pydantic's ValidationError is one
        log.warning("config.toml's [%s] is not valid: %s", name, error)
        return
    for key in known:
        if getattr(from_file, key) != getattr(section(), key):
            log.warning("config.toml gives %s.%s = %r, the settings model's default is %r",
                        name, key, values[key], getattr(section(), key))


def _check_default(name: str, field: FieldInfo, values: dict[str, Any]) -> None:
    if name not in values:
        log.warning("config.toml has no %s, which the settings model has", name)
        return
    default = field.get_default(call_default_factory=True)
    given = values[name]
    if (default, given) != (None, "") and given != default:
        log.warning("config.toml gives %s = %r, the settings model's default is %r",
                    name, given, default)


def _check_unknown(settings: type[BaseModel], values: dict[str, Any]) -> None:
    for key in values:
        if key not in settings.model_fields:
            log.warning("config.toml has %s, which the settings model lacks", key)
