"""`mobium-evals promote RUN/TRIAL --id=tNN`: the start of a regression task from a failed trial.

    mobium-evals promote runs/hillclimb-1/accept-dev/6567703a-a1/t05-agent-claude-haiku-5-5+baseline-r0 --id=t65

It writes `tasks/mobiumapp_tasks/test_tNN_<slug>.py` (or `--out`) with what the trial knows: the prompt the agent got
(the task's own template when the task is still defined, with the trial's parameters fixed), the precondition the
task had, `regression=True` and `found=` naming the trial, its verdict and what the device showed. What only its
author can write is left as `TO_WRITE`: the outcome check (the test function's body, marked `@to_write`), and the
controls (the reference and wrong scripts, and the verdict each must get). Until they are written the file fails
collection with one line saying so (tasks.py refuses a declaration holding TO_WRITE), so a half-made task never
runs. A trial that passed is refused, and so is a file that exists."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.transcript import prompt_text
from pytest_mobium_evals.runfolder.files import atomic_write_bytes
from pytest_mobium_evals.runfolder.layout import TRANSCRIPT, TRIALS
from pytest_mobium_evals.runfolder.reading import load_run, read_events
from pytest_mobium_evals.suites.catalog import load_task_definitions


def add_arguments(parser) -> None:
    parser.add_argument("trial", metavar="RUN/TRIAL", help=f"a trial folder: the run folder, then "
                        f"{TRIALS}/<name> (or the name alone after the run)")
    parser.add_argument("--id", required=True, help="the new task's id (tNN)")
    parser.add_argument("--slug", default=None, help="its slug (default: the original task's, '-regression')")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="the file to write (default tasks/mobiumapp_tasks/test_<id>_<slug>.py)")


def _trial(path: Path):
    if path.parent.name == TRIALS:
        run_dir, name = path.parent.parent, path.name
    else:
        run_dir, name = path.parent, path.name
    run = load_run(run_dir, require_complete=False)
    for t in run.trials:
        if t.name == name:
            return run, t
    raise UsageError(f"{path}: no such trial in {run_dir} (it has {len(run.trials)}: e.g. "
                   f"{', '.join(t.name for t in run.trials[:3]) or 'none'})")


def _prompt(trial) -> str:
    return prompt_text(read_events(trial.path / TRANSCRIPT))


def _py(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def render(task_id: str, slug: str, trial, prompt: str, original, found: str) -> str:
    fn = f"test_{task_id}_{slug.replace('-', '_')}"
    params = trial.record.params or {}
    pre_import, pre_field = "", ""
    precondition = getattr(original, "precondition", None) if original is not None else None
    source = Path(original.source.split("::", 1)[0]).stem if original is not None and original.source else None
    if precondition is not None and source and re.fullmatch(r"[A-Za-z_]\w*", precondition.__name__ or ""):
        pre_import = f"from .{source} import {precondition.__name__}\n"
        pre_field = f"precondition={precondition.__name__}, "
    lines = [
        f'"""{task_id} {slug}: a regression task promoted from {trial.path} ({trial.record.verdict})."""',
        "",
        "from __future__ import annotations",
        "",
        "from .suite import mobiumapp",
        pre_import.rstrip("\n"),
        "",
        "from pytest_mobium_evals.core.tasks import TO_WRITE, Outcome, to_write",
        "",
        "#: The parameters of the trial it was promoted from (seeded by task and repeat there; fixed here).",
        f"PARAMS = {_py(params)}",
        "",
        "",
        f"@mobiumapp(id={_py(task_id)}, slug={_py(slug)}, regression=True,",
        f"           prompt={_py(prompt)},",
        f"           params=lambda rng: dict(PARAMS), {pre_field}".rstrip(),
        f"           found={_py(found)},",
        "           # The controls: a reference script that does the task through the tools (it must pass), and a",
        "           # wrong one that does the failure this trial did (its verdict declared in controls=Controls(...)).",
        "           reference=TO_WRITE, wrong=TO_WRITE)",
        "@to_write  # the outcome check: read the device and return an Outcome; then remove this line",
        f"def {fn}(device, params) -> Outcome:",
        "    ...",
        "",
    ]
    text = "\n".join(lines)
    return text.replace("import mobiumapp\n\n\nfrom", "import mobiumapp\n\nfrom") + "\n"


def run(args) -> int:
    if not re.fullmatch(r"t\d+[a-z0-9_]*", args.id):
        raise UsageError(f"--id {args.id!r}: a task id is t and a number (t65)")
    run_, trial = _trial(Path(args.trial))
    if trial.record.passed:
        raise UsageError(f"{trial.path}: the trial passed; promote a failed one (a regression task starts from what "
                       f"went wrong)")
    if trial.record.is_infra_error:
        raise UsageError(f"{trial.path}: an infrastructure error, not the agent's or Mobium's failure; nothing to "
                       f"promote")
    original = None
    suite = Path("tasks/mobiumapp_tasks")
    if suite.is_dir():
        with contextlib.redirect_stderr(io.StringIO()):
            original = load_task_definitions([suite]).get(trial.record.task)
    prompt = original.prompt if original is not None else _prompt(trial)
    slug = args.slug or f"{original.slug if original is not None else trial.record.task}-regression"
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", slug):
        raise UsageError(f"--slug {slug!r}: lower-case letters, digits and dashes")
    out = Path(args.out or suite / f"test_{args.id}_{slug.replace('-', '_')}.py")
    if out.exists():
        raise UsageError(f"{out}: exists; choose another --id, --slug or --out")
    said = trial.record.claim_status or "no claim"
    if trial.record.answer:
        said += f" ({trial.record.answer!r})"
    observed = trial.record.outcome_observed
    found = (f"{trial.path}: {trial.record.verdict} under surface {trial.record.surface or 'baseline'}, model "
             f"{trial.record.model_name}; the agent said {said}, the device showed {observed!r}")
    atomic_write_bytes(out, render(args.id, slug, trial, prompt, original, found).encode("utf-8"))
    print(f"wrote {out}: the prompt, the trial's parameters, "
          + ("the task's precondition, " if original is not None and original.precondition else "")
          + "regression=True and found= naming the trial.")
    print("Still to write, each marked TO_WRITE (until then the file fails collection with one line): the outcome "
          "check (the test function's body: what the device must show), and the controls (reference=, a script "
          "that does the task; wrong=, one that fails it as this trial did; and the verdict each must get).")
    return 0
