"""The host side of ADB's smart-socket protocol, serving virtual devices on 127.0.0.1.

Each client connection is a thread. A request is 4 hex digits of length plus the request text; the server answers
OKAY or FAIL + 4 hex length + reason. `host:*` requests are answered and the connection closed (except transport
selection, which keeps it open for one device service: `shell:`, `shell,v2,…:`, `exec:`, `abb_exec:`, `sync:`,
`tcp:`, `localabstract:`, `reverse:`, `framebuffer:`; or for one host service about that device, `host:forward:…`,
as the stock client sends it after `host:tport:serial:S`).
Malformed input gets FAIL with a reason, or the connection closed; it never affects other connections.
"""

from __future__ import annotations

import queue
import select
import shlex
import socket
import struct
import threading
from typing import TYPE_CHECKING, Callable, Optional

from .commands.installs import streamed_size
from .faults import GARBAGE, FaultPlan
from .filesystem import fs_isdir, fs_listdir, fs_norm, fs_read, fs_writable, fs_write
from .forwards import ForwardError, Forwards, close_gracefully
from .listeners import ListenerError
from .render import screencap_raw
from .reverses import Reverses
from .shell import Shell

if TYPE_CHECKING:  # pragma: no cover
    from .commands.logcat import LogFollow
    from .device import VirtualDevice

ADB_SERVER_VERSION = 41
# Features the virtual adbd advertises. No stat_v2/ls_v2/sendrecv_v2: clients then use the v1 sync protocol, which
# is the one implemented here. abb/abb_exec as Android 10+ adbd: the stock client streams installs through abb_exec.
FEATURES = ("shell_v2", "cmd", "fixed_push_mkdir", "fixed_push_symlink_timestamp", "apex", "remount_shell",
            "track_app", "abb", "abb_exec")
MAX_REQUEST = 64 * 1024
SYNC_DATA_MAX = 64 * 1024
IDLE_TIMEOUT = 300.0  # a client that says nothing for this long is dropped
MAX_STREAMED = 1 << 30  # a streamed install announcing more than this is not read (pm reports a partial write)


class ProtocolError(Exception):
    """The client broke the protocol: answer FAIL with this reason (when possible) and close."""


class Conn:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("client closed the connection")
            buf += chunk
        return bytes(buf)

    def read_request(self) -> str:
        head = self.recv_exact(4)
        try:
            length = int(head.decode("ascii"), 16)
        except (UnicodeDecodeError, ValueError):
            raise ProtocolError(f"bad request length {head!r}: expected 4 hex digits") from None
        if length <= 0 or length > MAX_REQUEST:
            raise ProtocolError(f"bad request length {length}")
        body = self.recv_exact(length)
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("request is not UTF-8") from None

    def okay(self, payload: bytes | None = None) -> None:
        if payload is None:
            self.sock.sendall(b"OKAY")
        else:
            self.sock.sendall(b"OKAY" + b"%04x" % len(payload) + payload)

    def fail(self, reason: str) -> None:
        data = reason.encode()
        try:
            self.sock.sendall(b"FAIL" + b"%04x" % len(data) + data)
        except OSError:
            pass


class ConnectionThreads:
    """The threads that serve the ADB server's connections, one connection a thread at a time, each kept for the
    next connection once its own has ended (up to `keep` waiting): a trial opens some thirty connections, one per
    command as adb does, and starting a thread for each (its stack mapped and freed, the start handshaked) was a
    tenth of the virtual device's CPU. What a connection is served with is the same either way."""

    def __init__(self, serve: Callable[[socket.socket], None], name: str, keep: int = 8):
        self._serve = serve
        self.name = name
        self._keep = keep
        self._waiting = 0  # threads blocked on the queue, each about to take one connection
        self._lock = threading.Lock()
        self._queue: "queue.SimpleQueue[Optional[socket.socket]]" = queue.SimpleQueue()
        self._closed = False
        self.started = 0  # threads started so far

    def hand(self, sock: socket.socket) -> None:
        with self._lock:
            if self._waiting:
                self._waiting -= 1
                self._queue.put(sock)
                return
            self.started += 1
        threading.Thread(target=self._run, args=(sock,), daemon=True, name=self.name).start()

    def _run(self, sock: Optional[socket.socket]) -> None:
        while sock is not None:
            self._serve(sock)
            with self._lock:
                if self._closed or self._waiting >= self._keep:
                    return
                self._waiting += 1
            sock = self._queue.get()

    def close(self) -> None:
        """The waiting threads end; those still serving end with their connections."""
        with self._lock:
            self._closed = True
            waiting, self._waiting = self._waiting, 0
        for _ in range(waiting):
            self._queue.put(None)


