"""Background memory jobs: topic summaries every 50 rounds and merges at 5 descriptions."""
