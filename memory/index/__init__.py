"""The vector index (chromadb): per-user collections, and following a change of embedder."""
