"""`mobium-evals hillclimb`: gepa proposes surface variants from failed trials; our paired test accepts one or none.

    mobium-evals hillclimb --model=haiku:low --reflect=sonnet:medium --budget=200 --surface=baseline \\
        --run-dir=runs/hillclimb-1 [--tasks=t05,t22,...] [--tools=app_map,app_fill] [--repeats=3] [-- PYTEST ARGS]

1. The search (gepa, the `[hillclimb]` extra). A candidate is the texts of `components` (the named tools'
   descriptions, the errors' remedies, the map's transforms) laid over `--surface`. It is evaluated by real trials
   under it (`trials.ensure`: a pytest run with `--surface=<its file>`), on the dev tasks only: gepa's trainset and
   valset are both dev, so the held-out tasks are never seen while searching. Each round has seeds of its own and
   runs `--search-repeats` of each task; a task's score is the mean over them (gepa's multi-rollout rule, never the
   best of N), and a proposal goes on from its minibatch to every dev task when the minibatch's total rose
   (`MinibatchGate`, gepa's own rule as its AcceptanceCriterion; each decision recorded with both scores). Failed
   trials are the reflective dataset, each error with its Mobium code; `--reflect` proposes each new text.
2. The acceptance, ours. Every candidate gepa kept (up to `--keep`, its best first) runs on the dev tasks with
   `--repeats`, beside the starting variant, the same seeds; the one with the largest paired gain on dev is the
   final candidate. It is accepted only when the held-out test calls it clearly better: the exact sign-flip test
   over the held-out tasks, in looks (`analysis/sequential.py`): a look after every `--repeats` repeats, at most
   `--looks`, the one-sided 2.5% spent over them, stopping at the first look that decides. Before its first trial
   it says its power at the dev check's estimate. Else it is rejected, and says why.
3. Bounded and resumable. `--budget` counts task trials really run (an answer from the cache is not one): the
   acceptance's trials (every look the held-out test may take) are set aside first, the search gets the rest
   (checked between rounds); `--reflect-tokens` bounds the reflection model, `--rounds` gepa's iterations. Every
   round, evaluation (a run folder) and reflection is written atomically as it happens, so the same command on the
   same `--run-dir` resumes: recorded trials are not run again, recorded reflections not asked again.

The folder then holds `hillclimb.md` (the decision, the before/after tables, the diff from baseline, the run
folders, the cost), `result.json`, and `accepted.toml` (or `rejected.toml`): a variant file to propose to Mobium."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from pytest_mobium_evals.analysis.paired import min_tasks_to_decide
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.split import split_of
from pytest_mobium_evals.core.tasks import task_of
from pytest_mobium_evals.drivers.agents import AgentConfigError, check_ready, parse_models
from pytest_mobium_evals.runfolder.files import atomic_write_json, read_json
from pytest_mobium_evals.suites.catalog import load_task_definitions
from pytest_mobium_evals.suites.registry import import_task_module

from .reflection import ReflectionError, ReflectionModel, resolve

INSTALL = "pip install 'pytest-mobium-evals[hillclimb]'"
SETTINGS = "hillclimb.json"
DEFAULT_TOOLS = "app_map"


def add_arguments(parser) -> None:
    parser.add_argument("--model", default="haiku:low", help="the task model (--model's names); default haiku:low")
    parser.add_argument("--reflect", default="sonnet:medium", metavar="MODEL",
                        help="the reflection model: --model's names, or python:MODULE (a reflect(prompt) of your "
                             "own); default sonnet:medium")
    parser.add_argument("--budget", type=int, default=120, metavar="TRIALS",
                        help="task trials in all, the acceptance's included (default 120)")
    parser.add_argument("--reflect-tokens", type=int, default=200_000, metavar="N",
                        help="reflection tokens in all, in and out (default 200000)")
    parser.add_argument("--rounds", type=int, default=None, metavar="N", help="at most this many gepa rounds")
    parser.add_argument("--surface", default="baseline", metavar="VARIANT",
                        help="the variant to start from (a name under surfaces/ or a .toml file); default baseline")
    parser.add_argument("--tasks", default=None, metavar="IDS",
                        help="comma-separated task ids (default: every task under the suite paths)")
    parser.add_argument("--suite", action="append", default=None, metavar="PATH",
                        help="a task folder (repeatable; default tasks/mobiumapp_tasks)")
    parser.add_argument("--tools", default=DEFAULT_TOOLS, metavar="NAMES",
                        help=f"the tools whose descriptions are components (default {DEFAULT_TOOLS})")
    parser.add_argument("--repeats", type=int, default=3,
                        help="repeats of each dev task in the dev check, and of each held-out task at each look of "
                             "the held-out test (default 3)")
    parser.add_argument("--looks", type=int, default=3, metavar="N",
                        help="the held-out test looks after every --repeats repeats, at most N times, stopping as "
                             "soon as it decides; the one-sided 2.5%% is spent over the looks (default 3)")
    parser.add_argument("--search-repeats", type=int, default=2, metavar="N",
                        help="repeats of each task when the search scores a candidate, at the round's own seed; "
                             "its score is their mean (default 2)")
    parser.add_argument("--max-cost-rise", type=float, default=0.25, metavar="SHARE",
                        help="a variant whose tool calls or tokens a trial rise more than this on held out is not "
                             "accepted (default 0.25: +25%%)")
    parser.add_argument("--keep", type=int, default=3, help="kept candidates carried to the dev check (default 3)")
    parser.add_argument("--minibatch", type=int, default=3, help="tasks gepa reflects on per round (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the trials' seed (default 1)")
    parser.add_argument("--run-dir", default=None, metavar="DIR",
                        help="the hillclimb's folder; an existing one resumes (default runs/hillclimb-<time>)")
    parser.add_argument("--base-url", default=None, help="the OpenAI-compatible server, for openai/ models")
    parser.add_argument("pytest_args", nargs="*", metavar="-- PYTEST ARGS",
                        help="passed to every pytest run (e.g. --device=..., --device-pace=fast, -p PLUGIN)")


@dataclass
class Plan:
    out: Path
    start: str  # the --surface value
    start_label: str
    dev: list[str]
    held_out: list[str]
    tools: list[str]
    search_budget: int
    acceptance_budget: int


def _gepa():
    try:
        import gepa  # noqa: F401
    except ImportError:
        raise UsageError(f"gepa is not installed: {INSTALL}") from None


def _settings(args, dev: list[str], held_out: list[str], tools: list[str], suites: list[str]) -> dict:
    return {"model": args.model, "reflect": args.reflect, "surface": args.surface, "seed": args.seed,
            "dev": dev, "held_out": held_out, "tools": tools, "suites": suites, "repeats": args.repeats,
            "looks": args.looks,
            "search_repeats": args.search_repeats, "max_cost_rise": args.max_cost_rise,
            "keep": args.keep, "minibatch": args.minibatch, "pytest_args": list(args.pytest_args)}


def _tasks(args, root: Path, suites: list[str]) -> tuple[list[str], list[str], dict[str, str]]:
    try:
        defined = load_task_definitions([root / s for s in suites])
    except Exception as exc:  # a task file that does not import: the catalog's own line
        raise UsageError(f"--suite {', '.join(suites)}: {str(exc).splitlines()[0]}") from None
    if args.tasks:
        wanted = [t.strip() for t in args.tasks.split(",") if t.strip()]
        unknown = [t for t in wanted if t not in defined]
        if unknown:
            raise UsageError(f"--tasks: no task {', '.join(unknown)} under {', '.join(suites)}")
    else:
        wanted = sorted(defined)
    split = {t: split_of(t, getattr(defined[t], "split", None)) for t in wanted}
    dev = sorted(t for t in wanted if split[t] == "dev")
    held_out = sorted(t for t in wanted if split[t] == "held_out")
    if not dev or not held_out:
        raise UsageError(f"--tasks: {len(dev)} dev and {len(held_out)} held-out tasks; the search needs dev tasks and "
                       f"the acceptance held-out ones (the split is split.py's)")
    fewest = min_tasks_to_decide()
    if len(held_out) < fewest:
        # Refused before any trial: the acceptance could never pass, so every trial of the search would be wasted.
        raise UsageError(f"--tasks: {len(held_out)} held-out tasks ({', '.join(held_out)}): the acceptance's exact "
                       f"test cannot call a variant clear with fewer than {fewest} (its smallest p is "
                       f"1/{2 ** len(held_out)}, over the 2.5% a side it needs); add held-out tasks "
                       f"(`mobium-evals plan --difference D` says how many)")
    return dev, held_out, task_nodes(defined, wanted, root)


def task_nodes(defined: dict, wanted: list[str], root: Path) -> dict[str, str]:
    """Each Python task's pytest node, `file::name`, as pytest names it: the name the task function is bound to in
    its module (a task made in a loop and bound under another name is collected under that name, not its own
    __name__). A task not found so (a JSON suite's) has none, and its trials are named by file and -k."""
    nodes = {}
    for file in sorted({(defined[t].source or "").split("::", 1)[0] for t in wanted if "::" in (defined[t].source
                                                                                                  or "")}):
        try:
            module = import_task_module(root / file)
        except Exception:  # the catalog read it already; a file that will not import again is run by -k
            continue
        for name, value in vars(module).items():
            task = task_of(value)
            if task is not None and task.id in wanted and name.startswith("test"):
                nodes.setdefault(task.id, f"{file}::{name}")
    return nodes


def run(args) -> int:
    _gepa()
    from pytest_mobium_evals.surface.variants import SurfaceError, load, variant_name  # noqa: PLC0415  loads pydantic: the CLI imports this module for its options

    from .components import CandidateError, component_names, components_of  # noqa: PLC0415  loads pydantic: the CLI imports this module for its options
    from .trials import TrialRunError, TrialSetup  # noqa: PLC0415  loads pydantic: the CLI imports this module for its options

    root = Path.cwd()
    suites = args.suite or ["tasks/mobiumapp_tasks"]
    for bound, value in (("--budget", args.budget), ("--repeats", args.repeats), ("--looks", args.looks),
                         ("--keep", args.keep),
                         ("--search-repeats", args.search_repeats),
                         ("--minibatch", args.minibatch), ("--reflect-tokens", args.reflect_tokens)):
        if value < 1:
            raise UsageError(f"{bound} {value}: must be at least 1")
    try:
        start = load(args.surface, root)
    except SurfaceError as exc:
        raise UsageError(str(exc)) from None
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    try:
        seed_candidate = components_of(start, tools)
    except CandidateError as exc:
        raise UsageError(str(exc)) from None
    dev, held_out, nodes = _tasks(args, root, suites)
    out = Path(args.run_dir or f"runs/hillclimb-{datetime.now().strftime('%Y%m%d-%H%M%S')}")
    settings = _settings(args, dev, held_out, tools, suites)
    recorded = out / SETTINGS
    if recorded.is_file():
        try:
            before = read_json(recorded)
        except UsageError:
            raise UsageError(f"{recorded}: not JSON; remove it or choose another --run-dir") from None
        changed = sorted(k for k in settings if before.get(k) != settings[k])
        if changed:
            raise UsageError(f"--run-dir {out}: it holds a hillclimb with other {', '.join(changed)} "
                           f"({', '.join(f'{k}={before.get(k)!r}' for k in changed)}); resume it with those, or "
                           f"choose another folder")
        print(f"hillclimb: resuming {out}")
    elif out.exists() and any(out.iterdir()):
        raise UsageError(f"--run-dir {out}: exists and holds no {SETTINGS}; choose another folder")
    # the dev check; then on held out, at every look the held-out test may take, the start, the final and the final
    # in plain wording (the persuasion control)
    most = args.repeats * args.looks
    acceptance = args.repeats * len(dev) * (1 + args.keep) + 3 * most * len(held_out)
    if args.budget < acceptance + len(dev) * args.search_repeats:
        raise UsageError(f"--budget {args.budget}: the acceptance alone may take {acceptance} trials ({args.repeats} "
                       f"repeats of {len(dev)} dev tasks under the start and up to {args.keep} candidates, and up to "
                       f"{most} repeats ({args.looks} looks of {args.repeats}) of {len(held_out)} held-out tasks under "
                       f"three), and the search needs at least {len(dev) * args.search_repeats} more "
                       f"({args.search_repeats} repeats of the dev tasks)")
    plan = Plan(out, args.surface, variant_name(args.surface), dev, held_out, tools, args.budget - acceptance,
                acceptance)
    try:
        label, answer = resolve(args.reflect, args.base_url)
    except ReflectionError as exc:
        raise UsageError(str(exc)) from None
    _task_model_ready(args.model, args.base_url)
    atomic_write_json(recorded, {**settings, "budget": args.budget, "reflect_tokens": args.reflect_tokens,
                                 "command": "mobium-evals hillclimb " + " ".join(shlex.quote(a) for a in
                                                                                 _argv(args))})
    reflection = ReflectionModel(label, answer, _folder(out / "reflections"))
    setup = TrialSetup(root=root, task_paths=tuple(suites), model=args.model, seed=args.seed,
                       pytest_args=tuple(args.pytest_args), task_nodes=tuple(sorted(nodes.items())))
    print(f"hillclimb: {len(dev)} dev tasks ({', '.join(dev)}), {len(held_out)} held out ({', '.join(held_out)}); "
          f"components {', '.join(component_names(tools))}; starting from {plan.start_label}; budget "
          f"{plan.search_budget} search + {acceptance} acceptance trials, {args.reflect_tokens:,} reflection tokens")
    from .search import accept, search  # noqa: PLC0415  loads pydantic: the CLI imports this module for its options

    try:
        found = search(plan, setup, start, seed_candidate, reflection, args)
        acceptance = accept(plan, setup, start, seed_candidate, found, args)
    except TrialRunError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        print(f"hillclimb: stopped; run the same command again to resume {out}")
        raise
    from .evidence import write  # noqa: PLC0415  loads pydantic: the CLI imports this module for its options

    write(plan, setup, start, seed_candidate, found, acceptance, reflection, args)
    return 0


def _task_model_ready(model: str, base_url: Optional[str]) -> None:
    """The check every pytest run would make, once and before anything is written."""
    try:
        settings = parse_models(model)
        if len(settings) != 1:
            raise UsageError(f"--model {model}: name one model (the hillclimb tunes a surface for one setting)")
        check_ready(settings[0], base_url)
    except AgentConfigError as exc:
        raise UsageError(f"--model: {exc}") from None


def _argv(args) -> list[str]:
    argv = [f"--model={args.model}", f"--reflect={args.reflect}", f"--budget={args.budget}",
            f"--reflect-tokens={args.reflect_tokens}", f"--surface={args.surface}", f"--tools={args.tools}",
            f"--repeats={args.repeats}", f"--looks={args.looks}", f"--search-repeats={args.search_repeats}",
            f"--keep={args.keep}",
            f"--max-cost-rise={args.max_cost_rise}",
            f"--minibatch={args.minibatch}",
            f"--seed={args.seed}", f"--run-dir={args.run_dir}" if args.run_dir else ""]
    argv += [f"--rounds={args.rounds}"] if args.rounds else []
    argv += [f"--tasks={args.tasks}"] if args.tasks else []
    argv += [f"--suite={s}" for s in args.suite or []]
    argv += ["--", *args.pytest_args] if args.pytest_args else []
    return [a for a in argv if a]


def _folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")

