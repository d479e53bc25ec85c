"""The network interfaces as the shell shows them: toybox's `ifconfig` and iproute2's `ip` (`ip addr`, `ip link`,
`ip route`), Android ships both.

The interfaces are `lo` and `wlan0`, an Android 15 emulator's emulated Wi-Fi (10.0.2.16/24, the address the
emulator's virtual router hands it), up with its address while Wi-Fi is on and down without one when it is off (the
cellular link is not modelled). The formats
follow the tools' sources: toybox ifconfig.c (display_ifconfig: `%-9s Link encap:%s  HWaddr …`, the `inet addr:`
line, flags, then the /proc/net/dev counters) and iproute2's ipaddress.c (`N: NAME: <FLAGS> mtu …`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Ctx, command

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice


@dataclass(frozen=True)
class Interface:
    index: int
    name: str
    mac: str | None
    ipv4: str | None
    prefix: int
    ipv6_link: str | None
    up: bool
    mtu: int
    qlen: int

    @property
    def loopback(self) -> bool:
        return self.mac is None

    @property
    def broadcast(self) -> str | None:
        if self.ipv4 is None or self.loopback:
            return None
        return ".".join(self.ipv4.split(".")[:3] + ["255"])

    @property
    def netmask(self) -> str:
        bits = (0xFFFFFFFF << (32 - self.prefix)) & 0xFFFFFFFF
        return ".".join(str(bits >> s & 0xFF) for s in (24, 16, 8, 0))


def interfaces(device: "VirtualDevice") -> list[Interface]:
    wifi = device.wifi_enabled
    return [
        Interface(1, "lo", None, "127.0.0.1", 8, "::1", True, 65536, 1000),
        Interface(4, "wlan0", "02:15:b2:00:00:00", "10.0.2.16" if wifi else None, 24,
                  "fe80::15:b2ff:fe00:0" if wifi else None, wifi, 1500, 1000),
    ]


def _counters(device: "VirtualDevice", iface: Interface) -> tuple[int, int, int, int]:
    """RX/TX packets and bytes, growing with uptime while the interface is up (a quiet device's trickle)."""
    if not iface.up:
        return 0, 0, 0, 0
    seconds = int(device.now())
    weight = 1 if iface.name == "lo" else 3
    rx_packets, tx_packets = 40 + weight * seconds, 30 + weight * seconds // 2
    return rx_packets, tx_packets, rx_packets * 180, tx_packets * 120


def _ifconfig_block(device: "VirtualDevice", iface: Interface) -> str:
    lines = []
    head = f"{iface.name:<9} Link encap:{'Local Loopback' if iface.loopback else 'Ethernet'}  "
    if iface.mac:
        head += f"HWaddr {iface.mac}"
    lines.append(head)
    if iface.ipv4:
        addr = f"{' ' * 10}inet addr:{iface.ipv4} "
        if iface.broadcast:
            addr += f" Bcast:{iface.broadcast} "
        lines.append(addr + f" Mask:{iface.netmask} ")
    if iface.ipv6_link:
        scope = "Host" if iface.loopback else "Link"
        lines.append(f"{' ' * 10}inet6 addr: {iface.ipv6_link}/{128 if iface.loopback else 64} Scope: {scope}")
    flags = ["UP"] if iface.up else []
    if not iface.loopback:
        flags.append("BROADCAST")
    if iface.loopback:
        flags.append("LOOPBACK")
    if iface.up:
        flags.append("RUNNING")
    if not iface.loopback:
        flags.append("MULTICAST")
    rx_p, tx_p, rx_b, tx_b = _counters(device, iface)
    pad = " " * 10
    lines.append(f"{pad}{''.join(f + ' ' for f in flags)} MTU:{iface.mtu}  Metric:1")
    lines.append(f"{pad}RX packets:{rx_p} errors:0 dropped:0 overruns:0 frame:0 ")
    lines.append(f"{pad}TX packets:{tx_p} errors:0 dropped:0 overruns:0 carrier:0 ")
    lines.append(f"{pad}collisions:0 txqueuelen:{iface.qlen} ")
    lines.append(f"{pad}RX bytes:{rx_b} TX bytes:{tx_b} ")
    return "\n".join(lines) + "\n\n"


@command("ifconfig")
def _ifconfig(ctx: Ctx, args: list[str]) -> int:
    show_all = "-a" in args
    names = [a for a in args if not a.startswith("-")]
    ifaces = interfaces(ctx.device)
    if len(names) > 1:
        ctx.errln("ifconfig: ioctl 8914: Operation not permitted")  # changing an interface needs root + NET_ADMIN
        return 1
    if names:
        found = [i for i in ifaces if i.name == names[0]]
        if not found:
            ctx.errln(f"ifconfig: {names[0]}: No such device")
            return 1
        ctx.out(_ifconfig_block(ctx.device, found[0]))
        return 0
    for iface in ifaces:
        if iface.up or show_all:
            ctx.out(_ifconfig_block(ctx.device, iface))
    return 0


def _ip_flags(iface: Interface) -> str:
    if iface.loopback:
        return "<LOOPBACK,UP,LOWER_UP>"
    return "<BROADCAST,MULTICAST,UP,LOWER_UP>" if iface.up else "<BROADCAST,MULTICAST>"


def _ip_link_lines(iface: Interface) -> list[str]:
    state = "UNKNOWN" if iface.loopback else ("UP" if iface.up else "DOWN")
    qdisc = "noqueue" if iface.loopback else ("mq" if iface.up else "noop")
    lines = [f"{iface.index}: {iface.name}: {_ip_flags(iface)} mtu {iface.mtu} qdisc {qdisc} state {state} "
             f"group default qlen {iface.qlen}"]
    if iface.loopback:
        lines.append("    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00")
    else:
        lines.append(f"    link/ether {iface.mac} brd ff:ff:ff:ff:ff:ff")
    return lines


def _ip_addr_lines(iface: Interface, family: str | None) -> list[str]:
    # with a family filter (-4/-6) iproute2 leaves out the link-layer line
    lines = _ip_link_lines(iface) if family is None else _ip_link_lines(iface)[:1]
    if iface.ipv4 and family in (None, "inet"):
        brd = f" brd {iface.broadcast}" if iface.broadcast else ""
        scope = "host" if iface.loopback else "global"
        lines.append(f"    inet {iface.ipv4}/{iface.prefix}{brd} scope {scope} {iface.name}")
        lines.append("       valid_lft forever preferred_lft forever")
    if iface.ipv6_link and family in (None, "inet6"):
        lines.append(f"    inet6 {iface.ipv6_link}/{128 if iface.loopback else 64} "
                     f"scope {'host' if iface.loopback else 'link'} ")
        lines.append("       valid_lft forever preferred_lft forever")
    return lines


@command("ip")
def _ip(ctx: Ctx, args: list[str]) -> int:
    family = None
    rest = []
    for a in args:
        if a in ("-4", "-6"):
            family = "inet" if a == "-4" else "inet6"
        elif a.startswith("-f") or a in ("-o", "-br", "-c"):
            continue
        else:
            rest.append(a)
    obj = rest[0] if rest else ""
    if not obj:
        ctx.errln("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }")
        return 255
    verbs = rest[1:]
    if verbs and verbs[0] in ("show", "list", "ls", "lst", "sh"):
        verbs = verbs[1:]
    dev = None
    if verbs and verbs[0] == "dev" and len(verbs) > 1:
        dev = verbs[1]
    elif verbs and verbs[0] not in ("up", "scope", "to"):
        dev = verbs[0]
    ifaces = interfaces(ctx.device)
    if dev is not None:
        ifaces = [i for i in ifaces if i.name == dev]
        if not ifaces:
            ctx.errln(f'Device "{dev}" does not exist.')
            return 1
    if "address".startswith(obj) or obj == "addr":
        for iface in ifaces:
            if family is not None and not (iface.ipv4 if family == "inet" else iface.ipv6_link):
                continue
            ctx.out("".join(line + "\n" for line in _ip_addr_lines(iface, family)))
        return 0
    if "link".startswith(obj):
        for iface in ifaces:
            ctx.out("".join(line + "\n" for line in _ip_link_lines(iface)))
        return 0
    if "route".startswith(obj):
        # Android keeps per-network routing tables; the main table, which `ip route` shows, has the subnets only.
        for iface in interfaces(ctx.device):
            if iface.ipv4 and not iface.loopback:
                ctx.outln(f"10.0.2.0/{iface.prefix} dev {iface.name} proto kernel scope link src {iface.ipv4} ")
        return 0
    ctx.errln(f'Object "{obj}" is unknown, try "ip help".')
    return 1