class AdbServer:
    def __init__(self, devices: dict[str, "VirtualDevice"], port: int = 0, host: str = "127.0.0.1",
                 faults: FaultPlan | None = None):
        self.devices = devices
        self.faults = faults or FaultPlan()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._listener.bind((host, port))
        except OSError as exc:
            self._listener.close()
            raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        self._listener.listen(128)
        self.host = host
        self.port = self._listener.getsockname()[1]
        self._closed = threading.Event()
        self.forwards = Forwards(host, self._open_remote)
        self.reverses = {serial: Reverses(device, host) for serial, device in devices.items()}
        self._clients: set[socket.socket] = set()
        self._clients_lock = threading.Lock()
        self.connection_threads = ConnectionThreads(self._serve, f"adb-client:{self.port}")
        self._thread = threading.Thread(target=self._accept_loop, name=f"adb-server:{self.port}", daemon=True)
        self._thread.start()

    # -- lifecycle -------------------------------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self.faults.release()
        self.forwards.close()
        for reverses in self.reverses.values():
            reverses.remove_all()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        with self._clients_lock:
            clients = list(self._clients)
        for c in clients:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()
        self._thread.join(timeout=5)
        self.connection_threads.close()

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(IDLE_TIMEOUT)
            with self._clients_lock:
                self._clients.add(sock)
            self.connection_threads.hand(sock)

    def _serve(self, sock: socket.socket) -> None:
        conn = Conn(sock)
        try:
            self._handle(conn)
        except ProtocolError as exc:
            conn.fail(str(exc))
        except (ConnectionError, OSError, socket.timeout):
            pass  # the client went away; nothing to tell anyone
        finally:
            with self._clients_lock:
                self._clients.discard(sock)
            close_gracefully(sock)

    # -- host services ---------------------------------------------------------------------------------------------

    def _handle(self, conn: Conn) -> None:
        device: "VirtualDevice | None" = None
        while True:
            req = conn.read_request()
            if device is not None and req.startswith("host:"):
                # The stock client selects the device first (host:tport:serial:S), then asks a host service about
                # it on the same socket: forward, killforward, list-forward, get-state, features.
                self._host_device_query(conn, device, req[len("host:"):])
                return
            if device is not None:
                fault = self.faults.action()
                if fault is not None:
                    self._misbehave(conn, fault)
                    return
                self._device_service(conn, device, req)
                return
            if req.startswith("host-serial:") or req.startswith("host-transport-id:"):
                device, rest = self._split_prefixed(req)
                if device is None:
                    conn.fail(rest)
                    return
                self._host_device_query(conn, device, rest)
                return
            if req.startswith("host-local:") or req.startswith("host-usb:"):
                rest = req.split(":", 1)[1]
                device = self._pick(any_kind=True)
                if device is None:
                    conn.fail("more than one device/emulator" if self.devices else "no devices/emulators found")
                    return
                self._host_device_query(conn, device, rest)
                return
            if not req.startswith("host:"):
                # A device service without a transport: adb would refuse the same way.
                conn.fail("no transport selected; send host:transport:<serial> first" if ":" in req
                          else f"unknown request: {req[:80]}")
                return
            cmd = req[len("host:"):]
            if cmd == "version":
                conn.okay(b"%04x" % ADB_SERVER_VERSION)
                return
            if cmd in ("devices", "devices-l"):
                conn.okay(self._device_list(long=cmd == "devices-l").encode())
                return
            if cmd in ("track-devices", "track-devices-l"):
                self._track(conn, long=cmd.endswith("-l"))
                return
            if cmd == "features" or cmd == "host-features":
                conn.okay(",".join(FEATURES).encode())
                return
            if cmd in ("kill", "kill-server"):
                conn.fail("the virtual device's adb server cannot be killed from a client; stop its process")
                return
            if cmd.startswith("transport") or cmd.startswith("tport:"):
                device, reason, tport = self._select(cmd)
                if device is None:
                    conn.fail(reason)
                    return
                if tport:
                    conn.sock.sendall(b"OKAY" + struct.pack("<Q", device.transport_id))
                else:
                    conn.okay()
                continue
            if cmd in ("get-state", "get-serialno", "get-devpath", "features"):
                device = self._pick(any_kind=True)
                if device is None:
                    conn.fail("more than one device/emulator" if self.devices else "no devices/emulators found")
                    return
                self._host_device_query(conn, device, cmd)
                return
            if cmd.startswith("connect:") or cmd.startswith("disconnect:"):
                conn.okay(b"cannot connect: the virtual adb server serves only its own devices")
                return
            if cmd in ("reconnect", "reconnect-offline", "wait-for-any-device", "wait-for-any-any") or \
                    cmd.startswith("wait-for-"):
                conn.okay()
                conn.okay()
                return
            if cmd == "list-forward" or cmd == "killforward-all" or cmd.startswith("killforward:"):
                self._forward_service(conn, None, cmd)
                return
            if cmd.startswith("forward:"):
                device = self._pick(any_kind=True)
                if device is None:
                    conn.fail("more than one device/emulator" if self.devices else "no devices/emulators found")
                    return
                self._forward_service(conn, device, cmd)
                return
            conn.fail(f"unknown host service: {cmd[:80]}")
            return

    def _device_list(self, long: bool) -> str:
        lines = []
        for serial, dev in self.devices.items():
            if long:
                lines.append(f"{serial:<22} device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 "
                             f"device:emu64xa transport_id:{dev.transport_id}")
            else:
                lines.append(f"{serial}\tdevice")
        return "".join(line + "\n" for line in lines)

    def _track(self, conn: Conn, long: bool) -> None:
        conn.okay()
        data = self._device_list(long).encode()
        conn.sock.sendall(b"%04x" % len(data) + data)
        # The device list never changes while the server runs: wait for the client to hang up.
        conn.sock.settimeout(None)
        while not self._closed.is_set():
            try:
                if not conn.sock.recv(1024):
                    return
            except OSError:
                return

    def _pick(self, any_kind: bool = True) -> "VirtualDevice | None":
        """The one device a request without a serial means, or None when there is not exactly one."""
        if len(self.devices) == 1:
            return next(iter(self.devices.values()))
        return None

    def _select(self, cmd: str) -> tuple["VirtualDevice | None", str, bool]:
        tport = cmd.startswith("tport:")
        what = cmd[len("tport:"):] if tport else cmd
        if what.startswith("transport:"):
            serial = what[len("transport:"):]
            return self._by_serial(serial) + (False,)
        if what.startswith("serial:"):
            return self._by_serial(what[len("serial:"):]) + (tport,)
        if what.startswith("transport-id:") or what.startswith("id:"):
            raw = what.split(":", 1)[1]
            for dev in self.devices.values():
                if str(dev.transport_id) == raw:
                    return dev, "", tport
            return None, f"no device with transport id '{raw}'", tport
        if what in ("transport-any", "any", "transport-local", "local"):
            if not self.devices:
                return None, "no devices/emulators found", tport
            if len(self.devices) > 1:
                return None, "more than one device/emulator", tport
            return next(iter(self.devices.values())), "", tport
        if what in ("transport-usb", "usb"):
            return None, "no devices found", tport
        return None, f"unknown host service: {cmd[:80]}", tport

    def _by_serial(self, serial: str) -> tuple["VirtualDevice | None", str]:
        dev = self.devices.get(serial)
        if dev is None:
            return None, f"device '{serial}' not found"
        return dev, ""

    def _split_prefixed(self, req: str) -> tuple["VirtualDevice | None", str]:
        if req.startswith("host-transport-id:"):
            body = req[len("host-transport-id:"):]
            tid, _, rest = body.partition(":")
            for dev in self.devices.values():
                if str(dev.transport_id) == tid:
                    return dev, rest
            return None, f"no device with transport id '{tid}'"
        body = req[len("host-serial:"):]
        # Serials may contain ':' (host:port for network devices), and so may services (forward:tcp:0;…): the
        # serial is the longest known one the request starts with, else what comes before the last ':'.
        known = [s for s in self.devices if body.startswith(s + ":")]
        if known:
            serial = max(known, key=len)
            return self.devices[serial], body[len(serial) + 1:]
        parts = body.split(":")
        serial = parts[0] + (f":{parts[1]}" if len(parts) > 2 and parts[1].isdigit() else "")
        return None, f"device '{serial}' not found"

    def _host_device_query(self, conn: Conn, device: "VirtualDevice", what: str) -> None:
        if what == "features":
            conn.okay(",".join(FEATURES).encode())
        elif what == "get-state":
            conn.okay(b"device")
        elif what == "get-serialno":
            conn.okay(device.serial.encode())
        elif what == "get-devpath":
            conn.okay(b"unknown")
        elif what.startswith("wait-for-"):
            conn.okay()
            conn.okay()
        elif what.startswith(("forward:", "killforward:")) or what in ("list-forward", "killforward-all"):
            self._forward_service(conn, device, what)
        else:
            conn.fail(f"unknown host service: {what[:80]}")

    # -- forwards --------------------------------------------------------------------------------------------------

    def _forward_service(self, conn: Conn, device: "VirtualDevice | None", what: str) -> None:
        """adb's forward services: the host's OKAY, then the service's own OKAY (and the port tcp:0 chose), or
        FAIL with adb's reason. `list-forward` answers one length-prefixed block of every device's forwards."""
        if what == "list-forward":
            conn.okay(self.forwards.listing().encode())
            return
        try:
            if what == "killforward-all":
                # adb's remove_all_listeners: every forward, whichever device the request named
                self.forwards.remove_all()
                port = None
            elif what.startswith("killforward:"):
                self.forwards.remove(what[len("killforward:"):])
                port = None
            else:
                spec = what[len("forward:"):]
                norebind = spec.startswith("norebind:")
                local, sep, remote = spec.removeprefix("norebind:").partition(";")
                if not sep or device is None:
                    raise ForwardError(f"malformed forward spec '{spec}'")
                port = self.forwards.add(device.serial, local, remote, norebind=norebind)
        except ForwardError as exc:
            conn.fail(str(exc))
            return
        conn.okay()
        conn.okay(None if port is None else str(port).encode())

    def _reverse_service(self, conn: Conn, reverses: Reverses, what: str) -> None:
        """adbd's side of `adb reverse`: its status OKAY (and the port tcp:0 chose), or FAIL with its reason."""
        if what == "list-forward":
            conn.sock.sendall(b"%04x" % len(reverses.listing().encode()) + reverses.listing().encode())
            return
        try:
            port = None
            if what == "killforward-all":
                reverses.remove_all()
            elif what.startswith("killforward:"):
                reverses.remove(what[len("killforward:"):])
            elif what.startswith("forward:"):
                spec = what[len("forward:"):]
                norebind = spec.startswith("norebind:")
                local, sep, remote = spec.removeprefix("norebind:").partition(";")
                if not sep:
                    raise ForwardError(f"malformed forward spec '{spec}'")
                port = reverses.add(local, remote, norebind=norebind)
            else:
                conn.fail(f"unknown reverse service: {what[:80]}")
                return
        except ForwardError as exc:
            conn.fail(str(exc))
            return
        conn.okay(None if port is None else str(port).encode())

    def _open_remote(self, serial: str, remote: str, sock: socket.socket) -> bool:
        """A forwarded connection reaches the device's socket `remote`, if anything listens there."""
        device = self.devices.get(serial)
        if device is None:
            return False
        try:
            serve = device.listeners.resolve(remote)
        except ListenerError:
            return False
        if serve is None:
            return False
        serve(sock)
        return True

    def _socket_service(self, conn: Conn, device: "VirtualDevice", req: str) -> None:
        """`tcp:PORT` (or `tcp:HOST:PORT`) and `localabstract:NAME`: the stream becomes a connection to whatever
        listens there on the device. When nothing does, adbd's connect() fails and it closes the stream; the host
        server tells the client just "closed" (adb's local_socket_close_notify)."""
        try:
            serve = device.listeners.resolve(req)
        except ListenerError:
            serve = None
        if serve is None:
            conn.fail("closed")
            return
        conn.okay()
        serve(conn.sock)

    def _misbehave(self, conn: Conn, kind: str) -> None:
        """The fault plan took this device command: drop it unanswered, hang on it, or answer garbage."""
        if kind == "garbage":
            conn.sock.sendall(GARBAGE)
        elif kind == "hang":
            conn.sock.settimeout(None)
            while not self._closed.is_set():
                readable, _, _ = select.select([conn.sock], [], [], 0.1)
                if readable:
                    try:
                        if not conn.sock.recv(4096):
                            return  # the client gave up
                    except OSError:
                        return
        # drop: the caller closes the connection with nothing said

    # -- device services -------------------------------------------------------------------------------------------

    def _device_service(self, conn: Conn, device: "VirtualDevice", req: str) -> None:
        if req.startswith("shell,") or req.startswith("shell:"):
            head, _, cmd = req.partition(":")
            opts = head.split(",")[1:]
            if "v2" in opts:
                conn.okay()
                self._shell_v2(conn, device, cmd, pty="pty" in opts)
            else:
                conn.okay()
                if not cmd:
                    self._interactive_v1(conn, device)
                    return
                shell = Shell(device)
                out, _ = shell.run(cmd)
                conn.sock.sendall(out.merged())
                if shell.follow is not None:
                    self._follow_logcat(conn, device, shell.follow, lambda data: data)
                elif shell.hold is not None:
                    conn.sock.sendall(self._hold(conn, shell.hold).encode())
            return
        if req.startswith("exec:"):
            # raw, no PTY: the bytes exactly as written (binary-safe), stdout and stderr on one stream as v1
            conn.okay()
            cmd = req[len("exec:"):]
            stdin = self._raw_stdin(conn, _argv(cmd))
            shell = Shell(device)
            out, _ = shell.run(cmd, stdin=stdin)
            conn.sock.sendall(out.merged())
            if shell.follow is not None:  # `adb exec-out logcat`: a blocking logcat streams as over shell:
                self._follow_logcat(conn, device, shell.follow, lambda data: data)
            elif shell.hold is not None:  # `adb exec-out screenrecord …`: open until it ends
                conn.sock.sendall(self._hold(conn, shell.hold).encode())
            return
        if req.startswith(("abb_exec:", "abb:")):
            # Android Binder Bridge: `cmd SERVICE ARGS…` without a shell, the arguments NUL-separated. abb_exec is
            # a raw stream as exec:; abb speaks the shell protocol (v2 packets, exit status).
            head, _, body = req.partition(":")
            argv = ["cmd", *body.split("\0")]
            conn.okay()
            cmd = " ".join(shlex.quote(a) for a in argv)
            if head == "abb_exec":
                out, _ = Shell(device).run(cmd, stdin=self._raw_stdin(conn, argv))
                conn.sock.sendall(out.merged())
            else:
                self._shell_v2(conn, device, cmd, pty=False, argv=argv)
            return
        if req == "sync:":
            conn.okay()
            serve_sync(conn, device)
            return
        if req.startswith(("root:", "unroot:")):
            conn.okay()
            conn.sock.sendall(_root_service(device, req.startswith("root:")))
            return
        if req.startswith(("reboot:", "remount:", "tcpip:", "usb:", "disable-verity:", "enable-verity:")):
            conn.fail(f"'{req.split(':', 1)[0]}' is not supported by the virtual device")
            return
        if req.startswith("framebuffer:"):
            conn.okay()
            conn.sock.sendall(_framebuffer(device))
            return
        if req.startswith(("tcp:", "localabstract:")):
            self._socket_service(conn, device, req)
            return
        if req.startswith("reverse:"):
            conn.okay()  # the host's OKAY: the stream to adbd is open; adbd's own answer follows
            self._reverse_service(conn, self.reverses[device.serial], req[len("reverse:"):])
            return
        if req.startswith(("localreserved:", "localfilesystem:", "dev:", "jdwp:",
                           "track-jdwp", "track-app")):
            conn.fail(f"closed: the virtual device has no service '{req.split(':', 1)[0]}'")
            return
        conn.fail(f"closed: unknown service '{req[:80]}'")

    def _raw_stdin(self, conn: Conn, argv: list[str] | None) -> bytes:
        """What a raw stream's command reads from stdin: exactly the bytes a streamed install announces (the
        client keeps the stream open for the answer, so reading to its end would wait forever), else nothing."""
        size = streamed_size(argv) if argv else None
        if not size or size > MAX_STREAMED:
            return b""
        conn.sock.settimeout(IDLE_TIMEOUT)
        return conn.recv_exact(size)

    def _v2_stdin(self, conn: Conn, argv: list[str] | None) -> bytes:
        """A streamed install's stdin over the shell protocol: stdin packets up to its size or a close-stdin."""
        size = streamed_size(argv) if argv else None
        if not size or size > MAX_STREAMED:
            return b""
        data = bytearray()
        while len(data) < size:
            kind, length = struct.unpack("<BI", conn.recv_exact(5))
            chunk = conn.recv_exact(length) if length else b""
            if kind == 0:
                data += chunk
            elif kind == 4:
                break
        return bytes(data)

    def _shell_v2(self, conn: Conn, device: "VirtualDevice", cmd: str, pty: bool,
                  argv: list[str] | None = None) -> None:
        if not cmd:
            self._interactive_v2(conn, device, pty)
            return
        shell = Shell(device)
        out, status = shell.run(cmd, stdin=self._v2_stdin(conn, argv if argv is not None else _argv(cmd)))
        packets = []
        for stream, data in out.chunks:
            if pty and stream == 1:
                data = data.replace(b"\n", b"\r\n")
            for i in range(0, len(data), 0xFFFF):
                piece = data[i:i + 0xFFFF]
                packets.append(struct.pack("<BI", stream, len(piece)) + piece)
        if shell.hold is not None:
            # a command that runs on (am instrument -w): what it printed so far, then the rest once it ends
            conn.sock.sendall(b"".join(packets))
            ending = self._hold(conn, shell.hold).encode()
            if pty:
                ending = ending.replace(b"\n", b"\r\n")
            try:
                conn.sock.sendall((struct.pack("<BI", 1, len(ending)) + ending if ending else b"")
                                  + struct.pack("<BIB", 3, 1, status))
            except OSError:
                pass  # the client hung up: that is what ended it
            return
        if shell.follow is not None:
            conn.sock.sendall(b"".join(packets))
            nl = b"\r\n" if pty else b"\n"
            if self._follow_logcat(conn, device, shell.follow,
                                   lambda data: struct.pack("<BI", 1, len(data)) + data.replace(b"\n", nl)):
                try:  # its -m count reached, logcat exited: the shell ends with its status
                    conn.sock.sendall(struct.pack("<BIB", 3, 1, status))
                except OSError:
                    pass
            return
        packets.append(struct.pack("<BIB", 3, 1, status))
        conn.sock.sendall(b"".join(packets))

    def _hold(self, conn: Conn, hold) -> str:
        """Keeps a shell open while its command runs on; the command ends when the client hangs up (its stdin
        closing is not hanging up) or the server closes. Returns what the command prints last."""
        conn.sock.settimeout(None)

        def hung_up(timeout: float) -> bool:
            if self._closed.is_set():
                return True
            readable, _, _ = select.select([conn.sock], [], [], timeout)
            if not readable:
                return False
            try:
                return not conn.sock.recv(4096)
            except OSError:
                return True
        return hold.wait(hung_up)

    def _follow_logcat(self, conn: Conn, device: "VirtualDevice", follow: "LogFollow", frame) -> bool:
        """Streams each new log line a blocking logcat prints until its -m count is reached (True: logcat exited)
        or the client hangs up or the server closes (False). Each poll also lets the device's timers run, so an
        app's timed logging shows up while someone watches, as on a device."""
        conn.sock.settimeout(None)
        while not self._closed.is_set():
            readable, _, _ = select.select([conn.sock], [], [], 0.05)
            if readable:
                try:
                    if not conn.sock.recv(4096):
                        return False
                except OSError:
                    return False
            with device.lock:
                device.run_due()
                text, done = follow.poll(device)
            if text:
                try:
                    conn.sock.sendall(frame(text))
                except OSError:
                    return False
            if done:
                return True
        return False

    def _interactive_v2(self, conn: Conn, device: "VirtualDevice", pty: bool = False) -> None:
        """`adb shell` with no command: read lines from stdin packets and run each; with a PTY, as a terminal
        (prompt, CRLF), without one (stdin piped in) as a plain script."""
        shell = Shell(device)
        conn.sock.settimeout(None)  # a person at a prompt may think for as long as they like
        prompt = b"emu64xa:/ $ " if pty else b""
        nl = b"\r\n" if pty else b"\n"
        if prompt:
            conn.sock.sendall(struct.pack("<BI", 1, len(prompt)) + prompt)
        pending = b""
        while True:
            head = conn.recv_exact(5)
            kind, length = struct.unpack("<BI", head)
            data = conn.recv_exact(length) if length else b""
            if kind == 4:  # kIdCloseStdin (0 stdin, 1 stdout, 2 stderr, 3 exit, 4 close stdin, 5 window size)
                status = shell.status
                conn.sock.sendall(struct.pack("<BIB", 3, 1, status))
                return
            if kind != 0:
                continue  # window size changes and the like
            pending += data.replace(b"\r", b"\n")
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                text = line.decode(errors="replace").strip()
                if text in ("exit", "logout"):
                    conn.sock.sendall(struct.pack("<BIB", 3, 1, shell.status))
                    return
                if text:
                    out, _ = shell.run(text)
                    for stream, data in out.chunks:
                        data = data.replace(b"\n", nl)
                        conn.sock.sendall(struct.pack("<BI", 1 if pty else stream, len(data)) + data)
                if prompt:
                    conn.sock.sendall(struct.pack("<BI", 1, len(prompt)) + prompt)

    def _interactive_v1(self, conn: Conn, device: "VirtualDevice") -> None:
        """v1 `shell:` with no command: an interactive shell over a PTY (prompt, lines in, output out)."""
        shell = Shell(device)
        conn.sock.settimeout(None)
        prompt = b"emu64xa:/ $ "
        conn.sock.sendall(prompt)
        pending = b""
        while True:
            data = conn.sock.recv(4096)
            if not data:
                return
            pending += data.replace(b"\r", b"\n")
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                text = line.decode(errors="replace").strip()
                if text in ("exit", "logout"):
                    return
                if text:
                    out, _ = shell.run(text)
                    conn.sock.sendall(out.merged().replace(b"\n", b"\r\n"))
                conn.sock.sendall(prompt)


