"""app_location: where the device believes it is, read and set as Mobium does on Android — through a test
provider (`cmd location providers …`, after allowing the shell's mock-location op) and read back from `dumpsys
location`, tagged injected. A route (waypoints or a GPX track) is stepped once a second by this server, since
Android has no route command; one route a device, replaced by the next and stopped by a clear."""

from __future__ import annotations

import math
import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Optional

from .errors import MobiumError, invalid
from .tool_state import Result

DEFAULT_SPEED = 15.0  # m/s
PROVIDER = "gps"
FIX = re.compile(r"last location=Location\[(\w+) (-?[\d.]+),(-?[\d.]+)([^\]]*)\]")


def _distance_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance (haversine), metres."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6_371_000 * math.asin(math.sqrt(h))


def route_points(gpx: Optional[str], gpx_data: Optional[str], waypoints) -> list[tuple[float, float]]:
    if (gpx or gpx_data) and waypoints is not None:
        raise invalid("give either gpx or waypoints, not both", "pass one of them")
    if gpx_data or gpx:
        where = "the GPX content sent" if gpx_data else gpx
        try:
            text = gpx_data if gpx_data else Path(gpx).read_text()
            root = ET.fromstring(text)
        except OSError as exc:
            raise invalid(f"cannot read the GPX file {gpx}: {exc.strerror}", "pass a GPX file that exists") from None
        except ET.ParseError as exc:
            raise invalid(f"{where} is not GPX: {exc}", "pass a GPX 1.1 file of trkpt, rtept or wpt points") from None
        pts = [(float(e.get("lat")), float(e.get("lon"))) for e in root.iter()
               if e.tag.rsplit("}", 1)[-1] in ("trkpt", "rtept", "wpt") and e.get("lat") and e.get("lon")]
        return pts
    if not isinstance(waypoints, list):
        raise invalid('waypoints is a list of {"latitude", "longitude"} points', "pass two or more points")
    pts = []
    for i, w in enumerate(waypoints, 1):
        if not isinstance(w, dict) or not all(isinstance(w.get(k), (int, float)) for k in ("latitude", "longitude")):
            raise invalid(f'waypoint {i} is not {{"latitude": number, "longitude": number}}', "fix that point")
        pts.append((float(w["latitude"]), float(w["longitude"])))
    return pts


def _duration_text(seconds: float) -> str:
    """Go's time.Duration rounded to the second, as Mobium prints it: 45s, 1m23s, 1h2m3s."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"{h}h{m}m{s}s"
    return f"{m}m{s}s" if m else f"{s}s"


class Route:
    """A route being stepped on one device: a position along it once a second until it ends or is stopped."""

    def __init__(self, place, points: list[tuple[float, float]], speed: float):
        self.place, self.points, self.speed = place, points, speed
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name="mobium-route", daemon=True)

    def seconds(self) -> float:
        return sum(_distance_m(a, b) for a, b in zip(self.points, self.points[1:])) / self.speed

    def at(self, t: float) -> tuple[float, float]:
        travelled = t * self.speed
        for a, b in zip(self.points, self.points[1:]):
            leg = _distance_m(a, b)
            if travelled <= leg and leg > 0:
                f = travelled / leg
                return a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f
            travelled -= leg
        return self.points[-1]

    def _run(self) -> None:
        t, end = 0.0, self.seconds()
        while not self.stop_event.is_set():
            try:
                self.place(*self.at(t))
            except Exception:  # the device went away: the route ends with it
                return
            if t >= end:
                return
            t += 1.0
            self.stop_event.wait(1.0)

    def stop(self) -> None:
        """Stopped when this returns: a step already setting a position lands first, never after the clear that
        follows, so a read after `location --clear` sees the route's last position as settled."""
        self.stop_event.set()
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join(timeout=10.0)


