"""`mobium-evals verify --before REF --after REF`: a change to Mobium, checked by the tasks that found defects.

Each ref is checked out in a git worktree of its own and built there, so each run's record stamps the commit it
really ran (and whether the tree was dirty) rather than whatever the main checkout has at the moment. The same tasks
run with one seed under each build; the result is compare's report, with the table of the regression tasks (the
ones with `found=`) before and after. That table is what a Mobium PR that changes what an agent reads carries."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Optional

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.verdicts import AGENT
from pytest_mobium_evals.report.compare import compare_runs, render
from pytest_mobium_evals.runfolder.files import atomic_write_text
from pytest_mobium_evals.runfolder.layout import COMPARE, RECORD, RunDir
from pytest_mobium_evals.runfolder.reading import load_run, read_run_record
from pytest_mobium_evals.runfolder.writing import write_record

DEFAULT_BUILD = "go build -o {out} ./cmd/mobium"
DEFAULT_REPO = "~/mobium-public"
DEFAULT_SEED = 20261011
DEFAULT_TASKS_PATH = "tasks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--before", required=True, metavar="REF", help="the Mobium ref before the change (e.g. main)")
    parser.add_argument("--after", required=True, metavar="REF", help="the Mobium ref with the change")
    parser.add_argument("--repo", metavar="PATH",
                        help=f"the Mobium checkout (default: $MOBIUM_REPO, else {DEFAULT_REPO})")
    parser.add_argument("--build", metavar="CMD", default=DEFAULT_BUILD,
                        help="the build command, run in each worktree; {out} is the binary to write "
                             f"(default: {DEFAULT_BUILD!r})")
    parser.add_argument("--tasks", metavar="IDS", help="comma-separated task ids (default: the regression set, "
                                                       "-m regression)")
    parser.add_argument("--models", metavar="LIST", help="comma-separated model[:effort] settings for the agent")
    parser.add_argument("--repeats", type=int, default=1, metavar="N", help="repeats per task (default 1)")
    parser.add_argument("--driver", default=AGENT, help=f"the driver (default {AGENT}; 'controls' checks graders)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the run seed (default {DEFAULT_SEED})")
    parser.add_argument("--runs", metavar="DIR", default="runs", help="where the two runs are written (runs/)")
    parser.add_argument("--suite", metavar="PATH", default=DEFAULT_TASKS_PATH,
                        help=f"the tasks pytest collects (default {DEFAULT_TASKS_PATH}/)")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, metavar="-- PYTEST_ARGS",
                        help="after --, more pytest options for both runs (e.g. --device SERIAL --adb HOST:PORT)")


@dataclass
class Build:
    label: str  # "before" | "after"
    ref: str
    commit: str
    dirty: bool
    binary: Path
    worktree: Path


@dataclass
class TrialRequest:
    """Everything one pytest run of the tasks needs; the runner turns it into a run folder at `run_dir`."""

    build: Build
    run_dir: Path
    seed: int
    tasks: Optional[list[str]]
    models: Optional[str]
    repeats: int
    driver: str
    suite: str
    extra: tuple[str, ...] = ()  # more pytest options, the same for both builds


Runner = Callable[[TrialRequest], None]


def run(args: argparse.Namespace) -> int:
    if args.repeats < 1:
        raise UsageError(f"--repeats must be at least 1, not {args.repeats}")
    repo = Path(os.path.expanduser(args.repo or os.environ.get("MOBIUM_REPO") or DEFAULT_REPO))
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = Path(args.runs) / f"{stamp}-verify-{_slug(args.before)}-{_slug(args.after)}"
    extra = tuple(args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args)
    text = verify(repo, args.before, args.after, out, build_command=args.build, seed=args.seed, tasks=tasks,
                  models=args.models, repeats=args.repeats, driver=args.driver, suite=args.suite, extra=extra)
    sys.stdout.write(text)
    return 0


def _slug(ref: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in ref)[:40]


def _progress(message: str) -> None:
    print(f"verify: {message}", file=sys.stderr, flush=True)


def verify(repo: Path, before: str, after: str, out: Path, *, build_command: str = DEFAULT_BUILD,
           seed: int = DEFAULT_SEED, tasks: Optional[list[str]] = None, models: Optional[str] = None,
           repeats: int = 1, driver: str = AGENT, suite: str = DEFAULT_TASKS_PATH, extra: tuple[str, ...] = (),
           runner: Optional[Runner] = None) -> str:
    """Build both refs, run the tasks under each, stamp the records, and write `out/compare.md`; returns its text."""
    runner = runner or run_pytest
    toplevel = _git(repo, "rev-parse", "--show-toplevel", what=f"{repo} is not a git checkout (set MOBIUM_REPO "
                                                                "or --repo to the Mobium repository)")
    repo = Path(toplevel)
    commits = {label: _resolve(repo, ref) for label, ref in (("before", before), ("after", after))}
    if out.exists():
        raise UsageError(f"{out}: already exists; verify writes a new folder")
    scratch = Path(tempfile.mkdtemp(prefix="mobium-verify-"))
    worktrees: list[Path] = []
    try:
        run_dirs = {}
        for label, ref in (("before", before), ("after", after)):
            build = _build(repo, label, ref, commits[label], scratch, build_command, worktrees)
            run_dir = out / label
            _progress(f"{label}: running the tasks against {ref} ({build.commit[:12]}) into {run_dir}")
            runner(TrialRequest(build, run_dir, seed, tasks, models, repeats, driver, suite, extra))
            stamp_record(run_dir, build, build_command)
            run_dirs[label] = run_dir
    finally:
        for wt in worktrees:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(wt)],
                           capture_output=True, text=True)
        subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True, text=True)
        shutil.rmtree(scratch, ignore_errors=True)
    comparison = compare_runs(load_run(run_dirs["before"]), load_run(run_dirs["after"]),
                              labels=(f"before ({before})", f"after ({after})"), task_paths=[Path(suite)])
    comparison.title = f"Verify Mobium {before} → {after}"
    text = render(comparison)
    atomic_write_text(out / COMPARE, text)
    _progress(f"wrote {out / COMPARE}")
    return text


def _git(repo: Path, *args: str, what: str) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise UsageError("git is not installed") from None
    if proc.returncode != 0:
        raise UsageError(what)
    return proc.stdout.strip()


def _resolve(repo: Path, ref: str) -> str:
    return _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}",
                what=f"{ref}: no such commit, branch or tag in {repo}")


def _build(repo: Path, label: str, ref: str, commit: str, scratch: Path, build_command: str,
           worktrees: list[Path]) -> Build:
    worktree = scratch / f"worktree-{label}"
    _progress(f"{label}: checking out {ref} ({commit[:12]}) in a worktree")
    proc = subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(worktree), commit],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise UsageError(f"cannot make a worktree of {ref}: {_last_line(proc.stderr)}")
    worktrees.append(worktree)
    binary = scratch / "bin" / f"mobium-{label}"
    binary.parent.mkdir(exist_ok=True)
    command = build_command.replace("{out}", shlex.quote(str(binary)))
    _progress(f"{label}: building: {command}")
    proc = subprocess.run(command, shell=True, cwd=worktree, capture_output=True, text=True)
    if proc.returncode != 0:
        raise UsageError(f"building {ref} ({commit[:12]}) failed with exit {proc.returncode}: "
                       f"{_last_line(proc.stderr or proc.stdout)}")
    if not binary.exists():
        raise UsageError(f"building {ref} wrote no binary at {{out}}: the build command must write {{out}} "
                       f"(it was: {build_command})")
    # Tracked files changed by the build (generated code, say) mean the binary is not the commit as checked in.
    status = subprocess.run(["git", "-C", str(worktree), "status", "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True)
    return Build(label, ref, commit, bool(status.stdout.strip()), binary, worktree)


def _last_line(text: str) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(no output)"


def stamp_record(run_dir: Path, build: Build, build_command: str) -> None:
    """Write into the run's record the Mobium commit that was built and run, whatever the run itself stamped."""
    record_path = RunDir(run_dir).record_path
    if not record_path.exists():
        raise UsageError(f"the {build.label} run wrote no {RECORD} in {run_dir}: the tasks did not run "
                       "(see the pytest output above)")
    record = read_run_record(record_path, "run record")
    mobium = record.mobium if isinstance(record.mobium, dict) else {}
    record.mobium = {**mobium, "commit": build.commit, "dirty": build.dirty, "ref": build.ref,
                     "build": build_command, "verify": build.label}
    write_record(run_dir, record)


