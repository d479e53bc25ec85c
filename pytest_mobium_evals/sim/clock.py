"""The device clock: real time scaled by a speed factor, plus an offset tests can advance.

Everything time-based on the virtual device (timers, toasts, logcat stamps, `uptime`) reads this clock, so a test can
run the device faster than real time (`speed`) or jump it forward (`advance`) and still see exact behaviour.
"""

from __future__ import annotations

import threading
import time

# A fixed boot instant keeps logcat stamps and install times reproducible across runs only in their shape; the
# wall clock itself is real (tasks and agents see today's date, as on an emulator).


class Clock:
    """Seconds since boot on the device's time base: `(monotonic - start) * speed + offset`."""

    def __init__(self, speed: float = 1.0):
        if not speed > 0:
            raise ValueError(f"clock speed must be > 0, got {speed!r}")
        self._lock = threading.Lock()
        self._speed = float(speed)
        self._real_start = time.monotonic()
        self._base = 0.0  # device seconds accumulated before the last speed change
        self._offset = 0.0
        self.boot_wall = time.time()
        # What `date SET` moved the wall clock by. Only the wall clock moves (forwards or back): the time since
        # boot, which timers and uptime run on, never jumps, as CLOCK_REALTIME and CLOCK_BOOTTIME on Android.
        self._wall_shift = 0.0

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if not value > 0:
            raise ValueError(f"clock speed must be > 0, got {value!r}")
        with self._lock:
            # Re-anchor so the change only affects time from now on (the clock never jumps).
            now_real = time.monotonic()
            self._base += (now_real - self._real_start) * self._speed
            self._real_start = now_real
            self._speed = float(value)

    def now(self) -> float:
        with self._lock:
            return self._base + (time.monotonic() - self._real_start) * self._speed + self._offset

    def advance(self, seconds: float) -> None:
        """Jump the device clock forward (tests: make a 2 s timer due without waiting)."""
        if seconds < 0:
            raise ValueError("the device clock never goes backwards")
        with self._lock:
            self._offset += seconds

    def wall(self, device_seconds: float | None = None) -> float:
        """The wall-clock epoch time matching a device time (now by default)."""
        return self.boot_wall + self._wall_shift + (self.now() if device_seconds is None else device_seconds)

    def set_wall(self, epoch: float) -> None:
        """Set the wall clock to `epoch` now (settimeofday); it runs on from there."""
        with self._lock:
            now = self._base + (time.monotonic() - self._real_start) * self._speed + self._offset
            self._wall_shift = epoch - self.boot_wall - now

    def real_seconds(self, device_seconds: float) -> float:
        """How long to really wait for `device_seconds` to pass on the device."""
        return max(0.0, device_seconds) / self._speed
