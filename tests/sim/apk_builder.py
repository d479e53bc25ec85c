"""Tiny APKs for tests: a zip holding an AndroidManifest.xml encoded in Android's binary XML, written here from the
format (ResourceTypes.h), independently of the reader the virtual device uses.

    build_apk(manifest("dev.example.tiny", version_code=3, version_name="1.2", activities=[...]))
"""

from __future__ import annotations

import io
import struct
import zipfile

ANDROID_NS = "http://schemas.android.com/apk/res/android"
# android.R.attr ids of the attributes these manifests use (the resource map names them so)
ATTR_IDS = {"label": 0x01010001, "name": 0x01010003, "exported": 0x01010010, "targetPackage": 0x01010021,
            "handleProfiling": 0x01010022, "functionalTest": 0x01010023, "minSdkVersion": 0x0101020C,
            "versionCode": 0x0101021B, "versionName": 0x0101021C, "targetActivity": 0x01010202,
            "targetSdkVersion": 0x01010270, "permission": 0x01010006, "resource": 0x01010025}
TYPE_REFERENCE, TYPE_STRING, TYPE_INT_DEC, TYPE_INT_BOOLEAN = 0x01, 0x03, 0x10, 0x12


class Ref(int):
    """An attribute value that is a resource reference (@0x7f…)."""


class El:
    """An element: tag, attributes ({"android:name": value} or {"package": value}), children."""

    def __init__(self, tag: str, attrs: dict | None = None, children: list["El"] | None = None):
        self.tag, self.attrs, self.children = tag, attrs or {}, children or []


def manifest(package: str, *, version_code: int = 1, version_name: str | None = "1.0", min_sdk: int = 24,
             target_sdk: int = 34, permissions: tuple[str, ...] = (), activities: list[El] = (),
             instrumentations: list[El] = (), split: str | None = None, blank_names: bool = False,
             label: "str | Ref" = "Tiny") -> El:
    attrs = {"package": package, "android:versionCode": version_code}
    if version_name is not None:
        attrs["android:versionName"] = version_name
    if split is not None:
        attrs["split"] = split
    root = El("manifest", attrs, [El("uses-sdk", {"android:minSdkVersion": min_sdk,
                                                  "android:targetSdkVersion": target_sdk})])
    root.children += [El("uses-permission", {"android:name": p}) for p in permissions]
    root.children += list(instrumentations)
    root.children.append(El("application", {"android:label": label}, list(activities)))
    root.blank_names = blank_names
    return root


def activity(name: str, *filters: tuple[list[str], list[str]], exported: bool | None = None) -> El:
    attrs = {"android:name": name}
    if exported is not None:
        attrs["android:exported"] = exported
    children = [El("intent-filter", {}, [El("action", {"android:name": a}) for a in actions]
                   + [El("category", {"android:name": c}) for c in categories]) for actions, categories in filters]
    return El("activity", attrs, children)


def launcher_activity(name: str) -> El:
    return activity(name, (["android.intent.action.MAIN"], ["android.intent.category.LAUNCHER"]))


def instrumentation(name: str, target: str) -> El:
    return El("instrumentation", {"android:name": name, "android:targetPackage": target,
                                  "android:label": f"Tests for {target}"})


def _chunk(kind: int, header: bytes, body: bytes) -> bytes:
    return struct.pack("<HHI", kind, 8 + len(header), 8 + len(header) + len(body)) + header + body


