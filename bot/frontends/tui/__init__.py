"""The terminal UI (textual)."""
