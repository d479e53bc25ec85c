"""verify: two commits of a small git repository, each built in its own worktree, run, stamped and compared.

The "Mobium" here is a stand-in server script whose two commits differ in one tool description; the build command
copies it to {out}. The pytest run step is replaced by a fake runner that reads the built binary and writes a run
folder: the regression task passes only when the description it was built with tells the agent about the spinner.
Worktrees, the build, the stamp and the comparison are the real ones."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from runbuilder import verdict_json, write_run

from pytest_mobium_evals.commands import verify as verify_mod
from pytest_mobium_evals.commands.cli import main

SERVER = '''import json, sys
TOOLS = {{"app_scroll": {{"description": "{description}"}}}}
print(json.dumps(TOOLS))
'''


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def mobium_repo(tmp_path):
    repo = tmp_path / "mobium"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "server.py").write_text(SERVER.format(description="Scroll a list."))
    git(repo, "add", "server.py")
    git(repo, "commit", "-qm", "before")
    git(repo, "checkout", "-qb", "fix")
    (repo / "server.py").write_text(SERVER.format(description="Scroll a list; waits out a loading spinner."))
    git(repo, "commit", "-qam", "say that scroll waits out the spinner")
    git(repo, "checkout", "-q", "main")
    return repo


def fake_runner(seen):
    """Plays pytest: runs the built stand-in server, and grades t08 by what its tool description says."""

    def runner(request):
        tools = json.loads(subprocess.run([sys.executable, str(request.build.binary)], capture_output=True,
                                          text=True, check=True).stdout)
        seen.append((request.build.label, request.seed, request.tasks, tools["app_scroll"]["description"]))
        spinner = "spinner" in tools["app_scroll"]["description"]
        vs = [verdict_json("t08", "pass" if spinner else "false_success", seed=request.seed, repeat=r,
                           answer="60" if spinner else "40") for r in (1, 2)]
        vs += [verdict_json("t05", "pass", seed=request.seed, repeat=r) for r in (1, 2)]
        for v in vs:
            v["regression"] = True
            v["found"] = {"t05": "slider value in the seek bar's units (CHALLENGES 299)",
                          "t08": "map said nothing of the feed's spinner (CHALLENGES 300)"}[v["task"]]
        write_run(request.run_dir.parent, request.run_dir.name, vs,
                  mobium={"commit": "whatever the plugin read", "dirty": None, "binary": str(request.build.binary)})

    return runner


def test_verify_builds_each_ref_in_a_worktree_stamps_and_compares(mobium_repo, tmp_path, monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(verify_mod, "run_pytest", fake_runner(seen))
    runs = tmp_path / "runs"
    code = main(["verify", "--before", "main", "--after", "fix", "--repo", str(mobium_repo),
                 "--build", "cp server.py {out}", "--runs", str(runs), "--seed", "99"])
    assert code == 0
    # each build saw its own commit's description, with one seed
    assert [(label, seed) for label, seed, _, _ in seen] == [("before", 99), ("after", 99)]
    assert seen[0][3] == "Scroll a list." and "spinner" in seen[1][3]
    (out,) = runs.iterdir()
    for label, ref in (("before", "main"), ("after", "fix")):
        record = json.loads((out / label / "record.json").read_text())
        assert record["mobium"]["commit"] == git(mobium_repo, "rev-parse", ref)
        assert record["mobium"]["dirty"] is False and record["mobium"]["ref"] == ref
        assert record["mobium"]["binary"]  # what the run itself recorded is kept beside the stamp
    text = (out / "compare.md").read_text()
    assert text == capsys.readouterr().out
    main_sha, fix_sha = git(mobium_repo, "rev-parse", "main")[:12], git(mobium_repo, "rev-parse", "fix")[:12]
    assert text.startswith("# Verify Mobium main → fix\n")
    assert f"Mobium commit: {main_sha} → {fix_sha}" in text
    assert "## Tasks that found a defect" in text
    assert ("| t08 | map said nothing of the feed's spinner (CHALLENGES 300) | claude-haiku-5-5, low effort "
            "| 0/2 passed (false_success) | 2/2 passed |") in text
    assert "| t05 | slider value in the seek bar's units (CHALLENGES 299) | claude-haiku-5-5, low effort " \
           "| 2/2 passed | 2/2 passed |" in text
    assert "| t08 | r1 | claude-haiku-5-5, low effort | false_success | pass | '40' | '60' |" in text
    # the worktrees are gone, and the main checkout was never touched
    assert git(mobium_repo, "worktree", "list").count("\n") == 0
    assert git(mobium_repo, "status", "--porcelain") == ""
    assert git(mobium_repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"


def test_a_build_that_changes_tracked_files_is_stamped_dirty(mobium_repo, tmp_path):
    seen = []
    out = tmp_path / "v"
    verify_mod.verify(mobium_repo, "main", "fix", out, build_command="echo '# generated' >> server.py && "
                                                                      "cp server.py {out}", runner=fake_runner(seen))
    assert json.loads((out / "after" / "record.json").read_text())["mobium"]["dirty"] is True


@pytest.mark.parametrize("argv, message", [
    (["--before", "main", "--after", "nope"], "nope: no such commit, branch or tag in"),
    (["--before", "main", "--after", "fix", "--build", "false"], "building main ("),
    (["--before", "main", "--after", "fix", "--build", "true"], "wrote no binary at {out}"),
])
def test_verify_errors_are_one_line(mobium_repo, tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(verify_mod, "run_pytest", fake_runner([]))
    assert main(["verify", "--repo", str(mobium_repo), "--runs", str(tmp_path / "runs"), *argv]) == 2
    err = capsys.readouterr().err.splitlines()
    assert message in err[-1] and err[-1].startswith("mobium-evals verify: ")
    assert git(mobium_repo, "worktree", "list").count("\n") == 0  # no worktree left behind on failure


def test_verify_needs_a_git_checkout(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MOBIUM_REPO", str(tmp_path))
    assert main(["verify", "--before", "main", "--after", "fix"]) == 2
    assert "is not a git checkout (set MOBIUM_REPO" in capsys.readouterr().err


def test_the_pytest_command_runs_the_regression_set_with_the_built_binary(tmp_path):
    build = verify_mod.Build("before", "main", "a" * 40, False, tmp_path / "mobium-before", tmp_path)
    request = verify_mod.TrialRequest(build, tmp_path / "run", 5, None, "claude-haiku-5-5:low", 3, "agent", "tasks")
    cmd = verify_mod.pytest_command(request)
    assert cmd[1:4] == ["-m", "pytest", "tasks"]
    # the plugin's options joined to their values: a path after a space would be taken for a test path
    for option, value in (("--mobium", str(tmp_path / "mobium-before")), ("--seed", "5"),
                          ("--run-dir", str(tmp_path / "run")), ("--repeats", "3"),
                          ("--model", "claude-haiku-5-5:low")):
        assert f"{option}={value}" in cmd[4:]
    assert cmd[cmd.index("-m", 4) + 1] == "regression"
    request.tasks = ["t05", "t22"]
    request.extra = ("--device", "emulator-5554")
    cmd = verify_mod.pytest_command(request)
    assert "regression" not in cmd and cmd[cmd.index("-k") + 1] == "t05 or t22"
    assert cmd[-2:] == ["--device", "emulator-5554"]


def test_options_after_a_double_dash_go_to_both_pytest_runs(mobium_repo, tmp_path, monkeypatch):
    requests = []
    runner = fake_runner([])
    monkeypatch.setattr(verify_mod, "run_pytest", lambda r: (requests.append(r), runner(r)))
    assert main(["verify", "--before", "main", "--after", "fix", "--repo", str(mobium_repo), "--runs",
                 str(tmp_path / "runs"), "--build", "cp server.py {out}", "--", "--device", "emulator-5554"]) == 0
    assert [r.extra for r in requests] == [("--device", "emulator-5554")] * 2
