"""The `mobium-evals` subcommands: argparse and the orchestration of one command each. Nothing in the package imports
a command (the entry script routes to them by name)."""
