"""The file commands of the virtual device's shell: cat, ls, rm, mkdir, touch, cp."""

from __future__ import annotations

import posixpath
import time

from ..device import VirtualDevice
from ..filesystem import fs_exists, fs_isdir, fs_listdir, fs_read, fs_writable, fs_write
from .base import Ctx, command


@command("cat")
def _cat(ctx: Ctx, args: list[str]) -> int:
    files = [a for a in args if a != "-" and not (a.startswith("-") and len(a) > 1)]
    if not files:
        ctx.out(ctx.stdin)
        return 0
    status = 0
    for f in files:
        path = ctx.path(f)
        if fs_isdir(ctx.device, path):
            ctx.errln(f"cat: {f}: Is a directory")
            status = 1
            continue
        data = fs_read(ctx.device, path)
        if data is None:
            ctx.errln(f"cat: {f}: No such file or directory")
            status = 1
            continue
        ctx.out(data)
    return status


@command("ls")
def _ls(ctx: Ctx, args: list[str]) -> int:
    flags = "".join(a[1:] for a in args if a.startswith("-") and len(a) > 1)
    paths = [a for a in args if not (a.startswith("-") and len(a) > 1)] or ["."]
    long, show_all, directory = "l" in flags, "a" in flags, "d" in flags
    status = 0
    many = len(paths) > 1
    for n, p in enumerate(paths):
        path = ctx.path(p)
        if not fs_exists(ctx.device, path):
            ctx.errln(f"ls: {p}: No such file or directory")
            status = 1
            continue
        if fs_isdir(ctx.device, path) and not directory:
            names = fs_listdir(ctx.device, path) or []
            if show_all:
                names = [".", ".."] + names
            if many:
                ctx.outln(("" if n == 0 else "\n") + f"{p}:")
            if long:
                ctx.outln(f"total {len(names) * 4}")
            for name in names:
                full = path.rstrip("/") + "/" + name if name not in (".", "..") else path
                ctx.outln(_ls_line(ctx.device, full, name) if long else name)
        else:
            ctx.outln(_ls_line(ctx.device, path, p) if long else p)
    return status


def _ls_line(device: VirtualDevice, path: str, name: str) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime(device.clock.boot_wall))
    if fs_isdir(device, path):
        return f"drwxrws--- 2 u0_a175 media_rw 4096 {stamp} {name}"
    size = len(fs_read(device, path) or b"")
    return f"-rw-rw---- 1 u0_a175 media_rw {size:>4} {stamp} {name}"


@command("rm")
def _rm(ctx: Ctx, args: list[str]) -> int:
    flags = "".join(a[1:] for a in args if a.startswith("-") and len(a) > 1)
    force, recursive = "f" in flags, "r" in flags or "R" in flags
    status = 0
    for a in (x for x in args if not (x.startswith("-") and len(x) > 1)):
        path = ctx.path(a)
        if fs_isdir(ctx.device, path):
            if not recursive:
                ctx.errln(f"rm: {a}: is a directory")
                status = 1
                continue
            if not fs_writable(path + "/"):
                ctx.errln(f"rm: {a}: Permission denied")
                status = 1
                continue
            for f in [f for f in ctx.device.files if f.startswith(path + "/")]:
                del ctx.device.files[f]
            ctx.device.dirs = {d for d in ctx.device.dirs if not (d == path or d.startswith(path + "/"))} \
                | ({path} if path in ("/sdcard", "/data/local/tmp") else set())
            continue
        if path not in ctx.device.files:
            if not force:
                ctx.errln(f"rm: {a}: No such file or directory")
                status = 1
            continue
        if not fs_writable(path):
            ctx.errln(f"rm: {a}: Permission denied")
            status = 1
            continue
        del ctx.device.files[path]
    return status


@command("mkdir")
def _mkdir(ctx: Ctx, args: list[str]) -> int:
    parents = "-p" in args
    status = 0
    for a in (x for x in args if not x.startswith("-")):
        path = ctx.path(a)
        if not fs_writable(path + "/"):
            ctx.errln(f"mkdir: '{a}': Permission denied")
            status = 1
            continue
        if fs_isdir(ctx.device, path):
            if not parents:
                ctx.errln(f"mkdir: '{a}': File exists")
                status = 1
            continue
        parent = posixpath.dirname(path)
        if not fs_isdir(ctx.device, parent) and not parents:
            ctx.errln(f"mkdir: '{a}': No such file or directory")
            status = 1
            continue
        while path not in ctx.device.dirs and path != "/":
            ctx.device.dirs.add(path)
            path = posixpath.dirname(path)
    return status


@command("touch")
def _touch(ctx: Ctx, args: list[str]) -> int:
    status = 0
    for a in (x for x in args if not x.startswith("-")):
        path = ctx.path(a)
        if path not in ctx.device.files and not fs_write(ctx.device, path, b"", append=True):
            ctx.errln(f"touch: '{a}': Permission denied" if not fs_writable(path)
                      else f"touch: '{a}': No such file or directory")
            status = 1
    return status


@command("cp", "mv")
def _cp(ctx: Ctx, args: list[str]) -> int:
    files = [a for a in args if not a.startswith("-")]
    if len(files) != 2:
        ctx.errln("cp: Need 2 arguments")
        return 1
    src, dst = ctx.path(files[0]), ctx.path(files[1])
    data = fs_read(ctx.device, src)
    if data is None:
        ctx.errln(f"cp: {files[0]}: No such file or directory")
        return 1
    if fs_isdir(ctx.device, dst):
        dst = dst.rstrip("/") + "/" + posixpath.basename(src)
    if not fs_write(ctx.device, dst, data, append=False):
        ctx.errln(f"cp: {files[1]}: Permission denied")
        return 1
    return 0
