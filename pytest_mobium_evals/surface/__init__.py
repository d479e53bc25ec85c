"""Surface variants of Mobium's tools: the variant files and their checks, and the stdio proxy that shows one to the
agent and writes what it saw."""