def _framebuffer(device: "VirtualDevice") -> bytes:
    """adbd's framebuffer service (framebuffer_service.cpp): screencap's pixels behind a DDMS raw-image header,
    version 2: bpp, colour space, size, width, height, then offset and length of red, blue, green and alpha."""
    with device.lock:
        device.run_due()
        raw = screencap_raw(device)
    width, height, _fmt, colour_space = struct.unpack_from("<IIII", raw)
    pixels = raw[16:]
    header = struct.pack("<14I", 2, 32, colour_space, len(pixels), width, height, 0, 8, 16, 8, 8, 8, 24, 8)
    return header + pixels


def _argv(cmd: str) -> list[str] | None:
    """A command line's words as sh would split a simple command (None when it is not one shlex can read). Only
    an install reads stdin this way, so any other command is not split at all."""
    if "install" not in cmd:
        return None
    try:
        return shlex.split(cmd)
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------------------------
# sync: (v1): STAT, LIST, RECV, SEND, QUIT

S_IFREG, S_IFDIR = 0o100000, 0o040000


def _root_service(device: "VirtualDevice", root: bool) -> bytes:
    """adbd's answers to `adb root`/`adb unroot` (its restart_root_service and restart_unroot_service): a
    debuggable build (ro.debuggable=1, as a userdebug one) switches; the next shell runs as the new user. Real adbd
    restarts to switch, dropping this connection; here the switch is immediate and the device stays listed."""
    with device.lock:
        if root:
            if device.adbd_root:
                return b"adbd is already running as root\n"
            if device.props.get("ro.debuggable") != "1":
                return b"adbd cannot run as root in production builds\n"
            device.set_adbd_root(True)
            return b"restarting adbd as root\n"
        if not device.adbd_root:
            return b"adbd not running as root\n"
        device.set_adbd_root(False)
        return b"restarting adbd as non root\n"


