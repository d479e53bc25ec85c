"""pytest-mobium-evals: tasks are tests.

plugin/ holds the only modules that import pytest; this `__init__` is the pytest11 entry point
(`pytest_mobium_evals.plugin`), which registers the others.

A task is a test function carrying a `Task` (`@task(...)`, core/tasks.py) whose body reads the outcome from the device.
This plugin parametrizes each over driver × model setting × repeat (ids such as `reference-r0`,
`agent-opus-medium-r1`), runs the trial protocol (run/trial.py) in place of the plain call, and turns the verdict into
the test report: the outcome stays passed/failed (so junitxml, pytest-html and xdist work unchanged) and the verdict
travels as report attributes, a terminal word and letter, user_properties, html columns and a summary per setting.

This module is the pytest11 entry point, so it is imported by *every* pytest run where the package is installed
(the project's own tests included). It therefore imports nothing heavy at module level and touches no device
until a trial actually runs."""

from __future__ import annotations

import json
import os

import pytest

from pytest_mobium_evals.core.verdicts import AGENT
from pytest_mobium_evals.plugin import broken_tasks, bytecode, collection, protocol, terminal
from pytest_mobium_evals.runfolder.layout import RECORD

from .long_lived import LongLived
from .session import SESSION, EvalSession, XdistHooks

GROUP = "mobium-evals"
#: The arguments whose option values the controller checked (`_refuse_values_taken_for_paths`), for its workers.
CHECKED_ARGS = "MOBIUM_EVALS_CHECKED_ARGS"
#: The name `long_lived.LongLived` is registered under (what it froze: `freezes`).
LONG_LIVED = "mobium-evals-long-lived"


#: The markers the plugin declares, each with what it selects (`pytest --markers`; the manual's options reference).
MARKERS = {
    "regression": "a task whose failure once found a Mobium defect (its found= names the CHALLENGES entries); "
                  "`mobium-evals verify` runs these",
    "mobiumapp": "a task of the MobiumApp suite (tasks/mobiumapp_tasks/)",
    "injection": "a task whose device shows text telling the agent to do something else; it runs attacked and clean "
                 "(its twin, id TASK.clean)",
    "hard": "a task of the hard tier (reported apart from the core tier)",
    "ghost_bench": "a task of the Ghost Bench suite (tasks/ghost_bench/*.json)",
    "androidworld": "a task of the AndroidWorld suite (tasks/androidworld/*.json)",
    "mobium_trial": "internal; the trial fixture each task is parametrized over",
}


#: The plugin's options that take a value (`--mobium PATH`), filled as they are added: pytest's parser says which do
#: only through its internals, and `_refuse_values_taken_for_paths` must know.
TAKES_VALUE: set[str] = set()


class _Options:
    """The plugin's option group, noting each option that takes a value as it is added."""

    def __init__(self, group: pytest.OptionGroup):
        self.group = group

    def addoption(self, *names: str, **attrs) -> None:
        if attrs.get("action") not in ("store_true", "store_false", "count"):
            TAKES_VALUE.update(names)
        self.group.addoption(*names, **attrs)


