"""What every command of the virtual device's shell is built on: the registry (`@command`), the context a command
runs in (`Ctx`), `exit`'s unwinding, and the Java exception print of Android's shell commands.

A command is `fn(ctx, args) -> exit status`; it writes through `ctx.out`/`ctx.err`."""

from __future__ import annotations

import shlex
import time
from typing import TYPE_CHECKING, Callable

from ..filesystem import fs_norm

if TYPE_CHECKING:
    from ..device import VirtualDevice
    from ..shell import Shell

SH = "/system/bin/sh"


COMMANDS: dict[str, Callable[[Ctx, list[str]], int]] = {}


def command(*names: str):
    def deco(fn):
        for n in names:
            COMMANDS[n] = fn
        return fn
    return deco


def java_exception(ctx: Ctx, sub: str, exc_class: str, message: str, where: str) -> int:
    """Android's shell-command exception print (stderr): blank line, header, exception, a short stack."""
    ctx.err(f"\nException occurred while executing '{sub}':\n{exc_class}: {message}\n"
            f"\tat {where}\n"
            f"\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n"
            f"\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n"
            f"\tat android.os.Binder.shellCommand(Binder.java:1092)\n"
            f"\tat android.os.Binder.onTransact(Binder.java:912)\n")
    return 255


class ShellExit(Exception):
    def __init__(self, status: int):
        self.status = status


class Ctx:
    """What a command sees: its arguments' stdin, and where its stdout/stderr go."""

    def __init__(self, shell: "Shell", stdin: bytes, out: Callable[[bytes], None], err: Callable[[bytes], None]):
        self.shell = shell
        self.device = shell.device
        self.stdin = stdin
        self._out = out
        self._err = err
        self.argv0 = ""

    def out(self, data: str | bytes) -> None:
        self._out(data.encode() if isinstance(data, str) else data)

    def err(self, data: str | bytes) -> None:
        self._err(data.encode() if isinstance(data, str) else data)

    def path(self, p: str) -> str:
        """A path as the shell resolves it: relative to the working directory, /sdcard aliases folded."""
        if p and not p.startswith("/"):
            p = self.shell.cwd.rstrip("/") + "/" + p
        return fs_norm(p)

    def is_top_output(self) -> bool:
        """Whether this command's stdout goes straight to the client (not into a pipe, file or $(…))."""
        return self._out is self.shell.top_out

    def outln(self, line: str = "") -> None:
        self.out(line + "\n")

    def errln(self, line: str) -> None:
        self.err(line + "\n")


def quote(args: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in args)


def sleep_real(device: VirtualDevice, seconds: float) -> None:
    """`sleep` on the device: waits the device-clock duration (capped at 10 s of the host's) with the device
    unlocked; a held clock is moved on by the whole of it."""
    wait = device.clock.spend(seconds)
    if wait > 0:
        device.lock.release()
        try:
            time.sleep(min(10.0, wait))
        finally:
            device.lock.acquire()
    device.run_due()
