"""What the dumpsys sections share: the display id, the permission flag order, the time stamp and boolean shapes."""

from __future__ import annotations

import time
import zlib

DISPLAY_UID = "local:4619827259835644672"
FLAG_ORDER = ("GRANTED_BY_DEFAULT", "USER_SET", "USER_FIXED", "POLICY_FIXED", "REVIEW_REQUIRED",
              "USER_SENSITIVE_WHEN_GRANTED", "USER_SENSITIVE_WHEN_DENIED", "RESTRICTION_UPGRADE_EXEMPT",
              "ONE_TIME")


def stamp(wall: float, ms: bool = False) -> str:
    s = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(wall))
    return s + (f".{int((wall % 1) * 1000):03d}" if ms else "")


def boolean(v: bool) -> str:
    return "true" if v else "false"


def stable_hash(s: str) -> str:
    return "%07x" % (zlib.crc32(s.encode()) & 0xFFFFFFF)
