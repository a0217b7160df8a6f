"""Long-term memory: raw rounds in SQL, topic descriptions in a vector index, embeddings.

Imports nothing else from the project; the bot and the jobs depend on it, never the reverse.
"""
