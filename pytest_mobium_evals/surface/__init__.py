"""Surface variants of Mobium's tools: the variant files and their checks (variants), what a variant changes in what
a client shows its model (rewrite), and the stdio proxy that applies one for the agent and writes what it saw
(proxy)."""
