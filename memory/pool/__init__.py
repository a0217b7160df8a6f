"""The shared pool (Memory Sharing): scrubbed exchanges, their index and the trained retriever."""
