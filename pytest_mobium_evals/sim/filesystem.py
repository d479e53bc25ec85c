"""The virtual device's file system: /sdcard (shared storage), /data/local/tmp, and a few read-only system files."""

from __future__ import annotations

import posixpath

from .device import VirtualDevice
from .devtools import proc_net_unix

ALIASES = (("/storage/emulated/0", "/sdcard"), ("/storage/self/primary", "/sdcard"), ("/mnt/sdcard", "/sdcard"),
           ("/mnt/user/0/primary", "/sdcard"))
WRITABLE = ("/sdcard/", "/data/local/tmp/")


def fs_norm(path: str) -> str:
    if not path:
        return ""
    if not path.startswith("/"):
        path = "/" + path  # the shell's working directory is /
    path = posixpath.normpath(path)
    if path.startswith("//"):
        path = path[1:]
    for prefix, target in ALIASES:
        if path == prefix or path.startswith(prefix + "/"):
            path = target + path[len(prefix):]
    return path


def _system_file(device: VirtualDevice, path: str) -> bytes | None:
    if path == "/system/build.prop":
        return "".join(f"{k}={v}\n" for k, v in sorted(device.props.items()) if k.startswith("ro.")).encode()
    if path == "/proc/version":
        return (b"Linux version 6.6.30-android15-8-gdd9c02ccfe27-ab11987101 (kleaf@build-host) (Android (11368308, "
                b"+pgo, +bolt, +lto, +mlgo, based on r510928) clang version 18.0.0) #1 SMP PREEMPT Fri Jun 28 "
                b"2024\n")
    if path == "/proc/uptime":
        up = device.now()
        return f"{up:.2f} {up * 1.8:.2f}\n".encode()
    if path == "/proc/meminfo":
        return b"MemTotal:        2015464 kB\nMemFree:          312580 kB\nMemAvailable:    1034812 kB\n"
    if path == "/proc/net/unix":
        return proc_net_unix(device)
    if path.startswith("/data/app/"):
        return device.installed_apk(path)
    return None


def fs_read(device: VirtualDevice, path: str) -> bytes | None:
    if path in device.files:
        return device.files[path]
    return _system_file(device, path)


def fs_isdir(device: VirtualDevice, path: str) -> bool:
    if path in device.dirs:
        return True
    prefix = path.rstrip("/") + "/"
    return any(p.startswith(prefix) for p in device.files)


def fs_exists(device: VirtualDevice, path: str) -> bool:
    return fs_isdir(device, path) or fs_read(device, path) is not None


def fs_listdir(device: VirtualDevice, path: str) -> list[str] | None:
    if not fs_isdir(device, path):
        return None
    prefix = "/" if path == "/" else path.rstrip("/") + "/"
    names = set()
    for p in list(device.files) + list(device.dirs):
        if p.startswith(prefix) and p != path:
            rest = p[len(prefix):]
            if rest:
                names.add(rest.split("/", 1)[0])
    return sorted(names)


def fs_writable(path: str) -> bool:
    return any(path.startswith(w) for w in WRITABLE)


def fs_write(device: VirtualDevice, path: str, data: bytes, *, append: bool) -> bool:
    if not fs_writable(path) or fs_isdir(device, path):
        return False
    parent = posixpath.dirname(path)
    if not fs_isdir(device, parent):
        return False
    device.files[path] = (device.files.get(path, b"") + data) if append else data
    return True
