"""app_location as Mobium answers it on Android: a position set through a test provider and read back injected, a
read that says whether it is still being injected, a clear that says Android keeps the last fix, and a route
stepped once a second that a clear stops."""

from __future__ import annotations

import time

import pytest

from pytest_mobium_evals.reach.toolserver import ToolError


def where(tools) -> tuple[float, float]:
    data = tools.call("app_location").data
    return data["latitude"], data["longitude"]


def test_a_position_is_injected_read_back_and_kept_as_the_last_fix_after_a_clear(fresh):
    set_ = fresh.call("app_location", latitude=48.8566, longitude=2.3522)
    assert set_.text == "the device is at 48.856600,2.352200, injected and read back"
    assert set_.data["mock"] and set_.data["mocking"] and set_.data["known"]
    assert fresh.call("app_location").text == "the device is at 48.856600,2.352200, injected and still being injected"
    cleared = fresh.call("app_location", clear=True)
    assert cleared.text.startswith("the test provider is removed") and "keeps that cache" in cleared.text
    after = fresh.call("app_location")
    assert after.text.startswith("the device's last known position is 48.856600,2.352200, which was injected")
    assert after.data["mock"] is True and after.data["mocking"] is False


@pytest.mark.parametrize("args,said", [
    ({"latitude": 48.0}, "needs both latitude and longitude"),
    ({"latitude": 91, "longitude": 0}, "latitude 91 is outside -90..90"),
    ({"latitude": 0, "longitude": 181}, "longitude 181 is outside -180..180"),
    ({"waypoints": [{"latitude": 1, "longitude": 2}]}, "a route needs at least two waypoints, got 1"),
    ({"waypoints": [{"latitude": 1, "longitude": 2}, {"latitude": 1}]}, "waypoint 2 is not"),
    ({"waypoints": [{"latitude": 1, "longitude": 2}, {"latitude": 1, "longitude": 3}], "speed": 0},
     "speed must be above zero"),
    ({"gpx_data": "<gpx", "waypoints": []}, "give either gpx or waypoints, not both"),
    ({"gpx_data": "not xml"}, "is not GPX"),
])
def test_bad_positions_and_routes_are_refused_with_what_is_wrong(fresh, args, said):
    with pytest.raises(ToolError) as e:
        fresh.call("app_location", **args)
    assert e.value.result.data["code"] == "invalid_argument" and said in e.value.message


def test_a_route_moves_the_device_once_a_second_until_a_clear_stops_it(fresh):
    route = fresh.call("app_location", waypoints=[{"latitude": 48.8566, "longitude": 2.3522},
                                                  {"latitude": 48.8700, "longitude": 2.3000}], speed=200)
    assert route.text.startswith("following 2 waypoints at 200 m/s, about 20s — stepped once a second")
    assert route.data["routing"] and route.data["waypoints"] == 2
    start = where(fresh)
    deadline = time.monotonic() + 10
    while where(fresh) == start:  # each read is a round trip to the device; the route steps each real second
        assert time.monotonic() < deadline, "the route did not move the device"
    fresh.call("app_location", clear=True)
    stopped = where(fresh)
    fixed_at = time.monotonic()
    while time.monotonic() - fixed_at < 2.5:
        assert where(fresh) == stopped, "the route kept moving the device after a clear"


def test_a_route_stopped_while_a_step_is_setting_a_position_has_landed_it_when_stop_returns():
    """The clear's read-back comes after the route's last step, never before it: a step already under way when the
    clear arrives is waited for, so it cannot move the device after the clear (mobium-app.sh's settled C and D)."""
    import threading

    from pytest_mobium_evals.mobium_server.location import Route

    entered, release, placed = threading.Event(), threading.Event(), []

    class StopThatReleases(threading.Event):
        def set(self) -> None:   # the step in flight finishes only once stop() has been asked for
            super().set()
            release.set()

    def place(lat: float, lon: float) -> None:
        entered.set()
        release.wait(5.0)
        placed.append((lat, lon))

    route = Route(place, [(48.8566, 2.3522), (48.86, 2.33)], speed=40.0)
    route.stop_event = StopThatReleases()
    route.thread.start()
    assert entered.wait(5.0)
    route.stop()
    assert placed, "stop() returned while a step was still setting its position"
    assert not route.thread.is_alive()
