"""map-diff.sh: `map --diff` on the Form Demo — a fresh daemon's first diff has nothing to compare with and adds the
whole screen, a map with nothing done between is unchanged, checking the box is one change (its state and what it
was), and leaving the screen removes the demo's elements and adds the home screen's, whose ref acts."""

import re

from conformance_cli import APP, Flow, contains

flow = Flow("map-diff.sh")
seen: dict = {}


def fresh(m) -> None:
    """A fresh daemon has no earlier map; the Form Demo opened again."""
    m.run("daemon", "stop", device=False)
    m.run("terminate", APP)
    m.ok("launch", APP)
    m.ok("tap", "label=Form Demo")
    m.ok("wait", "testid=termsCheck")


@flow.step(37)
def _(m):
    fresh(m)
    out = m.ok("map", "--diff").out
    assert contains("^no earlier map", out.splitlines()[0]), out


@flow.step(40)
def _(m):
    fresh(m)
    first = m.json("--json", "map", "--diff")
    assert first["diff"]["first"] is True, first
    assert len(first["diff"]["added"]) == len(first["elements"]) > 0, first


@flow.step(47)
def _(m):
    out = m.ok("map", "--diff").out
    assert contains("^nothing changed since the last map", out), out


@flow.step(57)
def _(m):
    line = next(ln for ln in m.ok("map").out.splitlines() if "Accept terms" in ln)
    was = re.search(r"unchecked|checked", line).group(0)
    want = "unchecked" if was == "checked" else "checked"
    m.ok("check" if want == "checked" else "uncheck", "testid=termsCheck")
    out = m.ok("map", "--diff").out
    assert contains(f"^~ @e[0-9]* Accept terms (checkbox, {want}) — was {was}", out.splitlines()[0]), out
    extra = [ln for ln in out.splitlines()[1:] if not contains("^~ [0-9]* elements moved together, ", ln)]
    assert not extra, f"checking one box changed more than it: {out}"
    m.ok("check" if was == "checked" else "uncheck", "testid=termsCheck")
    m.ok("map")


@flow.step(68)
def _(m):
    if m.run("tap", "label=Back").rc != 0:
        m.ok("press", "back")
    m.ok("wait", "label=Form Demo")
    out = m.ok("map", "--diff").out
    assert contains("^- Accept terms (checkbox", out), out
    refs = [ln.split()[1] for ln in out.splitlines() if contains("^+ @e[0-9]* Form Demo", ln)]
    assert refs, f"leaving did not add the home screen's Form Demo button: {out}"
    seen["ref"] = refs[0]


@flow.step(73)
def _(m):
    m.ok("tap", seen["ref"])
    m.ok("wait", "testid=termsCheck")


test_map_diff = flow.test()
