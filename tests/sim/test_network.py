"""The network interfaces as toybox's ifconfig and iproute2's ip print them, following Wi-Fi on and off."""

from __future__ import annotations

WLAN0_IFCONFIG_HEAD = (
    "wlan0     Link encap:Ethernet  HWaddr 02:15:b2:00:00:00\n"
    "          inet addr:10.0.2.16  Bcast:10.0.2.255  Mask:255.255.255.0 \n"
    "          inet6 addr: fe80::15:b2ff:fe00:0/64 Scope: Link\n"
    "          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n"
    "          RX packets:")


def test_ifconfig_wlan0_as_toybox_prints_it(sh):
    out = sh.out("ifconfig wlan0")
    assert out.startswith(WLAN0_IFCONFIG_HEAD) and out.endswith(" \n\n")
    lines = out.splitlines()
    assert lines[5].startswith("          TX packets:") and lines[6] == "          collisions:0 txqueuelen:1000 "
    assert sh.out("ifconfig").startswith("lo        Link encap:Local Loopback  \n          inet addr:127.0.0.1  "
                                         "Mask:255.0.0.0 \n")
    assert sh("ifconfig eth9") == ("", "ifconfig: eth9: No such device\n", 1)


def test_ip_addr_and_route(sh):
    assert sh.out("ip addr show dev wlan0") == (
        "4: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
        "    link/ether 02:15:b2:00:00:00 brd ff:ff:ff:ff:ff:ff\n"
        "    inet 10.0.2.16/24 brd 10.0.2.255 scope global wlan0\n"
        "       valid_lft forever preferred_lft forever\n"
        "    inet6 fe80::15:b2ff:fe00:0/64 scope link \n"
        "       valid_lft forever preferred_lft forever\n")
    assert "link/" not in sh.out("ip -4 addr") and "inet 127.0.0.1/8 scope host lo" in sh.out("ip -4 addr")
    assert sh.out("ip route") == "10.0.2.0/24 dev wlan0 proto kernel scope link src 10.0.2.16 \n"
    assert sh("ip addr show dev nope") == ("", 'Device "nope" does not exist.\n', 1)


def test_wifi_off_takes_wlan0_down_and_its_address_away(sh):
    sh.out("svc wifi disable")
    assert "wlan0" not in sh.out("ifconfig")
    assert "inet addr" not in sh.out("ifconfig wlan0") and "UP" not in sh.out("ifconfig wlan0")
    assert sh.out("ip addr show wlan0").startswith("4: wlan0: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN")
    assert sh.out("ip route") == ""
    sh.out("svc wifi enable")
    assert "inet addr:10.0.2.16" in sh.out("ifconfig wlan0")
