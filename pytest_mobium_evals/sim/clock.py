"""The device clock: real time scaled by a speed factor, plus an offset tests can advance.

Everything time-based on the virtual device (timers, toasts, logcat stamps, `uptime`) reads this clock, so a test can
run the device faster than real time (`speed`) or jump it forward (`advance`) and still see exact behaviour.

A held clock (`hold`, the property `debug.mobium_evals.held_clock` set to 1) does not run with the host's time at
all: it moves only as the device's commands take their time (the pace, `pace.spend`) and as clients move it (a wait
or `virtual-clock advance`). The app's timers and the screen reads then share one clock, so a slow host (a loaded
machine, a client's own start-up) changes nothing the device shows, only how long it takes to show it.
"""

from __future__ import annotations

import threading
import time

# The property that holds the clock (see above): `setprop` of it holds or releases the device's clock.
HELD_PROPERTY = "debug.mobium_evals.held_clock"
COMMAND_TICK_S = 0.001  # what a held clock moves as a shell command starts (`Clock.tick`)

# A fixed boot instant keeps logcat stamps and install times reproducible across runs only in their shape; the
# wall clock itself is real (tasks and agents see today's date, as on an emulator).


class Clock:
    """Seconds since boot on the device's time base: `base + (monotonic - start) * speed + offset` while it runs,
    `base + offset` while it is held."""

    def __init__(self, speed: float = 1.0):
        if not speed > 0:
            raise ValueError(f"clock speed must be > 0, got {speed!r}")
        self._lock = threading.Lock()
        self._speed = float(speed)
        self._real_start = time.monotonic()
        self._base = 0.0  # device seconds run before the last change of speed or of holding
        self._offset = 0.0
        self._held = False
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
            self._reanchor()
            self._speed = float(value)

    @property
    def held(self) -> bool:
        return self._held

    def hold(self, held: bool) -> None:
        """Hold the clock (it stands still but for `advance`) or let it run with the host's time again, from where
        it stands: the clock never jumps."""
        with self._lock:
            self._reanchor()
            self._held = bool(held)

    def _reanchor(self) -> None:
        """Fold the time run so far into the base, so a change of speed or of holding only affects time from now."""
        now_real = time.monotonic()
        if not self._held:
            self._base += (now_real - self._real_start) * self._speed
        self._real_start = now_real

    def _now(self) -> float:
        running = 0.0 if self._held else (time.monotonic() - self._real_start) * self._speed
        return self._base + running + self._offset

    def now(self) -> float:
        with self._lock:
            return self._now()

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
            self._wall_shift = epoch - self.boot_wall - self._now()

    def tick(self) -> None:
        """A command starts: on a held clock, a millisecond passes. Nothing on a device is instantaneous (a shell
        command is a process started), and without it every command between two reads would happen at one instant:
        logcat's stamps, whole milliseconds, would no longer tell a line logged after a read from one before it."""
        with self._lock:
            if self._held:
                self._offset += COMMAND_TICK_S

    def real_seconds(self, device_seconds: float) -> float:
        """How long to really wait for `device_seconds` to pass on the device (a running clock's)."""
        return max(0.0, device_seconds) / self._speed

    def spend(self, device_seconds: float) -> float:
        """What the host must wait for `device_seconds` to pass on the device: a held clock is moved on at once
        (and 0 is returned), a running one lives through them while the caller waits what is returned."""
        if device_seconds <= 0:
            return 0.0
        with self._lock:
            if self._held:
                self._offset += device_seconds
                return 0.0
        return self.real_seconds(device_seconds)
