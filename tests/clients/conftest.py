"""The field's clients from the registries, unchanged, against the virtual device. npm's clients live in ONE folder,
`.clients/` at the repository's root (gitignored), filled by `.ci/run`:

    npm install --prefix .clients @mobilenext/mobile-mcp@1.0.4

or wherever $MOBIUM_EVALS_CLIENTS points. A test whose client is missing skips, saying how to install it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MOBILE_MCP_VERSION = "1.0.4"
MOBILE_MCP_ENTRY = Path("node_modules/@mobilenext/mobile-mcp/lib/index.js")
MOBILECLI = Path("node_modules/.bin/mobilecli")


def clients_dir() -> Path:
    return Path(os.environ.get("MOBIUM_EVALS_CLIENTS") or ROOT / ".clients")


def mobile_mcp_entry() -> Path:
    """mobile-mcp's entry script, the pinned version; skips the test when it is not installed."""
    for tool in ("node", "adb"):
        if shutil.which(tool) is None:
            pytest.skip(f"mobile-mcp needs `{tool}` on PATH")
    entry = clients_dir() / MOBILE_MCP_ENTRY
    if not entry.is_file():
        pytest.skip(f"mobile-mcp is not installed in {clients_dir()}: npm install --prefix .clients "
                    f"@mobilenext/mobile-mcp@{MOBILE_MCP_VERSION} (or point MOBIUM_EVALS_CLIENTS at a folder "
                    f"that has it)")
    package = (entry.parents[1] / "package.json").read_text()
    if f'"version": "{MOBILE_MCP_VERSION}"' not in package:
        pytest.skip(f"{entry.parents[1]} is not mobile-mcp {MOBILE_MCP_VERSION}")
    return entry


@pytest.fixture
def mobile_mcp(monkeypatch):
    """mobile-mcp's command, with mobilecli's daemon private to the test (its own MOBILECLI_HOME: the daemon keeps
    the ADB server it was started with, so two tests must not share one) and stopped afterwards, with the
    DeviceServer it started on the device."""
    entry = mobile_mcp_entry()
    home = tempfile.mkdtemp(prefix="mcli-")  # short: the daemon's Unix socket lives there
    monkeypatch.setenv("MOBILECLI_HOME", home)
    monkeypatch.setenv("MOBILEMCP_DISABLE_TELEMETRY", "1")
    yield f"node {entry}"
    mobilecli = clients_dir() / MOBILECLI
    subprocess.run([str(mobilecli), "daemon", "stop"], env={**os.environ, "MOBILECLI_HOME": home},
                   capture_output=True, timeout=30)
    shutil.rmtree(home, ignore_errors=True)