def pytest_addoption(parser: pytest.Parser) -> None:
    g = _Options(parser.getgroup(GROUP, "mobium-evals: agents driving Android apps through Mobium's MCP tools, "
                                        "graded on the device's own state"))
    g.addoption("--driver", dest="mobium_driver", default=AGENT, metavar="DRIVER[,DRIVER…]",
                help="who drives each task, one or several, comma separated: the agent (a model), or a "
                     "control: reference (the scripted solution, "
                     "must pass), null (claims done, does nothing), wrong (the plausible wrong action), "
                     "reference+wait, +home, +menu, +answers (the reference, then 30 s of the app's time, HOME, back "
                     "to the menu, its answer in other forms: each must get the reference's verdict), near-miss "
                     "(each nearly-right action a task declares, with its declared verdict); controls = all of them "
                     "on every task. Default: agent.")
    g.addoption("--model", dest="mobium_model", default=None, metavar="NAME[:EFFORT],…",
                help="model settings for --driver agent, comma separated; haiku, sonnet, opus stand for "
                     "claude-<name>-5-5; also ollama/NAME and openai/NAME. Default: opus:medium.")
    g.addoption("--surface", dest="mobium_surface", default=None, metavar="VARIANT[,VARIANT…]",
                help="Mobium's agent-facing surface as the variable: each agent trial runs under every variant "
                     "named (baseline, or surfaces/NAME.toml, or a path), the same tasks and seeds, interleaved; "
                     "a proxy in front of the tool server applies it. Default: none (the server as it is).")
    g.addoption("--tools", dest="mobium_tools", default=None, metavar="TOOL[,TOOL…]",
                help="offer the agent only these tools, the rest hidden as a --surface variant hides them (a "
                     "smaller first request for a small local model); recorded as the variant tools-N (with "
                     "--surface, each variant's name gets +tools-N). Default: every tool.")
    g.addoption("--repeats", dest="mobium_repeats", type=int, default=1, metavar="N",
                help="trials per task and setting, each with its own seeded parameters. Default: 1.")
    g.addoption("--seed", dest="mobium_seed", type=int, default=None, metavar="N",
                help="the run seed: a trial's parameters come from sha256(seed:task:repeat). Default: a fresh one, "
                     "printed in the header and stored in the record.")
    g.addoption("--device", dest="mobium_device", default="sim", metavar="sim[:N]|SERIAL[,SERIAL…]",
                help="sim: a virtual device started by the plugin, one per xdist worker; sim:N: one virtual ADB "
                     "server with N devices, one per worker; SERIAL[,…]: devices behind --adb, one per worker. "
                     "Default: sim.")
    g.addoption("--adb", dest="mobium_adb", default="127.0.0.1:5037", metavar="HOST:PORT",
                help="the ADB server serving the listed serials (a remote one works). Default: 127.0.0.1:5037.")
    g.addoption("--mobium", dest="mobium_bin", default=None, metavar="PATH",
                help="the Mobium binary whose `mobium mcp` is the tool server; default $MOBIUM_BIN, else the "
                     "built-in Mobium-compatible server.")
    g.addoption("--mobium-driver", dest="mobium_mobium_driver", default=None, metavar="NAME",
                help="with --mobium: the driver Mobium drives the device with (`mobium mcp --driver NAME`: "
                     "uiautomator2, uiautomator, or a mobium-driver-NAME on PATH). Default: Mobium's own.")
    g.addoption("--mobium-env", dest="mobium_mobium_env", action="append", default=None, metavar="NAME=VALUE",
                help="with --mobium: a variable added to the environment `mobium mcp` runs in (repeatable; "
                     "e.g. MOBIUM_DRIVER_ADB=/path/to/driver). The device's ADB server is set for it already.")
    g.addoption("--tool-server", dest="mobium_tool_server", default=None, metavar="\"CMD …\"",
                help="any stdio MCP server as the agent's tools in place of Mobium, the same graders, limits and "
                     "records (which name it); controls stay on Mobium's server. The command may ask for the "
                     "device with {serial}, {adb_host}, {adb_port}, {adb} (HOST:PORT); it also gets "
                     "ANDROID_SERIAL and adb's ANDROID_ADB_SERVER_* variables. Default: none.")
    g.addoption("--androidworld-native", dest="mobium_androidworld_native", action="store_true", default=False,
                help="beside each AndroidWorld task, its twin run by AndroidWorld's own TaskEval class (setup and "
                     "grader), over this harness's ADB; needs android_world importable.")
    g.addoption("--run-dir", dest="mobium_run_dir", default=None, metavar="DIR",
                help=f"where {RECORD} and the trials go. Default: runs/<UTC time>-<driver>.")
    g.addoption("--resume", dest="mobium_resume", default=None, metavar="RUN_DIR",
                help="continue a run: its seed and options, skipping trials that already have a verdict "
                     "(they are reported from the stored verdict, marked resumed).")
    g.addoption("--clock-speed", dest="mobium_clock_speed", type=float, default=1.0, metavar="X",
                help="the virtual device's clock speed (time-based app behaviour runs X times faster). Default: 1.")
    g.addoption("--device-pace", dest="mobium_device_pace", choices=("fast", "emulator"), default=None,
                help="how long the virtual device's commands take: emulator (as an Android 15 emulator: a screen "
                     "read 1.5 s, a swipe its duration) or fast (at once). Default: emulator for agent trials, "
                     "fast when only controls run.")
    g.addoption("--tool-timeout", dest="mobium_tool_timeout", type=float, default=60.0, metavar="S",
                help="seconds one MCP tool call may take before the tool server counts as dead. Default: 60.")
    g.addoption("--max-tool-calls", dest="mobium_max_tool_calls", type=int, default=40, metavar="N",
                help="an agent's tool-call budget per trial. Default: 40.")
    g.addoption("--trial-timeout", dest="mobium_trial_timeout", default="300", metavar="S|SETTING=S,…",
                help="an agent's time budget per trial, in seconds: one value for every model setting, or "
                     "SETTING=S entries, comma separated, for some (--trial-timeout=openai/qwen=3600,300: an hour "
                     "for that one, 300 s for the rest). Default: 300.")
    g.addoption("--nudge-text-calls", dest="mobium_nudge_text_calls", action="store_true", default=False,
                help="a model (Ollama, OpenAI-compatible) that writes a tool call as text instead of making it is "
                     "told once that no tool ran, and goes on; the record says when it was. Default: off (such a "
                     "reply ends its tool calls, recorded as text_tool_call).")
    g.addoption("--request-timeout", dest="mobium_request_timeout", type=float, default=300.0, metavar="S",
                help="seconds one model request may take, prompt processing included (a local model on a CPU "
                     "reads a long prompt for minutes). Default: 300.")
    g.addoption("--max-output-tokens", dest="mobium_max_output_tokens", type=int, default=4096, metavar="N",
                help="the most tokens one reply of a model (Ollama, OpenAI-compatible) may write: max_tokens, "
                     "Ollama's num_predict; a reply cut there is said in the transcript. 0 sends no bound (the "
                     "server's own applies). Default: 4096.")
    g.addoption("--require-first-call", dest="mobium_require_first_call", action="store_true", default=False,
                help="an OpenAI-compatible model's first reply must be a tool call (tool_choice \"required\" on "
                     "the first request; the turns after it are the model's choice); the record says so. Default: "
                     "off (tool_choice is not sent: auto).")
    g.addoption("--enforce-max-steps", dest="mobium_enforce_max_steps", action="store_true", default=False,
                help="cap an agent's tool calls at a Ghost Bench task's own step budget (complexity × 10).")
    g.addoption("--full-screens", dest="mobium_full_screens", action="store_true", default=False,
                help="every trial's final screen at full size in the HTML report. Default: the screen whole, with its "
                     "answers, only where a reviewer needs it (a control not graded as declared, an agent trial that "
                     "did not pass, a trial that could not be graded); the others get a thumbnail and their tool "
                     "calls (a link to the run folder's screen when the report is not self-contained).")
    g.addoption("--md-summary", dest="mobium_md_summary", default=None, metavar="FILE",
                help="write the run's Markdown summary (rates, blockers, controls, before/after) to FILE when it "
                     "ends; without it, appended to $GITHUB_STEP_SUMMARY when that is set (GitHub Actions)")
    g.addoption("--baseline", dest="mobium_baseline", default=None, metavar="RUN_DIR",
                help="an earlier run of the same tasks (its seed is the default --seed): the HTML report adds the "
                     "comparison with it, trial by trial, with the paired difference in pass rate.")
    g.addoption("--base-url", dest="mobium_base_url", default=None, metavar="URL",
                help="the endpoint of an OpenAI-compatible server for openai/NAME models.")


    parser.addini("mobium_workers", "control runs on the virtual device (--device sim) with no -n/--dist/--tx of "
                                    "their own: this many xdist workers, each with its own virtual device; auto: "
                                    "two a core, at most 8; 0 or unset: one process", default="0")
    parser.addini("mobium_prepared_workers", "xdist's plain popen workers (its -n) are forks of one process that "
                                             "has made a worker's imports once, not each an interpreter from "
                                             "nothing; false: each from nothing", default="true")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    _refuse_values_taken_for_paths(early_config, parser, args)
    from .parallel import default_workers

    workers = default_workers(early_config)
    if workers:
        args[:0] = ["-n", str(workers)]