def encode(root: El, *, utf8: bool = False) -> bytes:
    """The element tree as binary XML: string pool (android attribute names first, for the resource map), resource
    map, namespace, elements."""
    blank = getattr(root, "blank_names", False)
    strings: list[str] = []

    def sid(s: str) -> int:
        if s not in strings:
            strings.append(s)
        return strings.index(s)

    def walk(e: El):
        yield e
        for c in e.children:
            yield from walk(c)

    android_names = sorted({k.split(":", 1)[1] for e in walk(root) for k in e.attrs if k.startswith("android:")},
                           key=lambda n: ATTR_IDS[n])
    for n in android_names:
        strings.append("" if blank else n)
    if blank:
        # blanked names are all "", so give each its own slot by index
        name_index = {n: i for i, n in enumerate(android_names)}
    else:
        name_index = {n: strings.index(n) for n in android_names}
    sid("android"), sid(ANDROID_NS)

    nodes = bytearray()
    node_header = struct.pack("<II", 1, 0xFFFFFFFF)
    ns_body = struct.pack("<II", sid("android"), sid(ANDROID_NS))
    nodes += _chunk(0x0100, node_header, ns_body)

    def emit(e: El) -> None:
        attrs = bytearray()
        items = sorted(e.attrs.items(), key=lambda kv: ATTR_IDS.get(kv[0].split(":", 1)[-1], 1 << 32))
        for key, value in items:
            if key.startswith("android:"):
                ns, name = sid(ANDROID_NS), name_index[key.split(":", 1)[1]]
            else:
                ns, name = 0xFFFFFFFF, sid(key)
            if isinstance(value, Ref):
                raw, vtype, data = 0xFFFFFFFF, TYPE_REFERENCE, int(value)
            elif isinstance(value, bool):
                raw, vtype, data = 0xFFFFFFFF, TYPE_INT_BOOLEAN, 0xFFFFFFFF if value else 0
            elif isinstance(value, int):
                raw, vtype, data = 0xFFFFFFFF, TYPE_INT_DEC, value & 0xFFFFFFFF
            else:
                raw = sid(str(value))
                vtype, data = TYPE_STRING, raw
            attrs += struct.pack("<IIIHBBI", ns, name, raw, 8, 0, vtype, data)
        ext = struct.pack("<IIHHHHHH", 0xFFFFFFFF, sid(e.tag), 20, 20, len(items), 0, 0, 0)
        nodes.extend(_chunk(0x0102, node_header, ext + bytes(attrs)))
        for c in e.children:
            emit(c)
        nodes.extend(_chunk(0x0103, node_header, struct.pack("<II", 0xFFFFFFFF, sid(e.tag))))

    emit(root)
    nodes += _chunk(0x0101, node_header, ns_body)

    data = bytearray()
    offsets = []
    for s in strings:
        offsets.append(len(data))
        if utf8:
            raw = s.encode("utf-8")
            data += bytes([len(s), len(raw)]) + raw + b"\0"
        else:
            data += struct.pack("<H", len(s)) + s.encode("utf-16-le") + b"\0\0"
    while len(data) % 4:
        data += b"\0"
    pool_header = struct.pack("<IIIII", len(strings), 0, (1 << 8) if utf8 else 0, 28 + 4 * len(strings), 0)
    pool = _chunk(0x0001, pool_header, struct.pack(f"<{len(offsets)}I", *offsets) + bytes(data))
    resmap = _chunk(0x0180, b"", struct.pack(f"<{len(android_names)}I", *(ATTR_IDS[n] for n in android_names)))
    body = pool + resmap + bytes(nodes)
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def _pool(strings: list[str]) -> bytes:
    data, offsets = bytearray(), []
    for text in strings:
        offsets.append(len(data))
        data += struct.pack("<H", len(text)) + text.encode("utf-16-le") + b"\0\0"
    while len(data) % 4:
        data += b"\0"
    header = struct.pack("<IIIII", len(strings), 0, 0, 28 + 4 * len(strings), 0)
    return _chunk(0x0001, header, struct.pack(f"<{len(offsets)}I", *offsets) + bytes(data))


def arsc(strings: dict[int, dict[str, str]]) -> bytes:
    """A resources.arsc of package 0x7f holding string resources: {res_id: {locale ("" default): text}}, each
    type of the ids one RES_TABLE_TYPE_TYPE chunk per locale."""
    values: list[str] = []
    chunks = bytearray()
    by_type: dict[int, dict[str, dict[int, str]]] = {}
    for res_id, texts in strings.items():
        for locale, text in texts.items():
            by_type.setdefault((res_id >> 16) & 0xFF, {}).setdefault(locale, {})[res_id & 0xFFFF] = text
    for type_id, locales in sorted(by_type.items()):
        for locale, entries in locales.items():
            count = max(entries) + 1
            config = struct.pack("<I", 64) + b"\0" * 4 + locale.encode().ljust(2, b"\0")[:2] + b"\0" * 54
            offsets, body = [], bytearray()
            for index in range(count):
                if index not in entries:
                    offsets.append(0xFFFFFFFF)
                    continue
                offsets.append(len(body))
                values.append(entries[index])
                body += struct.pack("<HHI", 8, 0, 0) + struct.pack("<HBBI", 8, 0, TYPE_STRING, len(values) - 1)
            header = struct.pack("<BBHII", type_id, 0, 0, count, 84 + 4 * count) + config
            chunks += _chunk(0x0201, header, struct.pack(f"<{count}I", *offsets) + bytes(body))
    package_header = struct.pack("<I", 0x7F) + "tiny".encode("utf-16-le").ljust(256, b"\0") + b"\0" * 20
    package = _chunk(0x0200, package_header, bytes(chunks))
    return _chunk(0x0002, struct.pack("<I", 1), _pool(values) + package)


def build_apk(root: El, *, utf8: bool = False, extra: dict[str, bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", encode(root, utf8=utf8))
        z.writestr("classes.dex", b"dex\n035\0")
        for name, content in (extra or {}).items():
            z.writestr(name, content)
    return buf.getvalue()
