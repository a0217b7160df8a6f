"""Slash commands shared by every frontend: `layer` reads and runs them, `replies` words what
they answer (and imports no store, so a cheap command can use it alone)."""
