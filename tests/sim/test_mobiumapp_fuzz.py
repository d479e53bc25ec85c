"""Random input never breaks MobiumApp: taps, swipes, keys and text anywhere, on any screen, and the app neither
crashes (except through its own crash buttons) nor leaves the device unable to dump its screen."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mobiumapp_harness import APP, Driver

from pytest_mobium_evals.sim.apps.mobiumapp.basic import MENU

DELIBERATE = ("mobium-crash-control", "The Busy Demo crashed during a refresh")

actions = st.one_of(
    st.tuples(st.just("tap"), st.integers(0, 1079), st.integers(0, 2399)),
    st.tuples(st.just("swipe"), st.integers(0, 1079), st.integers(140, 2330), st.integers(0, 1079),
              st.integers(140, 2330)),
    st.tuples(st.just("key"), st.sampled_from([4, 66, 67, 61, 21, 22, 112, 122, 123, 29, 7])),
    st.tuples(st.just("text"), st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=8)),
    st.tuples(st.just("wait"), st.floats(0, 3)),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(screen=st.sampled_from([k for k, _ in MENU]), steps=st.lists(actions, max_size=25))
def test_random_input_never_crashes_the_app(screen, steps):
    d = Driver(speed=1.0)
    d.launch()
    d.open(screen + "Btn")
    for step in steps:
        if step[0] == "tap":
            d.tap_xy(step[1], step[2])
        elif step[0] == "swipe":
            d.swipe(*step[1:])
        elif step[0] == "key":
            d.key(step[1])
        elif step[0] == "text":
            if step[1].strip():
                d.type(step[1])
        else:
            d.clock.advance(step[1])
        assert d.dump()  # the screen can always be dumped
    crashes = [e.message for e in d.device.logs if e.tag == "AndroidRuntime"]
    text = "\n".join(crashes)
    if crashes:
        assert any(mark in text for mark in DELIBERATE), text
    if APP in d.device.processes and d.device.current_app() is not None:
        d.device.current_app().render()
