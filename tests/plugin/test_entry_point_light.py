"""pytest loads the plugin's entry point in every pytest run of the environment, and each xdist worker loads it again:
importing it must not pull in the model SDKs, the MCP library, pydantic, Pillow, Inspect or gepa (ruff's TID253 keeps
those out of module level; this checks what the import actually loads). A worker of a controls run loads no model
client either."""

import json
import subprocess
import sys

HEAVY = ("pydantic", "mcp", "PIL", "inspect_ai", "gepa", "claude_agent_sdk", "openai", "ollama", "adbutils", "httpx",
         "anyio")


def test_importing_the_entry_point_loads_no_heavy_library():
    probe = ("import json, sys; import pytest_mobium_evals.plugin; "
             "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(done.stdout))
    assert "pytest_mobium_evals" in loaded  # the probe imported what it says it did
    assert sorted(loaded & set(HEAVY)) == []


# What a worker of a controls run never uses: the model clients and the paired statistics (a run with surface
# variants imports those at its end, on the controller).
NOT_FOR_CONTROLS = ("pytest_mobium_evals.drivers.agents", "pytest_mobium_evals.analysis.paired",
                    "pytest_mobium_evals.report.surfaces")


def test_collecting_the_controls_loads_no_model_client_nor_the_paired_statistics(pytestconfig):
    probe = ("import json, sys, pytest; "
             "pytest.main(['--driver=controls', '--collect-only', '-q', '-p', 'no:xdist', '-p', 'no:cacheprovider']); "
             f"print(json.dumps(sorted(set(sys.modules) & set({list(NOT_FOR_CONTROLS)!r}))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True,
                          cwd=pytestconfig.rootpath)
    assert " tests collected" in done.stdout  # the probe collected the tasks
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
