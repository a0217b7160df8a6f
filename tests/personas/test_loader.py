"""Persona files are validated on load, with messages that name the file and the field."""

from pathlib import Path

import pytest

from personas.loader import PersonaError, load_personas

ROLE = "You are a cheerful pirate who remembers every tale the host tells."
VALID = f'''name = "pirate"
display_name = "Captain"
role_prompt = "{ROLE}"
greeting = "Ahoy!"
'''


def test_packaged_personas_load() -> None:
    personas = load_personas()
    assert {"companion", "coach"} <= set(personas)
    assert personas["companion"].display_name == "Mia"


def test_a_folder_of_my_own(tmp_path: Path) -> None:
    (tmp_path / "pirate.toml").write_text(VALID)
    assert load_personas(tmp_path)["pirate"].greeting == "Ahoy!"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (VALID.replace('greeting = "Ahoy!"\n', ""), "greeting: Field required"),
        (VALID.replace(ROLE, "Short"), "role_prompt"),
        (VALID + 'colour = "red"\n', "colour: Extra inputs are not permitted"),
        (VALID.replace('"pirate"', '"Pirate King"'), "name"),
        ("name = ", "Cannot read persona file"),
    ],
)
def test_invalid_persona_names_file_and_field(tmp_path: Path, content: str, problem: str) -> None:
    (tmp_path / "pirate.toml").write_text(content)
    with pytest.raises(PersonaError, match=r"pirate\.toml") as error:
        load_personas(tmp_path)
    assert problem in str(error.value)


def test_file_name_must_match_the_persona_name(tmp_path: Path) -> None:
    (tmp_path / "parrot.toml").write_text(VALID)
    with pytest.raises(PersonaError, match=r"must be named pirate\.toml"):
        load_personas(tmp_path)


def test_an_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PersonaError, match="No persona files"):
        load_personas(tmp_path)
