"""Waiting on the state with a deadline (a virtual device's, a client's server coming up): the one poller the plugin's
tests share. It lies beside tests/conftest.py, whose folder pytest puts on the import path."""

from __future__ import annotations

import threading
import time

_tick = threading.Event()  # never set: wait(…) is a short pause between polls


def wait_for(predicate, timeout: float = 5.0, what: str = "condition", interval: float = 0.005):
    """Polls `predicate` every `interval` seconds until it returns something truthy; fails with `what` after
    `timeout` real seconds. A poll that costs the device work (a page source built) asks less often."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        _tick.wait(interval)
