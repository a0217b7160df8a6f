"""`companion doctor`: one line per part that chat needs, OK or what to fix."""
