"""crashes.sh, its Android steps with MobiumApp installed: the device log read between reads and past its limit,
the Crash Demo's JavaScript error as a new crash record scoped to the app, read in full by id with the error in it,
the system's line that the app died kept by an app-filtered log, and the record listed again (not drained). The
ANR part freezes MobiumApp with SIGSTOP as root, which the virtual device cannot: those steps are listed as
hardware."""

from conformance_cli import APP, Flow, contains

flow = Flow("crashes.sh")
seen: dict = {}
DIED = rf"Force finishing activity {APP}|Process {APP} \(pid [0-9]+\) has died"
NO_ROOT = "adb root, to freeze MobiumApp with kill -STOP: the virtual device is an unrooted user build"


def newest_id(m) -> str:
    return (m.json("crashes", "--app", APP, "--limit", "1", "--json")["crashes"] or [{"id": ""}])[0]["id"]


@flow.step(53)
def _(m):
    def some() -> bool:
        seen["n"] = len(m.json("logs", "--source", "device", "--lines", "5", "--json")["entries"])
        return seen["n"] > 0
    m.looks(5, 1.0, some, "five reads of the device log returned nothing at all")


@flow.step(63)
def _(m):
    m.adb_shell('log -t MobiumCheck "the positive control"')
    data = m.json("logs", "--source", "device", "--lines", "100000", "--json")
    got = [e["message"] for e in data["entries"] if e["tag"] == "MobiumCheck"]
    assert "the positive control" in got, f"a line logged between reads was not returned: {got}"


@flow.step(70)
def _(m):
    # The check's `for i in $(seq 1 60); do log …; done`, as sixty commands in one shell.
    m.adb_shell("; ".join(f"log -t MobiumNoise n{i}" for i in range(1, 61)))
    skipped = m.json("logs", "--source", "device", "--lines", "10", "--json").get("skipped", 0)
    assert skipped >= 50, f"60 lines against a limit of 10 reported {skipped} skipped"


@flow.step(82)
def _(m):
    again = m.json("logs", "--source", "device", "--lines", "1000", "--json")["first"]
    assert again is False, "a later read claimed to be the first"


@flow.step(119)
def _(m):
    assert contains("dev.mobium.mobiumapp", m.ok("apps").out), "MobiumApp is not installed"


@flow.step(123)
def _(m):
    seen["before"] = newest_id(m)


@flow.step(127)
def _(m):
    m.run("terminate", APP)
    m.ok("launch", APP)
    m.ok("tap", "testid=crashBtn")
    m.ok("tap", "testid=crashJsBtn")


@flow.step(150)
def _(m):
    def new() -> bool:
        seen["id"] = newest_id(m)
        return seen["id"] not in ("", seen["before"])
    m.looks(30, 2.0, new, f"no new crash for {APP} within 60s")   # the check's 30 looks 2 s apart


@flow.step(166)
def _(m):
    text = m.value("crashes", seen["id"])
    assert "JavascriptException: Error: mobium-crash-control" in text, \
        f"report {seen['id']} does not show the crash: {text.splitlines()[:5]}"


@flow.step(201)
def _(m):
    applog = m.value("logs", "--source", "device", "--app", APP, "--lines", "20000")
    assert contains(DIED, applog, extended=True), f"the app-filtered log lacks the system's line that {APP} died"


flow.hardware(247, f"an ANR dialog ('isn't responding') for a frozen app needs {NO_ROOT}")
flow.hardware(250, f"answering the ANR dialog needs it raised, by {NO_ROOT}")
flow.hardware(251, f"system_server's 'ANR in {APP}' needs {NO_ROOT}")
flow.hardware(254, f"an ANR report leading 'ANR: Input dispatching timed out' needs {NO_ROOT}")


@flow.step(267)
def _(m):
    listed = m.json("crashes", "--app", APP, "--limit", "20", "--json")["crashes"]
    assert seen["id"] in [c["id"] for c in listed], f"the second listing lost {seen['id']}"


test_crashes = flow.test()