def pytest_command(request: TrialRequest) -> list[str]:
    """The pytest invocation for one build: the same suite, seed and selection, the built binary as Mobium."""
    # The plugin's options go as --opt=value: pytest chooses its rootdir before it knows them, so a binary or run
    # folder after a space would count as a test path (the plugin refuses the run when that moves the rootdir).
    cmd = [sys.executable, "-m", "pytest", request.suite, "-p", "no:randomly", "-q",
           f"--mobium={request.build.binary}", f"--seed={request.seed}", f"--run-dir={request.run_dir}",
           f"--driver={request.driver}", f"--repeats={request.repeats}"]
    if request.models:
        cmd += [f"--model={request.models}"]
    if request.tasks:
        # a task's test function is named test_<id>_<slug> and its trials carry the id: -k selects them
        cmd += ["-k", " or ".join(request.tasks)]
    else:
        cmd += ["-m", "regression"]
    return cmd + list(request.extra)


def run_pytest(request: TrialRequest) -> None:
    cmd = pytest_command(request)
    env = dict(os.environ, MOBIUM_BIN=str(request.build.binary), MOBIUM_REPO=str(request.build.worktree))
    _progress(f"{request.build.label}: " + " ".join(shlex.quote(c) for c in cmd))
    # pytest's own output is the progress of a long run; it goes to stderr so stdout stays the report
    proc = subprocess.run(cmd, env=env, stdout=sys.stderr, stderr=sys.stderr)
    # Failing trials make pytest exit 1; that is a result, not an error. Anything else means no run happened.
    if proc.returncode not in (0, 1):
        raise UsageError(f"pytest on the {request.build.label} build exited {proc.returncode} "
                       f"(see its output above); no comparison")