class LocationTools:
    """Mixed into `Mobium`: app_location, and the routes it runs (one a device)."""

    def _place(self, st, lat: float, lon: float) -> None:
        """The device's position set through this server's test provider, installed first if it is not yet (a
        route's steps only move it)."""
        install = "" if st.mocking else (f"appops set com.android.shell android:mock_location allow; "
                                         f"cmd location providers add-test-provider {PROVIDER}; "
                                         f"cmd location providers set-test-provider-enabled {PROVIDER} true; ")
        out = st.link.shell(install + f"cmd location providers set-test-provider-location {PROVIDER} "
                            f"--location {lat},{lon}")
        if st.mocking and "provider doesn't exist" in out:  # removed behind this server's back: install it again
            st.mocking = False
            return self._place(st, lat, lon)
        if "Exception" in out or "Unknown command" in out:
            raise MobiumError("unsupported", f"{st.link.serial} does not take a test location provider over ADB: "
                              f"{out.strip().splitlines()[-1][:200] if out.strip() else 'no answer'}",
                              "use an emulator or phone on Android 12 or later")
        st.mocking = True

    def _fix(self, st) -> Optional[tuple[float, float, bool]]:
        m = FIX.search(st.link.shell("dumpsys location"))
        if m is None:
            return None
        return float(m.group(2)), float(m.group(3)), " mock" in m.group(4)

    def _stop_route(self, st) -> None:
        if st.route is not None:
            st.route.stop()
            st.route = None

    def t_app_location(self, args: dict) -> Result:
        st = self.state(args)
        has_lat, has_lon = args.get("latitude") is not None, args.get("longitude") is not None
        clear = bool(args.get("clear"))
        gpx, gpx_data, waypoints = args.get("gpx"), args.get("gpx_data"), args.get("waypoints")
        # A route is a write, recognised before the read below, which would otherwise answer an unasked question.
        route = bool(gpx or gpx_data) or waypoints is not None
        serial = st.link.serial
        if not (has_lat or has_lon or clear or route):
            fix = self._fix(st)
            if fix is None:
                return Result("the device reports no position at all",
                              {"mock": False, "mocking": False, "known": False, "device": serial})
            lat, lon, mock = fix
            mocking = st.mocking
            if mocking and mock:
                text = f"the device is at {lat:.6f},{lon:.6f}, injected and still being injected"
            elif mock:
                text = (f"the device's last known position is {lat:.6f},{lon:.6f}, which was injected — but no test "
                        "provider is installed now, so it will report its own position the next time something asks")
            else:
                text = f"the device is at {lat:.6f},{lon:.6f}, which it reports on its own"
            return Result(text, {"latitude": lat, "longitude": lon, "mock": mock, "mocking": mocking, "known": True,
                                 "device": serial})
        if route:
            return self._route(st, gpx, gpx_data, waypoints, args)
        if clear:
            self._stop_route(st)
            st.link.shell(f"cmd location providers remove-test-provider {PROVIDER}")
            st.mocking = False
            return Result("the test provider is removed — the device will report its own position the next time "
                          "something asks for one. Its last known location is still the injected one until then; "
                          "Android keeps that cache and nothing here can clear it",
                          {"mock": False, "mocking": False, "known": False, "device": serial})
        if not (has_lat and has_lon):
            raise invalid("app_location needs both latitude and longitude, e.g. latitude 51.5074, longitude -0.1278",
                          "pass both")
        lat, lon = float(args["latitude"]), float(args["longitude"])
        if not -90 <= lat <= 90:
            raise invalid(f"latitude {lat:g} is outside -90..90", "pass degrees")
        if not -180 <= lon <= 180:
            raise invalid(f"longitude {lon:g} is outside -180..180", "pass degrees")
        self._stop_route(st)
        self._place(st, lat, lon)
        fix = self._fix(st)
        if fix is None or abs(fix[0] - lat) > 1e-6 or abs(fix[1] - lon) > 1e-6:
            raise MobiumError("not_confirmed", f"sent the device to {lat:.6f},{lon:.6f} and it reads "
                              f"{'no position' if fix is None else f'{fix[0]:.6f},{fix[1]:.6f}'}",
                              "app_location with no arguments reads where it is now",
                              {"latitude": lat, "longitude": lon})
        return Result(f"the device is at {lat:.6f},{lon:.6f}, injected and read back",
                      {"latitude": lat, "longitude": lon, "mock": True, "mocking": True, "known": True,
                       "device": serial})

    def _route(self, st, gpx, gpx_data, waypoints, args: dict) -> Result:
        points = route_points(gpx, gpx_data, waypoints)
        if len(points) < 2:
            raise invalid(f"a route needs at least two waypoints, got {len(points)} — use latitude and longitude "
                          "for a single position", "pass two or more points")
        speed = DEFAULT_SPEED
        if args.get("speed") is not None:
            speed = float(args["speed"])
            if speed <= 0:
                raise invalid(f"speed must be above zero meters per second, got {speed:g}", "pass a positive speed")
        self._stop_route(st)
        self._place(st, *points[0])  # the provider is set up, and refused here rather than in the background
        route = Route(lambda lat, lon: self._place(st, lat, lon), points, speed)
        st.route = route
        route.thread.start()
        took = route.seconds()
        return Result(f"following {len(points)} waypoints at {speed:.0f} m/s, about {_duration_text(took)} — "
                      "stepped once a second by the daemon, since Android has no route command. `location --clear` "
                      "stops it, and so does starting another",
                      {"routing": True, "waypoints": len(points), "speed": speed, "seconds": round(took, 3),
                       "mock": True, "mocking": True, "known": True, "device": st.link.serial})
