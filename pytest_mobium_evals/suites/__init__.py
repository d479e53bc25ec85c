"""Where tasks come from: the one registry, the catalog the after-run commands read, the generic JSON-suite loading
(`json_loading`: what every JSON suite's loader shares; `eval_check`: an eval command's output against what it must
be), and each JSON suite's own loader and adapter (`ghost_bench/`, `androidworld/`). No pytest (plugin/ makes their
items)."""
