"""`mobium-evals`: the command line. Each subcommand lives in the module that owns its concern; this file only
routes to it, importing the module lazily so `mobium-evals sim` does not pay for the agent SDKs."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.runfolder.layout import REPORT

# subcommand -> (module, one-line help). The module provides add_arguments(parser) and run(args) -> int.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "sim": ("pytest_mobium_evals.sim.cli", "run the virtual Android device (an ADB server) in the foreground"),
    "mcp": ("pytest_mobium_evals.mobium_server.cli", "serve the Mobium-compatible MCP tools on stdio, over ADB"),
    "mobium": ("pytest_mobium_evals.mobium_server.cli_face", "Mobium's command line over the built-in server "
               "(`mobium-evals mobium --device S map`)"),
    "report": ("pytest_mobium_evals.commands.report", f"write {REPORT} and a pass-rate chart for a run folder"),
    "compare": ("pytest_mobium_evals.report.compare", "compare two runs with the same tasks and seed, trial by trial"),
    "runs": ("pytest_mobium_evals.commands.runs", "list the runs in a folder, one line each"),
    "judge": ("pytest_mobium_evals.commands.judge", "regrade a run's answers with a local model through Ollama"),
    "verify": ("pytest_mobium_evals.commands.verify", "run the regression tasks on two Mobium commits and compare"),
    "test": ("pytest_mobium_evals.commands.testfile", "run a Mobium *.test.json file over the MCP tools"),
    "plan": ("pytest_mobium_evals.commands.plan",
             "what held-out tasks and repeats decide with the exact paired test: "
             "the smallest difference at 80% power, or the smallest held-out sets for a difference"),
    "surface": ("pytest_mobium_evals.commands.surface", "surface variants: check a variant file, capture a real "
                "Mobium's surface, the before/after table of a run"),
    "hillclimb": ("pytest_mobium_evals.commands.hillclimb.command",
                  "propose surface variants from failed trials (gepa) and "
                  "accept one only by the paired test on held-out tasks"),
    "promote": ("pytest_mobium_evals.commands.promote", "write the start of a regression task from a failed trial"),
    "export": ("pytest_mobium_evals.commands.export_inspect", "write a run as an Inspect AI log, for `inspect view`"),
}


DESCRIPTION = ("Evaluate AI agents driving Android apps through Mobium's MCP tools: the trials run under pytest "
               "(`pytest tasks --driver=controls`, `--model opus`); these commands serve the virtual device and the "
               "tool server, and report, compare, list, export and verify the runs in runs/.")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with `only` a known subcommand, just that one's options: every trial's tool
    server and t25's test runs start through here, and need not import the reports, the judge and the agents."""
    parser = argparse.ArgumentParser(prog="mobium-evals", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in SUBCOMMANDS.items():
        # argparse expands "%" in a help string (not in a description): "80% power" must not be read as "%p"
        p = sub.add_parser(name, help=help_text.replace("%", "%%"), description=help_text)
        p.set_defaults(_module=module)
        if only is not None and name != only:
            continue
        # Options are added by the owning module; importing it here keeps `--help` truthful.
        importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["mobium"] and argv[1:2] not in (["-h"], ["--help"]):
        # Mobium's grammar puts flags anywhere, which argparse cannot pass through; and a check script calls this
        # once a step, so it must not pay for loading every subcommand's module.
        from pytest_mobium_evals.mobium_server.cli_face import main as mobium_main  # noqa: PLC0415  Mobium's command line alone: a check script calls it once a step
        return mobium_main(argv[1:])
    parser = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    mod = importlib.import_module(args._module)
    try:
        if args.command == "mcp" and getattr(args, "prefork", None):
            # A prepared server also runs t25's `mobium-evals test` in a fork of its own: the MCP SDK that run's
            # client needs is imported there already (about 0.8 CPU s a run from nothing).
            return int(mod.run(args, others={"test": _test_in_fork}) or 0)
        return int(mod.run(args) or 0)
    except UsageError as exc:
        print(f"mobium-evals {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"mobium-evals {args.command}: interrupted", file=sys.stderr)
        return 130


def _test_in_fork(argv: list[str]) -> int:
    """`mobium-evals test` in a fork of the prepared server: its own tool servers are forks of that server too."""
    from pytest_mobium_evals.mobium_server.prefork import attach_command  # noqa: PLC0415  only a prepared server's fork asks
    from pytest_mobium_evals.reach.toolserver import PREPARED_SERVER_ENV  # noqa: PLC0415  only a prepared server's fork asks

    own = attach_command()
    if own is not None:
        os.environ[PREPARED_SERVER_ENV] = json.dumps(own)
    return main(argv)


if __name__ == "__main__":
    sys.exit(main())
