"""Load and validate persona files."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PACKAGED_DIR = Path(__file__).parent
T = TypeVar("T", bound=BaseModel)


class PersonaError(ValueError):
    """A persona file is missing, unreadable or invalid; the message names the file and field."""


class Example(BaseModel):
    """A hand-written exchange that starts the shared pool (the paper's manually archived start)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = Field(min_length=1, max_length=64)
    prompt: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class Rubric(BaseModel):
    """How exchanges of one domain are scored for the shared pool, reviewed by a person (the
    paper's rubrics), and the kinds of task the domain holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")
    version: int = Field(ge=1)
    kinds: tuple[str, ...] = Field(min_length=1)
    rubric: str = Field(min_length=20)


class Persona(BaseModel):
    """Who the companion is: the role prompt opens every prompt, the greeting opens a chat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")
    display_name: str = Field(min_length=1, max_length=40)
    # One line for the person choosing a persona (/persona); the prompt never sees it.
    description: str = Field("", max_length=100)
    role_prompt: str = Field(min_length=20)
    greeting: str = Field(min_length=1)
    style_notes: str = ""
    # Start replies to ambiguous requests with "Understanding: ...", which the user can correct.
    states_understanding: bool = False
    # The pool of good exchanges this persona shares with the others of its domain.
    domain: str = Field("general", pattern=r"^[a-z][a-z0-9_-]{0,31}$")
    examples: tuple[Example, ...] = ()


def _load(path: Path, model: type[T], what: str) -> T:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return model(**data)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise PersonaError(f"Cannot read {what} file {path}: {error}") from error
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, p['loc'])) or 'file'}: {p['msg']}" for p in error.errors()
        )
        raise PersonaError(f"Invalid {what} file {path}: {problems}") from error


def load_persona(path: Path) -> Persona:
    persona = _load(path, Persona, "persona")
    if persona.name != path.stem:
        raise PersonaError(f"Persona file {path} must be named {persona.name}.toml")
    return persona


def load_personas(directory: Path = PACKAGED_DIR) -> dict[str, Persona]:
    """Every persona in `directory`, by name. An invalid file stops the load with its reason."""
    personas = {p.name: p for p in map(load_persona, sorted(directory.glob("*.toml")))}
    if not personas:
        raise PersonaError(f"No persona files (*.toml) in {directory}")
    return personas


def load_rubrics(directory: Path = PACKAGED_DIR) -> dict[str, Rubric]:
    """The rubrics in `directory/rubrics`, by domain: a domain without one is never scored."""
    rubrics = {}
    for path in sorted((directory / "rubrics").glob("*.toml")):
        rubric = _load(path, Rubric, "rubric")
        if rubric.domain != path.stem:
            raise PersonaError(f"Rubric file {path} must be named {rubric.domain}.toml")
        rubrics[rubric.domain] = rubric
    return rubrics
