"""One `adb shell` command, the fast way, for both sides that reach a device over ADB: the harness (`device.py`)
and the Mobium-compatible server (`mobium_server/device.py`), which the import contracts keep apart from each other
and let share only this module. It imports nothing: it speaks through the adbutils client it is handed.

The transport is chosen with `host:transport:SERIAL`, which every adb server understands, so no `host:version`
round trip comes first (as adbutils' shell() makes one); every wait is bounded by `timeout` (adbutils' own shell()
waits up to ten minutes for the transport and the service's OKAY); and the connection is closed as soon as the
device has closed its end, without the 10 ms pause adbutils' close() makes for a half-close that a finished shell
does not need. Those pauses and round trips were most of a command's time on the virtual device, and a trial or a
tool call makes several commands."""

from __future__ import annotations


def shell_bytes(client, serial: str, command: str, timeout: float) -> bytes:
    """What `command` prints on the device `serial` of the ADB server `client` (an adbutils.AdbClient) talks to.
    Raises what adbutils raises (AdbError, AdbTimeout, OSError): each side says it in its own words."""
    conn = client.make_connection(timeout=timeout)
    try:
        conn.send_command(f"host:transport:{serial}")
        conn.check_okay()
        conn.send_command("shell:" + command)
        conn.check_okay()
        return read_to_end(conn.conn)
    finally:
        conn.conn.close()


def read_to_end(sock) -> bytes:
    """What the device sends until it closes the stream, in chunks joined once (a screenshot is megabytes)."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
