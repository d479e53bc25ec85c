"""Where PYTHONDONTWRITEBYTECODE is set, a run's processes keep their bytecode outside the checkout, in a folder of
this user's alone, and nothing is written beside the sources (plugin/bytecode.py)."""

from __future__ import annotations

import json
import os

import pytest

from pytest_mobium_evals.plugin.bytecode import DONT_WRITE, PREFIX, default_prefix, keep_bytecode_outside_sources


def test_the_variable_set_moves_bytecode_to_the_users_folder_and_unset_changes_nothing(tmp_path):
    folder = tmp_path / "pycache"
    environ = {DONT_WRITE: "1", PREFIX: str(folder), "OTHER": "kept"}
    assert keep_bytecode_outside_sources(environ) == str(folder)
    assert environ == {PREFIX: str(folder), "OTHER": "kept"}
    assert folder.is_dir() and folder.stat().st_mode & 0o777 == 0o700

    untouched = {"OTHER": "kept"}
    assert keep_bytecode_outside_sources(untouched) is None and untouched == {"OTHER": "kept"}
    assert keep_bytecode_outside_sources({DONT_WRITE: "1"} | {PREFIX: str(folder)}) == str(folder)
    assert default_prefix().endswith(f"pytest-mobium-evals-pycache-{os.getuid()}")


def test_a_folder_others_may_write_in_is_not_used(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    environ = {DONT_WRITE: "1", PREFIX: str(shared)}
    assert keep_bytecode_outside_sources(environ) is None
    assert environ == {DONT_WRITE: "1", PREFIX: str(shared)}  # compiled as before, the user's setting kept


@pytest.mark.fresh_interpreter  # what a newcomer's interpreter does at its start, not a prepared one's fork
def test_xdist_workers_inherit_the_folder_and_nothing_lands_beside_the_sources(pytester, monkeypatch):
    # The outer suite's own run has already moved its bytecode: the inner run starts from a newcomer's setting.
    monkeypatch.setenv(DONT_WRITE, "1")
    monkeypatch.delenv(PREFIX, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    pytester.makepyfile(test_where="""
        import json, os, sys

        def test_where(worker_id):
            with open(f"where-{worker_id}.json", "w") as out:
                json.dump({"dont_write": os.environ.get("PYTHONDONTWRITEBYTECODE"),
                           "prefix": os.environ.get("PYTHONPYCACHEPREFIX"),
                           "sys_prefix": sys.pycache_prefix, "sys_dont_write": sys.dont_write_bytecode}, out)
            assert True  # rewritten by pytest, and kept under the prefix
    """)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "--driver=null")
    assert result.ret == 0, result.stdout.str()
    seen = [json.loads(path.read_text()) for path in pytester.path.glob("where-gw*.json")]
    assert len(seen) == 1
    assert seen == [{"dont_write": None, "prefix": default_prefix(), "sys_prefix": default_prefix(),
                     "sys_dont_write": False}]
    assert not list(pytester.path.rglob("__pycache__"))
    kept = os.path.join(default_prefix(), *pytester.path.parts[1:])
    assert any(name.startswith("test_where.") and name.endswith(".pyc") for name in os.listdir(kept)), \
        f"no bytecode for the test module in {kept}"


def test_the_folder_is_filled_once_before_the_workers_so_they_compile_nothing(tmp_path):
    # A newcomer's first run: an empty folder. Each xdist worker compiled the standard library, the installed
    # packages and the package into it at the same moment; filled first, a process that imports them finds them all.
    import subprocess
    import sys
    from pathlib import Path

    from pytest_mobium_evals.plugin.bytecode import seed_prefix

    folder = tmp_path / "pycache"
    folder.mkdir(mode=0o700)
    package = Path(__file__).resolve().parents[2] / "pytest_mobium_evals"
    assert seed_prefix(str(folder), [package]) > 1000
    before = sorted(str(path) for path in folder.rglob("*.pyc"))
    # what a worker's virtual device and its harness's MCP client import, in a process of their own
    subprocess.run([sys.executable, "-c", "import asyncio, json, xml.etree.ElementTree, pydantic, anyio, PIL.Image, "
                    "adbutils, pytest_mobium_evals.sim, pytest_mobium_evals.reach.toolserver"],
                   env={**os.environ, PREFIX: str(folder)} | {DONT_WRITE: ""}, check=True)
    compiled = sorted(set(str(path) for path in folder.rglob("*.pyc")) - set(before))
    assert compiled == [], compiled[:5]
    assert seed_prefix(str(folder), [package]) == 0  # the stamps: a later run does nothing


def test_bytecode_that_no_longer_matches_its_source_is_not_copied(tmp_path):
    import py_compile
    import sys

    from pytest_mobium_evals.plugin.bytecode import _copy_beside, cached_path

    source = tmp_path / "lib" / "module.py"
    source.parent.mkdir()
    source.write_text("VALUE = 1\n")
    beside = source.parent / "__pycache__" / f"module.{sys.implementation.cache_tag}.pyc"
    py_compile.compile(str(source), cfile=str(beside), doraise=True)  # beside it, as pip writes it
    folder = tmp_path / "pycache"
    assert _copy_beside(str(folder), str(source)) == 1
    assert os.path.exists(cached_path(str(folder), str(source)))

    source.write_text("VALUE = 22\n")  # edited since: its bytecode's size and time no longer match
    other = tmp_path / "other"
    assert _copy_beside(str(other), str(source)) == 0
    assert not os.path.exists(cached_path(str(other), str(source)))
