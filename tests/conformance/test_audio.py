"""audio.sh: the Audio Demo. What it plays is judged from a capture of the emulator's audio output, which the
virtual device has no speaker for: those steps are listed as HARDWARE. The app's own side (the demo opens, a loop
stops when told, the platform reports a player during the silent track) runs."""

from conformance_cli import APP, Flow

flow = Flow("audio.sh")
CAPTURE = "emulator audio capture (app_audio records the device's output PCM)"


def state(m) -> str:
    return m.value("text", "testid=audioState")


def ended(m) -> None:
    """The check's ended(): 40 looks a quarter of a second apart."""
    m.looks(40, 0.25, lambda: state(m).startswith(("finished:", "stopped:")), "the Audio Demo's sound never ended")


@flow.step(56)
def _(m):
    assert APP in m.ok("apps").both


@flow.step(62)
def _(m):
    m.fresh_start()
    m.run("scroll-to", "label=Audio Demo")
    m.ok("tap", "label=Audio Demo")
    m.ok("wait", "testid=audioState")


flow.hardware(80, CAPTURE)
flow.hardware(84, CAPTURE)
flow.hardware(132, CAPTURE)
flow.hardware(134, "a Clock app timer (SET_TIMER) on the emulator")
flow.hardware(144, "the Clock alarm playing as USAGE_ALARM in `dumpsys audio`")
flow.hardware(164, CAPTURE)
flow.hardware(165, CAPTURE + ": the alarm's interruption in the timeline")
flow.hardware(175, CAPTURE + ": stop with nothing capturing")
flow.hardware(176, CAPTURE)
flow.hardware(177, CAPTURE + ": a second start refused while one runs")
flow.hardware(178, CAPTURE)
flow.hardware(182, CAPTURE + ": 440 Hz for about 2 s")
flow.hardware(186, CAPTURE + ": 440 then 880 Hz")
flow.hardware(187, CAPTURE + ": a second of silence between the tones")
flow.hardware(200, CAPTURE + ": 660 Hz as an alarm")


@flow.step(210)
def _(m):
    m.ok("tap", "testid=audioLoop")
    m.advance_clock(1.5)
    m.ok("tap", "testid=audioStop")
    ended(m)
    m.advance_clock(1)
    assert state(m).startswith("stopped:"), f"the loop says {state(m)!r} after Stop"


flow.hardware(209, CAPTURE)
flow.hardware(211, CAPTURE + ": a tone stopped after about 1.5 s")


@flow.step(223)
def _(m):
    listing = m.adb_shell(f"cmd package list packages -U {APP}")
    uid = listing.split("uid:")[1].split()[0] if "uid:" in listing else ""
    m.ok("tap", "testid=audioSilent")
    playing = m.adb_shell("dumpsys audio")
    started = [ln for ln in playing.splitlines()
               if "AudioPlaybackConfiguration" in ln and f"u/pid:{uid}/" in ln and "state:started" in ln]
    ended(m)
    m.advance_clock(0.5)
    assert uid and started, "the platform reported no player started during the silence"


flow.hardware(224, CAPTURE + ": the silent track heard as silence")
flow.hardware(235, "emulator telephony through the console (`call ring`)")
flow.hardware(237, "emulator telephony through the console (`call hang`)")
flow.hardware(241, CAPTURE)
flow.hardware(242, CAPTURE + ": the tone muted during a call")
flow.hardware(258, CAPTURE + ": the call's `muted` interruption")
flow.hardware(259, CAPTURE + ": the ringtone interruption")
flow.hardware(263, "a Clock app timer's alarm over the tone, heard in the capture")
flow.hardware(268, CAPTURE + ": `mobium test` of tests/audio with expected pitches")
flow.hardware(270, CAPTURE + ": the must-fail audio tests")
flow.hardware(272, CAPTURE + ": 'expected 880 Hz; heard 440 Hz'")
flow.hardware(273, CAPTURE + ": 'expected silence; heard 440 Hz'")
flow.hardware(274, CAPTURE + ": a failed expect keeps its capture")

test_audio = flow.test()
