"""One virtual Android 15 device, in parts by concern: `virtual_device` (the device: state, clock, timers, calling
into app code) made of `settings`, `packages` (and permissions), `notifications`, `activities` (processes and the
activity stack), `windows` (focus, the frame, the dump) and `input`; `records` holds the system's records and
`defaults` what a fresh device holds."""

from .defaults import builtin_apps
from .records import VirtualDeviceError
from .virtual_device import VirtualDevice

__all__ = ["VirtualDevice", "VirtualDeviceError", "builtin_apps"]
