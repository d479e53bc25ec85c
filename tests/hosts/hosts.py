"""Hosts simulated on this machine with Linux network namespaces, for the README's recipe across machines.

Each host is a network namespace joined to the controller's by a veth pair, with its own sshd and its own virtual
devices behind an ADB server on its address. The sshd runs in a mount namespace of its own in which two paths are
the host's alone: the checkout (a copy of this one's files at the same path, so the package the shared virtual
environment imports there is that host's install, and what xdist copies into a worker's folder lands on that host),
and the run folder (so what a worker writes stays on its host unless it is sent). The controller runs in a third
namespace and reaches each host only over its veth, by address.

Made and removed by the test; it needs root (`ip netns`, `mount`), iproute2, openssh-server and util-linux's
unshare, and says which is missing when it cannot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from polling import wait_for

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
ADB_PORT = 5037
TOOLS = {"ip": "iproute2", "sshd": "openssh-server", "ssh": "openssh-client", "ssh-keygen": "openssh-client",
         "unshare": "util-linux", "mount": "mount"}


def why_not() -> Optional[str]:
    """Why namespaces cannot be made here (one line), or None."""
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    missing = [f"{tool} ({package})" for tool, package in TOOLS.items()
               if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists()]
    if missing:
        return f"missing {', '.join(missing)}: apt-get install -y iproute2 openssh-server"
    if not PYTHON.exists():
        return f"no {PYTHON}: the hosts run this checkout's virtual environment"
    probe = f"mevprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace here: {made.stderr.strip() or made.returncode}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def run(*command: str, namespace: Optional[str] = None, **kwargs) -> subprocess.CompletedProcess:
    prefix = ["ip", "netns", "exec", namespace] if namespace else []
    done = subprocess.run([*prefix, *command], capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()}")
    return done


@dataclass
class Host:
    name: str  # its network namespace
    address: str
    folder: Path  # its keys, config and disk, outside every namespace's view of the shared paths
    sshd: Optional[subprocess.Popen] = None
    sim: Optional[subprocess.Popen] = None

    @property
    def device(self) -> str:
        return f"{self.address}:{ADB_PORT}/emulator-5554"

    @property
    def disk(self) -> Path:
        """The host's own run folder, which it sees at the controller's --run-dir path."""
        return self.folder / "run"

    def gateway(self, ssh_config: Path) -> str:
        """xdist's --tx for a worker here: over ssh, this host's Python, in its checkout (where pytest finds the
        tasks, as it does on the controller)."""
        return f"ssh={self.address}//ssh_config={ssh_config}//python={PYTHON}//chdir={ROOT}"


class Hosts:
    """The controller's namespace and two hosts, made in `__enter__` and removed in `__exit__`."""

    def __init__(self, scratch: Path, run_dir: Path):
        tag = str(os.getpid() % 100000)
        self.scratch, self.run_dir = scratch, run_dir
        self.controller = f"mev{tag}c"
        self.hosts = [Host(f"mev{tag}{x}", f"10.213.{i}.2", scratch / x) for i, x in ((1, "a"), (2, "b"))]
        self.ssh_config = scratch / "ssh_config"
        self._made: list[str] = []

    def __enter__(self) -> "Hosts":
        try:
            self._make()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _make(self) -> None:
        run("ip", "netns", "add", self.controller)
        self._made.append(self.controller)
        run("ip", "link", "set", "lo", "up", namespace=self.controller)
        key = self.scratch / "id_controller"
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key))
        self.ssh_config.write_text(
            "Host 10.213.*\n  User root\n  IdentityFile {key}\n  IdentitiesOnly yes\n  BatchMode yes\n"
            "  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n".format(key=key))
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation folder
        self.run_dir.mkdir(parents=True, exist_ok=True)  # the mount point each host's own run folder goes on
        for i, host in enumerate(self.hosts, start=1):
            self._make_host(i, host, key.with_suffix(".pub"))

    def _make_host(self, i: int, host: Host, public_key: Path) -> None:
        run("ip", "netns", "add", host.name)
        self._made.append(host.name)
        near, far = f"{host.name}c", f"{host.name}h"
        run("ip", "link", "add", near, "type", "veth", "peer", "name", far)
        run("ip", "link", "set", near, "netns", self.controller)
        run("ip", "link", "set", far, "netns", host.name)
        run("ip", "addr", "add", f"10.213.{i}.1/30", "dev", near, namespace=self.controller)
        run("ip", "link", "set", near, "up", namespace=self.controller)
        run("ip", "addr", "add", f"{host.address}/30", "dev", far, namespace=host.name)
        run("ip", "link", "set", far, "up", namespace=host.name)
        run("ip", "link", "set", "lo", "up", namespace=host.name)

        host.folder.mkdir(parents=True)
        host.disk.mkdir()
        checkout = host.folder / "checkout"
        _copy_checkout(checkout)
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host.folder / "host_key"))
        shutil.copyfile(public_key, host.folder / "authorized_keys")
        config = host.folder / "sshd_config"
        config.write_text(
            f"ListenAddress {host.address}\nPort 22\nHostKey {host.folder / 'host_key'}\n"
            f"AuthorizedKeysFile {host.folder / 'authorized_keys'}\nPermitRootLogin prohibit-password\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
            "PidFile none\n")
        # The host's own paths, in a mount namespace of its sshd's (and so of every session it starts): its copy
        # of the checkout, with the shared virtual environment inside it, and its own run folder.
        mounts = (f"mount --bind {ROOT / '.venv'} {checkout / '.venv'} && mount --rbind {checkout} {ROOT} && "
                  f"mount --bind {host.disk} {self.run_dir} && exec /usr/sbin/sshd -D -e -f {config}")
        host.sshd = subprocess.Popen(["ip", "netns", "exec", host.name, "unshare", "--mount",
                                      "--propagation", "private", "sh", "-c", mounts],
                                     stdout=subprocess.DEVNULL, stderr=open(host.folder / "sshd.log", "w"))
        host.sim = subprocess.Popen(["ip", "netns", "exec", host.name, str(PYTHON), "-m",
                                     "pytest_mobium_evals.commands.cli", "sim", "--host", "0.0.0.0", "--port",
                                     str(ADB_PORT)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ready = host.sim.stdout.readline()
        if not ready.startswith(f"port={ADB_PORT} "):
            raise RuntimeError(f"the virtual device on {host.name} did not start: {ready}{host.sim.stdout.read()}")
        self._wait_for_ssh(host)

    def _wait_for_ssh(self, host: Host) -> None:
        """sshd answers once it listens: one command over ssh, as xdist's gateway will run it, from the
        controller's namespace."""
        tried: list[str] = []

        def answers() -> bool:
            done = subprocess.run(["ip", "netns", "exec", self.controller, "ssh", "-F", str(self.ssh_config),
                                   "-o", "ConnectTimeout=5", host.address, "true"], capture_output=True, text=True)
            tried.append(done.stderr.strip())
            if host.sshd.poll() is not None:
                raise RuntimeError(f"sshd on {host.name} exited: {(host.folder / 'sshd.log').read_text()[-800:]}")
            return done.returncode == 0

        try:
            wait_for(answers, timeout=30, what=f"sshd on {host.name}", interval=0.1)
        except AssertionError:
            raise RuntimeError(f"sshd on {host.name} did not answer: {tried[-1:]}; its log: "
                               f"{(host.folder / 'sshd.log').read_text()[-800:]}") from None

    def pytest(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        """pytest in the controller's namespace, in this checkout."""
        return subprocess.run(["ip", "netns", "exec", self.controller, str(PYTHON), "-m", "pytest", *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=timeout)

    def __exit__(self, *exc) -> None:
        for host in self.hosts:
            for proc in (host.sshd, host.sim):
                if proc is not None and proc.poll() is None:
                    proc.terminate()
                    try:
                        proc.wait(timeout=20)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
            if host.sim is not None and host.sim.stdout is not None:
                host.sim.stdout.close()
        for name in reversed(self._made):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        self._made.clear()


def _copy_checkout(target: Path) -> None:
    """This checkout's files (tracked, and new ones git does not ignore) as a host's own install: the same code,
    its own copy. Its `.venv` is an empty folder the shared one is mounted on."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").mkdir(exist_ok=True)


if __name__ == "__main__":  # python tests/hosts/hosts.py: whether this machine can run the two-host test
    print(why_not() or "network namespaces: available")
    sys.exit(0)
