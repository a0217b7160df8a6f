"""Summarize jobs: windows of rounds into topics and facts, and merges of a label's topics."""
