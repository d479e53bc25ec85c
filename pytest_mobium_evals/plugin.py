"""pytest hooks of pytest-mobium-evals (filled in by the plugin core)."""
