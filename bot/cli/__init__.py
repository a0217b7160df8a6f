"""The `companion` command and its subcommands."""
