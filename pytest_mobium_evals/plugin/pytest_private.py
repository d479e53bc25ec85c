"""The one place the plugin uses pytest's private API, each use with why pytest offers no public way.

- `setup_for(config, args)`: the rootdir and config file pytest would choose for these command-line arguments
  (`_pytest.config.findpaths.determine_setup`). pytest makes that choice once, from the free arguments of its first
  parse, before it loads entry-point plugins, and exposes only the result (`config.rootpath`, `config.inipath`). A
  plugin option's value written after a space (`--mobium PATH`) is among those free arguments; to tell whether it
  moved the rootdir, the choice must be made again without it (plugin/__init__.py, `_refuse_values_taken_for_paths`).

Everything else the plugin asks of pytest goes through its public API: a test function's own arguments are read from
its signature (`inspect.signature`, as a task's outcome check is called), and the `mobium_trial_env` seam is a fixture
every trial requests (`item.funcargs`). A pytest that no longer has the private function leaves the check undone
(`setup_for` returns None) rather than failing every run that writes an option with a space."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

try:
    from _pytest.config.findpaths import determine_setup
except ImportError:  # a pytest that chooses its rootdir elsewhere
    determine_setup = None


def setup_for(config: pytest.Config, args: list[str]) -> Optional[tuple[Path, Optional[Path]]]:
    """(rootdir, config file) as pytest would choose them from its first parse with these free arguments and the
    rest of this run's command line; None when this pytest has no such function."""
    if determine_setup is None:
        return None
    known = config.known_args_namespace
    try:
        rootdir, inipath, *_ = determine_setup(
            inifile=known.inifilename, override_ini=known.override_ini, args=args,
            rootdir_cmd_arg=known.rootdir or None, invocation_dir=config.invocation_params.dir)
    except TypeError:  # another signature: another pytest
        return None
    return rootdir, inipath
