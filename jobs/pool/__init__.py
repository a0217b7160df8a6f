"""The shared pool's jobs: scoring replies, retraining the retriever, growing the pool."""
