"""Chat platforms (Telegram, Discord) in front of the one dialogue core and command layer."""
