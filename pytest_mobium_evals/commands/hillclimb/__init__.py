"""`mobium-evals hillclimb`: surface variants proposed from failed trials by gepa's reflective search, and accepted
only by our own paired test on held-out tasks.

- `components`: a surface variant as gepa's candidate (named texts: tool descriptions, error remedies, the map's
  transforms) and back to a variant file.
- `trials`: evaluating a candidate = real trials under it, a pytest run of the tasks with `--surface=<its file>`,
  one run folder per evaluation, read back with the run loader; failed trials as the reflective dataset.
- `reflection`: the reflection model, any configured provider (Claude, OpenAI-compatible, Ollama) or a Python
  module of one's own, with its tokens and cost counted.
- `command`: the search, its budget and resumption, the acceptance (dev with repeats, then held out) and the
  evidence.

gepa is the optional extra `[hillclimb]`; nothing here imports it before the command runs."""
