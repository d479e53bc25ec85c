"""Where tasks come from: the one registry, the catalog the after-run commands read, and the JSON suites' loaders and
adapters (Ghost Bench, AndroidWorld). No pytest (plugin/ makes their items)."""
