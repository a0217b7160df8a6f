"""Feedback memory (MemPrompt): corrections, and when one applies to a new message."""
