"""hit-test.sh, Android part: `hit-test` is refused as unsupported, since Android's tree needs no hit test."""

from conformance_cli import APP, Flow

flow = Flow("hit-test.sh")
said: dict = {}


@flow.step(47)
def _(m):
    m.fresh_start()
    m.run("scroll-to", "testid=obstructionBtn", "--direction", "down")
    m.ok("tap", "testid=obstructionBtn")
    m.ok("wait", "testid=obstructionOutcome")


@flow.step(51)
def _(m):
    ran = m.run("hit-test", "testid=hiddenTarget")
    said["out"] = ran.both
    assert ran.rc == 5, f"not refused as unsupported (exit {ran.rc}): {ran.both}"


@flow.step(52)
def _(m):
    assert "needs no hit test" in said["out"], said["out"]
    m.run("terminate", APP)


test_hit_test = flow.test()
