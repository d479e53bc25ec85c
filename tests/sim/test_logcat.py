"""logcat's modes on the virtual device, against AOSP's logcat.cpp and liblog's logprint.cpp (Android 15): dump and
follow (-d, -t, -T, -m), the buffers and their dividers, filter specs, and every format with its modifiers. A line
format's real capture is Mobium's testdata logcat-epoch-uid-api35.txt (`-v epoch,uid`, an API 35 emulator):
`         1790376930.836  root   173   173 I qemu-props: …` (19 wide, a uid named when its name is 5 letters)."""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import threading

import pytest

needs_adb = pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's stock adb is not installed "
                                                                  "(apt-get install adb)")


@pytest.fixture
def logged(vdevice, sh):
    """A device whose default rings hold three known lines (and a crash ring line), at a known time."""
    sh.out("logcat -c")
    vdevice.log("Alpha", "one", "I", pid=300, uid=10214)
    vdevice.log("Beta", "two\nsecond line", "W", pid=301, uid=0)
    vdevice.log("Alpha", "three", "D", pid=300, uid=10214)
    vdevice.log("AndroidRuntime", "FATAL EXCEPTION: main", "E", pid=300, uid=10214, buffer="crash")
    return vdevice


def test_dump_prints_each_ring_once_it_starts_and_dividers_only_when_asked(logged, sh):
    out = sh.out("logcat -d -v tag")
    assert out == ("--------- beginning of main\nI/Alpha   : one\nW/Beta    : two\nW/Beta    : second line\n"
                   "D/Alpha   : three\n--------- beginning of crash\nE/AndroidRuntime: FATAL EXCEPTION: main\n")
    logged.log("Alpha", "four", "I", pid=300)
    with_dividers = sh.out("logcat -d -D -v tag")
    assert with_dividers.endswith("--------- beginning of crash\nE/AndroidRuntime: FATAL EXCEPTION: main\n"
                                  "--------- switch to main\nI/Alpha   : four\n")
    assert "switch to" not in sh.out("logcat -d -v tag")
    assert sh.out("logcat -d -b crash -v raw") == "--------- beginning of crash\nFATAL EXCEPTION: main\n"
    assert sh.out("logcat -d -b events") == ""
    assert sh("logcat -d -b nosuch") == ("", "logcat: Unknown -b buffer 'nosuch'.\n", 1)


def test_tail_counts_what_logd_holds_and_the_filters_come_after(logged, sh):
    assert sh.out("logcat -t 2 -v tag") == ("--------- beginning of main\nD/Alpha   : three\n"
                                            "--------- beginning of crash\nE/AndroidRuntime: FATAL EXCEPTION: main\n")
    # the last two of the default rings, then only Beta's: nothing
    assert sh.out("logcat -t 2 -s Beta") == ""
    assert sh.out("logcat -d -s Beta -v tag") == ("--------- beginning of main\nW/Beta    : two\n"
                                                 "W/Beta    : second line\n")
    assert sh("logcat -t 0 -v raw -b crash") == ("--------- beginning of crash\nFATAL EXCEPTION: main\n",
                                                  "WARNING: -t 0 invalid, setting to 1\n", 0)
    assert sh("logcat -t 2 -m 1") == ("", "logcat: Cannot use -m (--max-count) and -t together.\n", 1)
    assert sh("logcat -t 'yesterday'") == ("", "logcat: -t 'yesterday' not in time format.\n", 1)


def test_tail_by_time(logged, sh):
    later = logged.clock.wall() + 5
    logged.clock.advance(10)
    logged.log("Gamma", "after", "I", pid=302)
    stamp = datetime.datetime.fromtimestamp(later, datetime.timezone.utc)
    for spelled in (stamp.strftime("%m-%d %H:%M:%S.000"), stamp.strftime("%Y-%m-%d %H:%M:%S.000"),
                    f"{int(later)}.000"):
        assert sh.out(f"logcat -t '{spelled}' -v tag") == "--------- beginning of main\nI/Gamma   : after\n", spelled


def test_filter_specs_as_liblog_reads_them(logged, sh):
    tags = lambda line: re.findall(r"^([VDIWEF])/(\w+)", sh.out(f"logcat -d -v brief {line}"), re.M)  # noqa: E731
    assert tags("Alpha:I *:S") == [("I", "Alpha")]
    assert tags("Alpha:I Alpha:V *:S") == [("I", "Alpha"), ("D", "Alpha")]  # the last rule for a tag wins
    assert tags("'*'") == [("I", "Alpha"), ("W", "Beta"), ("W", "Beta"), ("D", "Alpha"),
                           ("E", "AndroidRuntime")]  # '*' alone is *:D
    assert tags("'*:W'") == [("W", "Beta"), ("W", "Beta"), ("E", "AndroidRuntime")]
    assert tags("-s Beta") == [("W", "Beta"), ("W", "Beta")]  # a tag alone is TAG:V
    assert tags("'*:5'") == [("W", "Beta"), ("W", "Beta"), ("E", "AndroidRuntime")]  # a digit: 5 is warn
    assert sh("logcat -d Alpha:Q") == ("", "logcat: Invalid filter expression 'Alpha:Q'.\n", 1)
    assert tags("--pid=301") == [("W", "Beta"), ("W", "Beta")]
    assert tags("--uid=0") == [("W", "Beta"), ("W", "Beta")]
    assert tags("-e 'thr|FATAL'") == [("D", "Alpha"), ("E", "AndroidRuntime")]
    assert tags("-m 2") == [("I", "Alpha"), ("W", "Beta"), ("W", "Beta")]  # two entries, Beta's of two lines


