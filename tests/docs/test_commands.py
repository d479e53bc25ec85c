"""The set-up commands the README and the manual give are the ones CI runs: each block marked `ci-step` is a chain
of commands, and each command in it is a step of .ci/run (which adds `-p no:cacheprovider` to pytest's, and may
install more extras than a page asks for). CI running its own steps is then what runs the pages' copies."""

from __future__ import annotations

import re
import shlex

from docs_pages import README, ROOT, marked_blocks

CI = ROOT / ".ci" / "run"
NO_CACHE = "-p no:cacheprovider"


def ci_steps() -> list[str]:
    """.ci/run's commands, one a line, continuation lines joined, comments dropped."""
    text = CI.read_text(encoding="utf-8").replace("\\\n", " ")
    return [" ".join(line.split()) for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def extras(install: str) -> set[str]:
    """The extras a `pip install -e '.[a,b]'` names (none for `-e .`)."""
    target = shlex.split(install)[-1]
    found = re.fullmatch(r"\.(?:\[(.*)\])?", target)
    assert found, f"not an install of this checkout: {install}"
    return set(filter(None, (found.group(1) or "").split(",")))


def ci_step_for(command: str, steps: list[str]) -> str | None:
    """The .ci/run step that runs `command`, or None."""
    if "pip install" in command:
        wanted = extras(command)
        return next((s for s in steps if "pip install" in s and "-e" in s and wanted <= extras(s)), None)
    if "/pytest" in command:
        return next((s for s in steps if s == f"{command} {NO_CACHE}"), None)
    return next((s for s in steps if s == command), None)


def test_the_pages_set_up_commands_are_steps_of_ci():
    blocks = marked_blocks("ci-step")
    steps = ci_steps()
    assert {b.what for b in blocks if b.page == README} == {"the main job", "the plugin's own tests"}
    for block in blocks:
        for command in (c.strip() for c in block.text.strip().split("&&")):
            assert ci_step_for(command, steps), f"{block}: `{command}` is not a step of .ci/run"


def test_the_readme_and_the_manual_give_the_same_commands():
    by_step: dict[str, set[str]] = {}
    for block in marked_blocks("ci-step"):
        by_step.setdefault(block.what, set()).add(block.text.strip())
    assert all(len(texts) == 1 for texts in by_step.values()), by_step
    pages = {b.page for b in marked_blocks("ci-step")}
    assert README in pages and len(pages) > 1  # the README's copy and the first-run tutorial's


def test_a_command_ci_does_not_run_is_caught():
    steps = ci_steps()
    assert ci_step_for(".venv/bin/pytest tests -n auto", steps)
    assert not ci_step_for(".venv/bin/pytest tests -n 4", steps)
    assert not ci_step_for(".venv/bin/pip install -e '.[test,androidworld]'", steps)
