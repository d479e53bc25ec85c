"""frames.sh: a WebView page with frames: the same-origin and nested frames' buttons in the WebView's map, each
with its frame; the cross-origin frame named as left out, its button reached from NATIVE_APP's map instead —
each tap judged by the page's `frameOutcome`, read with `eval`."""

import re

from conformance_cli import APP, Flow

flow = Flow("frames.sh")
page: dict = {}


def outcome(m) -> str:
    m.ok("context", page["web"])
    return m.ok("eval", "document.getElementById('frameOutcome').textContent").value


def last_ref(m, pattern: str) -> str:
    refs = [ln.split()[0] for ln in m.value("map").splitlines() if re.search(pattern, ln)]
    return refs[-1] if refs else ""


@flow.step(31)
def _(m):
    assert APP in m.ok("apps").both


@flow.step(37)
def _(m):
    m.fresh_start()
    m.ok("tap", "label=WebViews")
    m.ok("tap", "testid=framesBtn")
    m.ok("wait", "text=A button on the page itself")


@flow.step(38)
def _(m):
    web = [ln.split()[0] for ln in m.value("contexts").splitlines() if "WEBVIEW" in ln]
    assert web, "the Frames page published no WebView context"
    page["web"] = web[0]


@flow.step(46)
def _(m):
    m.ok("context", page["web"])
    page["map"] = m.value("map")
    lines = page["map"].splitlines()
    same = [ln.split()[0] for ln in lines if "(button) in iframe#sameFrame" in ln and "nestedFrame" not in ln]
    nested = [ln.split()[0] for ln in lines if "iframe#nestedFrame" in ln and "(button)" in ln]
    assert same and nested, f"the frames' buttons are not in the WebView's map, each with its frame: {page['map']}"
    page["same"], page["nested"] = same[0], nested[0]


@flow.step(47)
def _(m):
    assert "1 frame on this page is cross-origin" in page["map"], page["map"]


@flow.step(51)
def _(m):
    m.ok("tap", page["same"])
    assert "the same-origin frame" in outcome(m)


@flow.step(53)
def _(m):
    m.ok("context", page["web"])
    m.ok("tap", page["nested"])
    assert "the nested frame" in outcome(m)


@flow.step(57)
def _(m):
    m.ok("context", "NATIVE_APP")
    assert last_ref(m, r" Tap me \(button\)$"), "NATIVE_APP's map has no button inside the cross-origin frame"


@flow.step(62)
def _(m):
    m.ok("context", "NATIVE_APP")
    m.ok("swipe", "up")
    m.ok("tap", last_ref(m, r" Tap me \(button\)$"))
    assert "the cross-origin frame" in outcome(m)


@flow.step(63)
def _(m):
    m.ok("context", "NATIVE_APP")
    m.run("terminate", APP)


test_frames = flow.test()