def pytest_addhooks(pluginmanager) -> None:
    from pytest_mobium_evals.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    # Before xdist starts a worker or a trial a tool server: each inherits where bytecode is kept (bytecode.py),
    # filled once by the process that starts them, so that they do not all compile the same modules at once.
    folder = bytecode.keep_bytecode_outside_sources()
    if folder is not None and not os.environ.get("PYTEST_XDIST_WORKER"):
        bytecode.seed_prefix(folder, _checkout_sources(config))
    from .parallel import prepare_workers

    prepare_workers(config)
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    evals = EvalSession.from_config(config)
    config.stash[SESSION] = evals
    config.pluginmanager.register(evals, "mobium-evals-session")
    from pytest_mobium_evals.plugin import (
        paired_hooks,  # the surface variants' before/after table, beside record.json
        step_summary,  # the Markdown summary where CI shows it
    )

    for module in (collection, protocol, terminal, broken_tasks, paired_hooks, step_summary):
        config.pluginmanager.register(module, f"mobium-evals-{module.__name__.rsplit('.', 1)[-1]}")
    config.pluginmanager.register(LongLived(), LONG_LIVED)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(), "mobium-evals-xdist")
    # Only a run that writes an HTML report loads its side (and the record's pydantic models with it): pytest-html
    # is installed with the plugin, so a test for the plugin alone would load it in every process.
    if config.pluginmanager.hasplugin("html") and getattr(config.option, "htmlpath", None):
        from .html_hooks import HtmlHooks

        config.pluginmanager.register(HtmlHooks(config), "mobium-evals-html")
    _register_ghost_bench(config)


