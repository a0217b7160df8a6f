"""The dialogue core: one message in, a streamed reply out; what a message asks of memory."""
