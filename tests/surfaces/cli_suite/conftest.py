"""The CLI hillclimb's tasks (probes/cli_hillclimb.py) are collected only when that probe runs them
(MOBIUM_CLI_SUITE=1): the test suite itself never runs them as trials."""

from __future__ import annotations

import os

collect_ignore_glob = [] if os.environ.get("MOBIUM_CLI_SUITE") else ["test_*.py"]