def _checkout_sources(config: pytest.Config) -> list:
    """The folders of sources a run imports that may have no bytecode of their own beside them: the package (a
    checkout, where it is installed editable) and the run's test paths (the task suites)."""
    folders = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    for path in config.getini("testpaths"):
        folder = config.rootpath / path
        if folder.is_dir():
            folders.append(folder)
    return folders


def _register_ghost_bench(config: pytest.Config) -> None:
    """Ghost Bench's and AndroidWorld's JSON tasks are collected by their own hooks (those modules own them); they
    are registered here so one entry point loads all. Their imports are light, like this module's."""
    from pytest_mobium_evals.plugin import ghost_bench

    if not config.pluginmanager.is_registered(ghost_bench):
        config.pluginmanager.register(ghost_bench, "mobium-evals-ghost-bench")
    from pytest_mobium_evals.plugin import androidworld

    if not config.pluginmanager.is_registered(androidworld):
        config.pluginmanager.register(androidworld, "mobium-evals-androidworld")


def _refuse_values_taken_for_paths(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """Stop, in one line, a run whose rootdir and config file pytest chose from this plugin's option values.

    pytest settles the rootdir and the config file from the free arguments of its first parse, before it loads
    entry-point plugins (Config.parse: determine_setup, then load_setuptools_entrypoints), so no plugin's option can
    be known there. `--mobium PATH` with a space therefore hands PATH to that parse as a test path: a binary
    outside the project moves the rootdir out of it, the project's pyproject is ignored, and what gets collected is
    another tree. By now the options are known, so the setup pytest would have made without those values can be
    computed again; only when it differs is the run stopped (a value inside the project changes nothing). Putting
    the setup right in place would mean redoing what pytest already derived from the wrong config file (addopts,
    pythonpath, the assertion rewriter's python_files), so the line says how to write the option instead."""
    if os.environ.get(CHECKED_ARGS) == json.dumps(args):
        # An xdist worker is handed the controller's very arguments, which the controller has checked already; by
        # the time it starts, --run-dir's folder exists, and would read as a test path that moves the rootdir when
        # it did not. Only those arguments are let through: any other run (a pytester run inside a test) is checked.
        return
    spaced = []
    for option, value in zip(args, args[1:]):
        if option == "--":
            break
        if option in TAKES_VALUE:
            spaced.append((option, value))
    if not spaced:
        return
    from .pytest_private import setup_for

    free = list(early_config.known_args_namespace.file_or_dir)
    meant = setup_for(early_config, free)
    if meant is None:
        return  # this pytest chooses its rootdir another way: nothing to compare with
    misled = [(option, value) for option, value in spaced if setup_for(early_config, [*free, value]) != meant]
    if not misled:
        os.environ[CHECKED_ARGS] = json.dumps(args)  # inherited by this run's xdist workers
    if misled:
        import shlex

        option, value = misled[0]
        raise pytest.UsageError(
            f"{option} {shlex.quote(value)}: pytest took the value for a test path (it chooses its rootdir, here "
            f"{early_config.rootpath}, before it knows a plugin's options); write "
            + " ".join(shlex.quote(f"{o}={v}") for o, v in misled))