def test_every_format_and_modifier(logged, sh):
    entry = logged.logs[-2]  # Alpha's "three"
    local = re.escape(sh.out("logcat -d -v threadtime -s Alpha").splitlines()[-1][:18])
    lines = lambda fmt: sh.out(f"logcat -d -v {fmt} -s Alpha").splitlines()[1:]  # noqa: E731
    assert lines("brief")[-1] == "D/Alpha   (  300): three"
    assert lines("process")[-1] == "D(  300) three  (Alpha)"
    assert lines("tag")[-1] == "D/Alpha   : three"
    assert lines("thread")[-1] == "D(  300:  300) three"
    assert lines("raw")[-1] == "three"
    assert re.fullmatch(local + r" D/Alpha   \(  300\): three", lines("time")[-1])
    assert re.fullmatch(local + r"   300   300 D Alpha   : three", lines("threadtime")[-1])
    assert re.fullmatch(r"\[ " + local + r"   300:  300 D/Alpha    \]", lines("long")[-3])
    assert lines("long")[-2:] == ["three", ""]
    seconds = f"{int(entry.wall)}.{int(entry.wall % 1 * 1000):03d}"
    assert lines("epoch,uid")[-1] == f"{seconds:>23} 10214   300   300 D Alpha   : three"
    beta = sh.out("logcat -d -v epoch,uid -s Beta").splitlines()[1]
    assert re.fullmatch(r" {9}\d{10}\.\d{3}  root   301   301 W Beta    : two", beta)  # Mobium's API 35 capture
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6} \+0000   300   300 D Alpha   : three",
                        lines("threadtime,year,usec,zone")[-1])
    assert lines("brief,color")[-1] == "\x1b[34mD/Alpha   (  300): three\x1b[0m"  # debug is blue
    assert re.fullmatch(r" *\d+\.\d{3}   300   300 D Alpha   : three", lines("monotonic")[-1])
    assert sh("logcat -d -v fancy") == ("", "logcat: Invalid -v 'fancy'.\n", 1)
    assert sh("logcat -d --frobnicate") == ("", "logcat: Unknown option '--frobnicate'.\n", 1)


def test_buffer_sizes_and_clear_per_ring(logged, sh):
    sizes = sh.out("logcat -g").splitlines()
    assert [s.split(":")[0] for s in sizes] == ["main", "system", "crash", "kernel"]
    assert re.fullmatch(r"main: ring buffer is 256 KiB \(\d+ B consumed, \d+ B readable\), max entry is 5120 B, "
                        r"max payload is 4068 B", sizes[0])
    sh.out("logcat -c -b crash")
    assert "FATAL" not in sh.out("logcat -d") and "three" in sh.out("logcat -d")


def test_a_blocking_logcat_follows_until_its_count(vdevice, make_sh):
    """`logcat -T 1 -m 3` (mobilecli's `device logs --limit 3` sends `logcat -v threadtime,year -T 1` and counts
    lines itself; -m is logcat's own count): the last line, then what is logged next, until three lines."""
    from pytest_mobium_evals.sim.shell import Shell

    shell = Shell(vdevice)
    vdevice.log("Alpha", "before", "I", pid=300)
    out, status = shell.run("logcat -T 1 -m 3 -v tag")
    assert status == 0 and out.stdout().decode() == "--------- beginning of main\nI/Alpha   : before\n"
    follow = shell.follow
    assert follow is not None
    vdevice.log("Alpha", "next", "I", pid=300)
    assert follow.poll(vdevice) == (b"I/Alpha   : next\n", False)
    vdevice.log("Alpha", "last", "I", pid=300)
    vdevice.log("Alpha", "past the count", "I", pid=300)
    assert follow.poll(vdevice) == (b"I/Alpha   : last\n", True)
    out, _ = shell.run("logcat -d -m 1 -v tag")
    assert shell.follow is None  # -d never follows


def _adb(server, *args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(server.port)}
    return subprocess.Popen(["adb", "-s", server.serials[0], *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


@needs_adb
@pytest.mark.parametrize("how", [("shell", "logcat"), ("logcat",), ("exec-out", "logcat")])
def test_the_stock_client_streams_and_ends_at_the_count(sim_server, how):
    """Over the shell protocol (`adb shell logcat`), adb's own `adb logcat` (`exec logcat` in a shell) and a raw
    stream (`adb exec-out logcat`): what is logged while it runs comes, and -m ends the command with status 0."""
    device = sim_server.device(sim_server.serials[0])
    marker = "Stream" + "".join(w.capitalize() for w in how).replace("-", "")
    proc = _adb(sim_server, *how, "-v", "tag", "-m", "3", f"{marker}:I", "*:S")
    stop = threading.Event()

    def app_logging() -> None:  # an app logging a line every 50 ms until the client has what it asked for
        n = 0
        while not stop.wait(0.05):
            with device.lock:
                device.log(marker, f"n{n}", "I", pid=4000)
            n += 1

    thread = threading.Thread(target=app_logging, daemon=True)
    thread.start()
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        stop.set()
        thread.join()
    assert proc.returncode == 0, err
    lines = [line for line in out.replace("\r\n", "\n").splitlines() if not line.startswith("---------")]
    assert len(lines) == 3 and all(re.fullmatch(rf"I/{marker}: n\d+", line) for line in lines), out
