"""The recipe across machines beside one machine's run: the same controls, the same seed, on two hosts simulated with
Linux network namespaces (tests/hosts/hosts.py: each with its own sshd, virtual device and copy of the checkout; the
controller in a third namespace, xdist's ssh gateways, devices named by host), and on this machine alone (`-n 0`).
Prints each trial's verdict from both runs side by side, which host ran it, and the wall time of each run. Needs
root, iproute2 and openssh-server (it says which is missing).

    sudo .venv/bin/python probes/two_hosts.py [-k "t01 or t04 or t05 or t22"] [--seed 45]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "hosts"))

from hosts import Hosts, why_not  # noqa: E402

from pytest_mobium_evals.runfolder.layout import RunDir  # noqa: E402
from pytest_mobium_evals.runfolder.reading import graded  # noqa: E402


def verdicts(run: RunDir) -> dict[str, str]:
    folders = sorted((run.path / "trials").iterdir()) if (run.path / "trials").is_dir() else []
    return {f.name: (graded(run, f.name) or {}).get("verdict", "-") for f in folders}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="t01 or t04 or t05 or t22", help="which tasks' controls (pytest -k)")
    parser.add_argument("--seed", default="45")
    args = parser.parse_args(argv)
    problem = why_not()
    if problem:
        print(f"two_hosts: {problem}", file=sys.stderr)
        return 2
    common = ["--driver=controls", "-k", args.k, f"--seed={args.seed}", "-p", "no:cacheprovider", "-q"]
    with tempfile.TemporaryDirectory(prefix="two-hosts-") as tmp:
        scratch = Path(tmp)
        one, two = RunDir(scratch / "one-host"), RunDir(scratch / "two-hosts")
        started = time.monotonic()
        local = subprocess.run([sys.executable, "-m", "pytest", *common, "-n", "0", f"--run-dir={one.path}"],
                               cwd=ROOT, capture_output=True, text=True)
        one_wall = time.monotonic() - started
        with Hosts(scratch, two.path) as hosts:
            a, b = hosts.hosts
            started = time.monotonic()
            remote = hosts.pytest(*common, "-p", "no:rerunfailures", "--dist=load",
                                  f"--tx={a.gateway(hosts.ssh_config)}", f"--tx={b.gateway(hosts.ssh_config)}",
                                  f"--device={a.device},{b.device}", f"--run-dir={two.path}")
            two_wall = time.monotonic() - started
            ran_on = {name.name: host.address for host in hosts.hosts for name in (host.disk / "trials").glob("*")}
        for label, result in (("one host", local), ("two hosts", remote)):
            if result.returncode != 0:
                print(f"{label}: exit {result.returncode}\n{result.stdout[-2000:]}{result.stderr[-1000:]}")
        mine, theirs = verdicts(one), verdicts(two)
        print(f"{'trial':<48} {'one host':<16} {'two hosts':<16} host")
        for name in sorted(set(mine) | set(theirs)):
            mark = "" if mine.get(name) == theirs.get(name) else "  DIFFERS"
            print(f"{name:<48} {mine.get(name, '-'):<16} {theirs.get(name, '-'):<16} {ran_on.get(name, '-')}{mark}")
        same = mine == theirs and bool(mine)
        print(f"{len(mine)} trials on one host in {one_wall:.0f} s, {len(theirs)} on two hosts in {two_wall:.0f} s "
              f"(controller's run folder: {len(list((two.path / 'trials').glob('*/verdict.json')))} verdicts, "
              f"record.json {'present' if two.record_path.exists() else 'MISSING'}); the verdicts "
              f"{'are the same' if same else 'DIFFER'}")
        return 0 if same and local.returncode == remote.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
