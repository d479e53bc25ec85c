"""A run's facts in words (seed, devices, Mobium, surface, plugin: `run_facts`) and a rate as a percentage, said the
same way by report.md, the step summary, the HTML report, compare, runs and the Inspect export."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable, Optional

if TYPE_CHECKING:
    from pytest_mobium_evals.core.run_record import RunRecord
    from pytest_mobium_evals.runfolder.reading import Run


def fmt_pct(value: Optional[float]) -> str:
    return "–" if value is None else f"{round(100 * value)}%"


def describe_commit(commit, dirty) -> str:
    """"0123456789ab", "0123456789ab (dirty)", or "unknown (not a git checkout)": without a commit, whether the
    tree was dirty is unknown too."""
    if not commit:
        return "unknown (not a git checkout)"
    commit = str(commit)
    short = commit[:12] if len(commit) >= 12 and all(c in "0123456789abcdef" for c in commit) else commit
    return short + (" (dirty)" if dirty else "" if dirty is False else " (dirty: unknown)")


def describe_mobium(record: RunRecord) -> str:
    mobium = record.mobium
    if isinstance(mobium, dict):
        return describe_commit(mobium.get("commit"), mobium.get("dirty"))
    return str(mobium) if mobium else "unknown"


DEVICE_KINDS = {"virtual": "virtual device (pytest-mobium-evals)", "emulator": "Android emulator",
                "physical": "physical device"}


def describe_device(record: RunRecord, short: bool = False) -> str:
    """The device a run used: serial, model, Android release and API level, and (unless short) its system image."""
    return device_text(record.device, short)


def run_devices(record: RunRecord) -> list:
    """Every device the run's processes leased (one per xdist worker), once each; older records: the one."""
    devices = [d for d in record.devices or [] if d] or ([record.device] if record.device else [])
    seen: dict[str, Any] = {}
    for d in devices:
        seen.setdefault(json.dumps(d, sort_keys=True) if isinstance(d, dict) else str(d), d)
    return list(seen.values())


def describe_devices(record: RunRecord, short: bool = True) -> str:
    """The devices a run used: one as describe_device says it; several grouped by what they are, each group with the
    ADB servers its devices sit behind (virtual devices share a serial): "2 × virtual device …, emulator-5554,
    Android 15 (API 35), at 127.0.0.1:41935 and 127.0.0.1:35925"."""
    devices = run_devices(record)
    if not devices:
        return "not recorded"
    if len(devices) == 1:
        return device_text(devices[0], short)
    groups: dict[str, list[str]] = {}
    for d in devices:
        groups.setdefault(device_text(d, short), []).append(str(d.get("adb")) if isinstance(d, dict) and
                                                            d.get("adb") else "")
    return "; ".join(f"{len(where)} × {what}" + (f", at {' and '.join(filter(None, where))}" if any(where) else "")
                     for what, where in groups.items())


def device_text(device, short: bool = False) -> str:
    if isinstance(device, dict):
        kind = DEVICE_KINDS.get(str(device.get("kind")))
        parts = ([kind] if kind else []) + [str(device[k]) for k in ("name", "serial", "model") if device.get(k)]
        if device.get("release"):
            parts.append(f"Android {device['release']}" + (f" (API {device['sdk']})" if device.get("sdk") else ""))
        if device.get("image") and not short:
            parts.append(str(device["image"]))
        return ", ".join(dict.fromkeys(parts)) if parts else json.dumps(device, sort_keys=True)
    return str(device) if device else "unknown"


def surface_fact(record: RunRecord) -> str:
    """Which surface the agent saw, for every report's facts."""
    names = record.surfaces or []
    server = "Mobium's own (mobium mcp)" if (record.tool_server or "").startswith("mobium mcp") else \
        "the built-in server's own words (not Mobium's text)"
    if not names:
        return f"{server}, unchanged (no --surface)"
    return f"variants {', '.join(names)} applied by the surface proxy over {server}"


def describe_app(record: RunRecord) -> Optional[str]:
    device = record.device
    if isinstance(device, dict) and device.get("app_build"):
        return f"{device.get('app') or 'app'} {device['app_build']}"
    return record.mobiumapp


def join(items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(items) if items else "none"


def run_facts(run_: Run) -> list[tuple[str, str]]:
    """The run's facts, one (name, value) each: the summary's facts table and the Environment table."""
    rec = run_.record
    device = rec.device if isinstance(rec.device, dict) else {}
    mobium = rec.mobium
    if mobium == "built-in" or not mobium:
        mobium_text = "the built-in Mobium-compatible server (mobium-evals mcp), not a Mobium build"
    else:
        mobium_text = f"Mobium commit {describe_mobium(rec)}" + (
            f" ({mobium.get('binary')})" if isinstance(mobium, dict) and mobium.get("binary") else "")
    efforts = rec.efforts or {}
    models = ", ".join(f"{m}" + (f" ({efforts[m]} effort)" if efforts.get(m) else "") for m in rec.models
                       or []) or "none (controls only)"
    tasks = run_.task_ids
    devices = run_devices(rec)
    facts = [("Seed", str(rec.seed)), ("Run folder", str(run_.path)),
             ("Started", str(rec.started or "unknown")),
             ("Ended", str(rec.ended or "not finished (no end recorded)")),
             ("Devices" if len(devices) > 1 else "Device", describe_devices(rec)),
             ("System image", str(device.get("image") or "unknown")),
             ("Mobium", mobium_text), ("Surface", surface_fact(rec)),
             ("Drivers", ", ".join(rec.drivers or []) or "unknown"),
             ("Models", models), ("Repeats", str(rec.repeats)),
             ("Tasks", f"{len(tasks)}: " + ", ".join(tasks) if tasks else "unknown"),
             ("Suites", ", ".join(rec.suites or []) or "unknown"),
             ("Plugin", f"{rec.plugin} {rec.plugin_version or '?'}, commit "
                        f"{describe_commit(rec.plugin_commit, rec.plugin_dirty)}")]
    app = describe_app(rec)
    if app:
        facts.insert(6, ("App", app))
    return facts
