"""Tool failures in Mobium's wire shape: {code, message, remedy, retryable, details}.

A tool raises `MobiumError`; the server turns it into a normal result with isError true (never a protocol error),
whose one text block is the message and whose structuredContent is the payload."""

from __future__ import annotations

from typing import Any

# Mobium's stable error codes. Only `timeout` is retryable by default.
CODES = frozenset({
    "no_device", "device_not_ready", "toolchain_missing", "no_such_element", "ambiguous_locator",
    "element_not_reachable", "no_such_context", "no_such_alert", "unsupported", "timeout", "not_confirmed",
    "invalid_argument", "device_server", "internal", "error",
})


class MobiumError(Exception):
    def __init__(self, code: str, message: str, remedy: str = "", details: dict[str, Any] | None = None,
                 retryable: bool | None = None):
        assert code in CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.remedy = remedy
        self.details = details or {}
        self.retryable = (code == "timeout") if retryable is None else retryable

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.remedy:
            out["remedy"] = self.remedy
        out["retryable"] = self.retryable
        if self.details:
            out["details"] = self.details
        return out


def invalid(message: str, remedy: str = "", **details: Any) -> MobiumError:
    return MobiumError("invalid_argument", message, remedy, details or None)


def failed_check(subject: str, check: str, reason: str, advice: str, *, code: str, remedy: str,
                 **details: Any) -> MobiumError:
    """Mobium's unified refusal for a target that was found but may not be acted on."""
    return MobiumError(code, f"{subject} failed check {check}: {reason} — {advice}", remedy,
                       {"check": check, "reason": reason, **details})


KEYBOARD_HIDE = ("hide it first: `mobium keyboard --hide` (app_keyboard with hide); on an iPhone, which has no hide "
                 "key, `mobium keyboard --key enter` (app_keyboard with key \"enter\")")
KEYBOARD_REMEDY = "hide the keyboard: app_keyboard with hide, or with key \"enter\" on an iPhone"
