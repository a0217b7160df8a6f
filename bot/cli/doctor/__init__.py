"""`companion doctor`: one line per part that chat needs, OK or what to fix.

`diagnose` runs the parts in order; each part has its module (settings, sql, vector, embedder,
chat_model, memory_jobs, tokens for Telegram and Discord, data) answering with a `Check`.
The stores, models and HTTP clients are imported inside the checks, so that importing these
modules (and `companion --help`) stays fast.
"""
