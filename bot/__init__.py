"""Companion: the dialogue core, the LLM client, the command layer and the frontends."""

__version__ = "0.1.0"
