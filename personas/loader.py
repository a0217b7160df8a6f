"""Load and validate persona files."""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PACKAGED_DIR = Path(__file__).parent


class PersonaError(ValueError):
    """A persona file is missing, unreadable or invalid; the message names the file and field."""


class Persona(BaseModel):
    """Who the companion is: the role prompt opens every prompt, the greeting opens a chat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")
    display_name: str = Field(min_length=1, max_length=40)
    role_prompt: str = Field(min_length=20)
    greeting: str = Field(min_length=1)
    style_notes: str = ""
    # Start replies to ambiguous requests with "Understanding: ...", which the user can correct.
    states_understanding: bool = False


def load_persona(path: Path) -> Persona:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        persona = Persona(**data)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise PersonaError(f"Cannot read persona file {path}: {error}") from error
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, p['loc'])) or 'file'}: {p['msg']}" for p in error.errors()
        )
        raise PersonaError(f"Invalid persona file {path}: {problems}") from error
    if persona.name != path.stem:
        raise PersonaError(f"Persona file {path} must be named {persona.name}.toml")
    return persona


def load_personas(directory: Path = PACKAGED_DIR) -> dict[str, Persona]:
    """Every persona in `directory`, by name. An invalid file stops the load with its reason."""
    personas = {p.name: p for p in map(load_persona, sorted(directory.glob("*.toml")))}
    if not personas:
        raise PersonaError(f"No persona files (*.toml) in {directory}")
    return personas
