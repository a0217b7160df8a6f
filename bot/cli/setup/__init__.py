"""`companion setup`: pick the chat model (and embedding model) and write the settings file."""
