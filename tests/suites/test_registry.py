"""The one task registry outside pytest (registry.py, through catalog.py): task packages imported by their package
names with nothing put on sys.path, every suite's tasks, an id taken once, a bad file or object one line."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from pytest_mobium_evals.suites.catalog import load_task_definitions
from pytest_mobium_evals.suites.registry import import_task_module, module_name

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def modules_imported_here_go_after():
    """These tests import task packages into this process under their own names (`mobiumapp_tasks`, from temporary
    folders). Left in sys.modules, such a package would stand in for the one a later in-process pytester run of
    the same worker collects, and that run's every file would fail to import."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]

TASK = '''
from .suite import mobiumapp
from pytest_mobium_evals.core.tasks import Claim, Outcome


def ref(tools, params):
    return Claim("done")


@mobiumapp(id="TID", slug="s", reference=ref, wrong=ref, prompt="PROMPT")
def test_TID_s(device, params):
    return Outcome(True)
'''


def suite_copy(where: Path, prompt: str) -> Path:
    """A task package of one task beside a copy of MobiumApp's suite.py."""
    package = where / "mobiumapp_tasks"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copy(ROOT / "tasks" / "mobiumapp_tasks" / "suite.py", package / "suite.py")
    (package / "test_t90_s.py").write_text(TASK.replace("TID", "t90").replace("PROMPT", prompt))
    return package


def test_the_repository_suites_load_by_package_name_with_sys_path_untouched():
    before = list(sys.path)
    tasks = load_task_definitions([ROOT / "tasks"])
    assert sys.path == before
    assert {t.suite for t in tasks.values()} == {"mobiumapp", "ghost_bench", "androidworld"}
    assert module_name(ROOT / "tasks" / "mobiumapp_tasks" / "test_t05_slider.py") == \
        (ROOT, "tasks.mobiumapp_tasks.test_t05_slider")
    module = import_task_module(ROOT / "tasks" / "mobiumapp_tasks" / "test_t05_slider.py")
    assert module is sys.modules["tasks.mobiumapp_tasks.test_t05_slider"]
    assert tasks["t05"].outcome is module.test_t05_slider


def test_a_second_copy_of_a_package_gets_its_own_modules(tmp_path):
    first = suite_copy(tmp_path / "a", "the first")
    second = suite_copy(tmp_path / "b", "the second")
    assert load_task_definitions([first])["t90"].prompt == "the first"
    task = load_task_definitions([second])["t90"]
    assert task.prompt == "the second"
    assert Path(sys.modules["mobiumapp_tasks.suite"].__file__) == second / "suite.py"


def test_an_id_taken_twice_is_one_line_and_the_first_stays(tmp_path, capsys):
    package = suite_copy(tmp_path, "the first")
    (package / "test_t91_again.py").write_text(TASK.replace("TID", "t90").replace("PROMPT", "again")
                                               .replace("test_t90_s", "test_t91_again"))
    tasks = load_task_definitions([package])
    assert tasks["t90"].prompt == "the first"
    (line,) = capsys.readouterr().err.splitlines()
    assert "test_t91_again.py: task t90: the id is already taken by " in line and "test_t90_s.py" in line


def test_a_file_that_does_not_import_and_a_broken_json_object_are_one_line_each(tmp_path, capsys):
    package = suite_copy(tmp_path, "fine")
    (package / "test_t92_broken.py").write_text("from .nowhere import x\n")
    bench = tmp_path / "ghost_bench"
    bench.mkdir()
    good = json.loads((ROOT / "tasks" / "ghost_bench" / "settings.json").read_text())
    objects = good if isinstance(good, list) else good["tasks"]
    (bench / "mixed.json").write_text(json.dumps([objects[0], {"id": "Broken", "goal": 3}]))
    tasks = load_task_definitions([tmp_path])
    assert "t90" in tasks and objects[0]["id"] in tasks
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert any("test_t92_broken.py: skipped, it does not import: ModuleNotFoundError" in line for line in err)
    assert any("mixed.json" in line and "Broken" in line for line in err)


def test_a_missing_suite_is_one_line():
    from pytest_mobium_evals.core.errors import UsageError

    with pytest.raises(UsageError, match="nowhere: no such task suite"):
        load_task_definitions([Path("nowhere")])
