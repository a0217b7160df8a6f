"""Which persona answers each user: the one they chose with `/persona`, else the default."""

from __future__ import annotations

from bot.errors import UserFacingError
from memory.protocols import ProfileStore
from personas.loader import Persona


class PersonaChoice:
    """The personas, and each user's choice among them (kept in SQL: it outlives a session)."""

    def __init__(self, personas: dict[str, Persona], default: str, profiles: ProfileStore
                 ) -> None:
        self.all = personas
        self.default = personas[default]
        self._profiles = profiles

    async def of(self, user_id: str) -> Persona:
        """The user's persona (a persona removed from the files since they chose it: the
        default)."""
        chosen = await self._profiles.persona_of(user_id)
        return self.all.get(chosen or "", self.default)

    async def choose(self, user_id: str, name: str) -> Persona:
        if name not in self.all:
            raise UserFacingError(
                f"There is no persona called '{name}'. Try: {', '.join(sorted(self.all))}."
            )
        await self._profiles.set_persona(user_id, name)
        return self.all[name]
