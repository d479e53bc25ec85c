"""feed.sh: a list that grows as it is scrolled (Feed Demo, slow pages): `scroll-to` waits out two loads, reports
the real end quickly, and an unknown role is refused."""

import time

from conformance_cli import APP, Flow

# The check's timing is an emulator's: a page loads 2.5 s after the end is reached, and scroll-to meets that wait with
# swipes that block for their duration and dumps that take a second, as there; and "the real end, at once" is its
# own 10 s, counted in those commands.
PACE = "emulator"
flow = Flow("feed.sh")


@flow.step(40)
def _(m):
    assert APP in m.ok("apps").both


@flow.step(46)
def _(m):
    m.fresh_start()
    m.run("scroll-to", "label=Feed Demo")
    m.ok("tap", "label=Feed Demo")


@flow.step(48)
def _(m):
    m.ok("tap", "testid=feedSlow")
    assert "rows: 20, idle" in m.value("text", "testid=feedState")


@flow.step(51)
def _(m):
    m.ok("scroll-to", "label=Row 55")


@flow.step(52)
def _(m):
    assert "rows: 60" in m.value("text", "testid=feedState")


@flow.step(58)
def _(m):
    start = time.monotonic()
    ran = m.fails("scroll-to", "label=Row 70")
    assert "end of the list" in ran.both, ran.both
    assert time.monotonic() - start < 10, "the real end took longer to report than a load is waited for"


@flow.step(61)
def _(m):
    ran = m.fails("wait", "role=nosuchrole", "--for", "hidden", "--timeout", "1s")
    assert "unknown role" in ran.both, ran.both
    m.run("terminate", APP)


test_feed = flow.test()
