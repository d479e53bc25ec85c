"""The emulator console of a virtual device: the telnet-style text protocol an Android emulator serves on its
console port, which is the number in its serial (emulator-5554 on 127.0.0.1:5554; adb's `emu` command connects
there itself, not through the ADB server).

As the emulator: on connect it asks for authentication; `auth TOKEN` must give the token in
~/.emulator_console_auth_token, which is written (random) when it does not exist yet; then `help`, `ping`,
`avd name`, `geo fix LONGITUDE LATITUDE [ALTITUDE [SATELLITES [VELOCITY]]]` (the GPS provider's position: longitude
first), `quit`/`exit`. Every answer ends with `OK`, or `KO: …` for a refusal. An empty token file turns
authentication off. The banner, the auth exchange and the token rules are checked against the emulator console's
documented sessions (developer.android.com/studio/run/emulator-console); the client side against the stock adb
client (`adb emu geo fix`, which reads the token file itself). The KO texts of bad geo arguments are not checked
against a real emulator."""

from __future__ import annotations

import os
import secrets
import socket
import socketserver
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .device import VirtualDevice

TOKEN_FILE = ".emulator_console_auth_token"


def auth_token_path() -> Path:
    return Path(os.environ.get("HOME") or Path.home()) / TOKEN_FILE


def auth_token() -> str:
    """The console's token: the file's, or a new random one written there (mode 0600), as the emulator does."""
    path = auth_token_path()
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        token = secrets.token_urlsafe(12)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another console wrote it meanwhile: theirs stands
            return path.read_text().strip()
        with os.fdopen(fd, "w") as f:
            f.write(token)
        return token


def free_console_port(start: int = 5554, last: int = 5682) -> tuple[int, socket.socket] | None:
    """The first even port from `start` whose console and adb ports (N, N+1) are free, as the emulator picks its
    pair; with the console's socket bound. None when every pair up to `last` is taken."""
    for port in range(start, last + 1, 2):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            probe.bind(("127.0.0.1", port + 1))
        except OSError:
            sock.close()
            continue
        finally:
            probe.close()
        return port, sock
    return None


class EmulatorConsole:
    """One device's console, listening on an already bound socket until close()."""

    def __init__(self, device: "VirtualDevice", sock: socket.socket) -> None:
        self.device = device
        self.port = sock.getsockname()[1]
        # Read (or written) once, as the emulator starts: a client's first `adb emu` finds it, and a file changed
        # afterwards does not change what this console accepts.
        self.token = auth_token()
        console = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                console.session(self.rfile, self.wfile)

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._server = Server(("127.0.0.1", self.port), Handler, bind_and_activate=False)
        self._server.socket.close()
        self._server.socket = sock
        sock.listen(8)
        self._thread = threading.Thread(target=self._server.serve_forever, name=f"console:{self.port}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def session(self, rfile, wfile) -> None:
        def say(text: str) -> None:
            wfile.write(text.replace("\n", "\r\n").encode())
            wfile.flush()

        token = self.token
        if not token:
            say("Android Console: type 'help' for a list of commands\nOK\n")
        else:
            say("Android Console: Authentication required\n"
                "Android Console: type 'auth <auth_token>' to authenticate\n"
                "Android Console: you can find your <auth_token> in\n"
                f"'{auth_token_path()}'\nOK\n")
        authed = not token
        for raw in rfile:
            words = raw.decode("utf-8", "replace").strip().split()
            if not words:
                continue
            verb = words[0]
            if verb in ("quit", "exit"):
                return
            if verb == "auth":
                if len(words) == 2 and words[1] == token:
                    authed = True
                    say("Android Console: type 'help' for a list of commands\nOK\n")
                else:
                    say("KO: authentication token does not match ~/.emulator_console_auth_token\n")
                continue
            if not authed:
                say("KO: unknown command, try 'help'\n" if verb != "help" else
                    "Android console commands:\n\n    help|h|?         print a list of commands\n"
                    "    auth             user authentication for the emulator console\n"
                    "    quit|exit        quit control session\n\nOK\n")
                continue
            say(self.command(words))

    def command(self, words: list[str]) -> str:
        verb, args = words[0], words[1:]
        if verb in ("help", "h", "?"):
            return ("Android console commands:\n\n    help|h|?         print a list of commands\n"
                    "    ping             check if the emulator is alive\n"
                    "    avd              control virtual device execution\n"
                    "    geo              Geo-location commands\n"
                    "    quit|exit        quit control session\n\nOK\n")
        if verb == "ping":
            return "I am alive!\nOK\n"
        if verb == "avd" and args[:1] == ["name"]:
            return f"{self.device.props.get('ro.boot.qemu.avd_name', 'Medium_Phone_API_35')}\nOK\n"
        if verb == "geo" and args[:1] == ["fix"]:
            return self._geo_fix(args[1:])
        return "KO: unknown command, try 'help'\n"

    def _geo_fix(self, args: list[str]) -> str:
        if len(args) < 2:
            return "KO: not enough arguments: see 'help geo fix' for details\n"
        try:
            lon, lat = float(args[0]), float(args[1])
        except ValueError:
            return f"KO: argument '{args[0] if not _is_float(args[0]) else args[1]}' is not a number\n"
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            return "KO: invalid longitude or latitude\n"
        device = self.device
        with device.lock:
            # The emulator's GPS hardware reports the fix: the device's real (not mock) position.
            device.location = (lat, lon)
            device.location_mock = False
            device.log("LocationManagerService", f"gps location fix lat={lat:.6f} lon={lon:.6f}",
                       pid=device.system_pid)
        return "OK\n"


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