def serve_sync(conn: Conn, device: "VirtualDevice") -> None:
    mtime = int(device.clock.boot_wall)
    while True:
        head = conn.recv_exact(8)
        ident, length = head[:4], struct.unpack("<I", head[4:])[0]
        if ident == b"QUIT":
            return
        if ident not in (b"STAT", b"LIST", b"RECV", b"SEND"):
            raise ProtocolError(f"unknown sync request {ident!r}")
        if length > 4096:
            raise ProtocolError(f"sync path too long ({length} bytes)")
        raw_path = conn.recv_exact(length).decode("utf-8", errors="replace")
        with device.lock:
            device.run_due()
            if ident == b"STAT":
                path = fs_norm(raw_path)
                if fs_isdir(device, path):
                    conn.sock.sendall(b"STAT" + struct.pack("<III", S_IFDIR | 0o771, 4096, mtime))
                else:
                    data = fs_read(device, path)
                    if data is None:
                        conn.sock.sendall(b"STAT" + struct.pack("<III", 0, 0, 0))
                    else:
                        conn.sock.sendall(b"STAT" + struct.pack("<III", S_IFREG | 0o660, len(data), mtime))
            elif ident == b"LIST":
                path = fs_norm(raw_path)
                out = bytearray()
                names = fs_listdir(device, path) or []
                for name in [".", ".."] + names:
                    full = path if name in (".", "..") else path.rstrip("/") + "/" + name
                    if fs_isdir(device, full):
                        mode, size = S_IFDIR | 0o771, 4096
                    else:
                        mode, size = S_IFREG | 0o660, len(fs_read(device, full) or b"")
                    enc = name.encode()
                    out += b"DENT" + struct.pack("<IIII", mode, size, mtime, len(enc)) + enc
                out += b"DONE" + struct.pack("<IIII", 0, 0, 0, 0)
                conn.sock.sendall(bytes(out))
            elif ident == b"RECV":
                path = fs_norm(raw_path)
                data = None if fs_isdir(device, path) else fs_read(device, path)
                if data is None:
                    msg = b"Is a directory" if fs_isdir(device, path) else b"No such file or directory"
                    conn.sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                    continue
                out = bytearray()
                for i in range(0, len(data), SYNC_DATA_MAX):
                    piece = data[i:i + SYNC_DATA_MAX]
                    out += b"DATA" + struct.pack("<I", len(piece)) + piece
                out += b"DONE" + struct.pack("<I", 0)
                conn.sock.sendall(bytes(out))
        if ident == b"SEND":
            # the file's content follows as DATA chunks, ended by DONE + mtime; read it without the device lock
            path_part = raw_path.rsplit(",", 1)[0] if "," in raw_path else raw_path
            chunks = []
            while True:
                h = conn.recv_exact(8)
                kind, n = h[:4], struct.unpack("<I", h[4:])[0]
                if kind == b"DATA":
                    if n > SYNC_DATA_MAX:
                        raise ProtocolError(f"sync DATA chunk too large ({n} bytes)")
                    chunks.append(conn.recv_exact(n))
                elif kind == b"DONE":
                    break
                else:
                    raise ProtocolError(f"unexpected {kind!r} while receiving a file")
            with device.lock:
                path = fs_norm(path_part)
                if fs_isdir(device, path):
                    msg = b"Is a directory"
                elif not fs_writable(path):
                    msg = b"couldn't create file: Read-only file system" if path.startswith("/system") \
                        else b"couldn't create file: Permission denied"
                else:
                    parent = path.rsplit("/", 1)[0]
                    # fixed_push_mkdir: adbd creates missing parent folders
                    while parent and parent not in device.dirs and fs_writable(parent + "/"):
                        device.dirs.add(parent)
                        parent = parent.rsplit("/", 1)[0]
                    msg = b"" if fs_write(device, path, b"".join(chunks), append=False) \
                        else b"couldn't create file: Permission denied"
            if msg:
                conn.sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
            else:
                conn.sock.sendall(b"OKAY" + struct.pack("<I", 0))
