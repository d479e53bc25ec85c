"""Reading an APK the way the package manager does: the zip, and its AndroidManifest.xml in Android's binary XML.

Binary XML (frameworks/base/libs/androidfw ResourceTypes.h) is a sequence of chunks, each `type:u16 header_size:u16
size:u32`: the file chunk (RES_XML_TYPE) holds a string pool, an optional resource map (the resource id of each
attribute name, by string index), then namespace and element start/end nodes. An attribute carries its namespace
and name as string indexes, a raw string index, and a typed value (`size:u16 res0:u8 type:u8 data:u32`).

Only what installing needs is read: the package, its version, SDK levels, requested permissions, the activities
with their intent filters, and the instrumentation elements. Attribute names are read from the string pool, or from
the resource map when a shrinker blanked them. A label or versionName given as a resource (@string/app_name) is
looked up in resources.arsc (RES_TABLE_TYPE: the global string pool, then the package's type chunks), in the
default configuration when it has one.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass, field, replace

RES_STRING_POOL_TYPE = 0x0001
RES_XML_TYPE = 0x0003
RES_XML_START_NAMESPACE_TYPE = 0x0100
RES_XML_END_NAMESPACE_TYPE = 0x0101
RES_XML_START_ELEMENT_TYPE = 0x0102
RES_XML_END_ELEMENT_TYPE = 0x0103
RES_XML_CDATA_TYPE = 0x0104
RES_XML_RESOURCE_MAP_TYPE = 0x0180
RES_TABLE_TYPE = 0x0002
RES_TABLE_PACKAGE_TYPE = 0x0200
RES_TABLE_TYPE_TYPE = 0x0201
TYPE_FLAG_SPARSE, TYPE_FLAG_OFFSET16 = 0x01, 0x02
ENTRY_FLAG_COMPLEX, ENTRY_FLAG_COMPACT = 0x0001, 0x0008
UTF8_FLAG = 1 << 8
NO_INDEX = 0xFFFFFFFF

TYPE_NULL, TYPE_REFERENCE, TYPE_ATTRIBUTE, TYPE_STRING, TYPE_FLOAT = 0x00, 0x01, 0x02, 0x03, 0x04
TYPE_INT_DEC, TYPE_INT_HEX, TYPE_INT_BOOLEAN = 0x10, 0x11, 0x12

ANDROID_NS = "http://schemas.android.com/apk/res/android"
# The framework's attribute ids (android.R.attr) for the attributes read here, for manifests whose attribute names
# a shrinker blanked (the resource map still names them).
ANDROID_ATTRS = {
    0x01010001: "label", 0x01010003: "name", 0x01010010: "exported", 0x01010021: "targetPackage",
    0x01010022: "handleProfiling", 0x01010023: "functionalTest", 0x0101020C: "minSdkVersion",
    0x0101021B: "versionCode", 0x0101021C: "versionName", 0x01010202: "targetActivity",
    0x01010270: "targetSdkVersion", 0x010100D0: "enabled", 0x01010006: "permission", 0x01010025: "resource",
}
MAX_MANIFEST = 8 << 20


class ApkError(Exception):
    """The package manager's refusal: `code` is its INSTALL_… failure name, the message says what and where."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------------------------------------------
# binary XML

@dataclass
class XmlElement:
    tag: str
    attrs: dict[str, object] = field(default_factory=dict)  # local name -> str | int | bool | float | Reference
    children: list["XmlElement"] = field(default_factory=list)

    def iter(self, tag: str):
        for child in self.children:
            if child.tag == tag:
                yield child

    def get(self, name: str, default=None):
        return self.attrs.get(name, default)


@dataclass(frozen=True)
class Reference:
    """A resource reference (@0x7f0b0001): the value lives in resources.arsc."""
    res_id: int

    def __str__(self) -> str:
        return f"@0x{self.res_id:08x}"


def _bad(what: str) -> ApkError:
    return ApkError("INSTALL_PARSE_FAILED_MANIFEST_MALFORMED", f"AndroidManifest.xml: {what}")


def _string_pool(data: bytes, at: int, header_size: int, size: int) -> list[str]:
    if header_size < 28 or at + size > len(data):
        raise _bad(f"string pool at byte {at} is truncated")
    count, _styles, flags, strings_start, _styles_start = struct.unpack_from("<5I", data, at + 8)
    if count > size // 4:
        raise _bad(f"string pool at byte {at} claims {count} strings")
    offsets = struct.unpack_from(f"<{count}I", data, at + header_size)
    base = at + strings_start
    end = at + size
    utf8 = bool(flags & UTF8_FLAG)
    out = []
    for i, off in enumerate(offsets):
        p = base + off
        try:
            if utf8:
                # the UTF-16 length, then the UTF-8 byte length, each 1 byte (2 when the high bit is set)
                p += 2 if data[p] & 0x80 else 1
                n = data[p]
                if n & 0x80:
                    n = ((n & 0x7F) << 8) | data[p + 1]
                    p += 2
                else:
                    p += 1
                if p + n > end:
                    raise IndexError
                out.append(data[p:p + n].decode("utf-8", errors="replace"))
            else:
                n = struct.unpack_from("<H", data, p)[0]
                p += 2
                if n & 0x8000:
                    n = ((n & 0x7FFF) << 16) | struct.unpack_from("<H", data, p)[0]
                    p += 2
                if p + 2 * n > end:
                    raise IndexError
                out.append(data[p:p + 2 * n].decode("utf-16-le", errors="replace"))
        except (IndexError, struct.error):
            raise _bad(f"string {i} of the string pool runs past its end") from None
    return out


def parse_axml(data: bytes) -> XmlElement:
    """The document element of a binary XML file. ApkError when it is not binary XML or is malformed."""
    if len(data) < 8:
        raise _bad("too short to be binary XML")
    kind, header_size, size = struct.unpack_from("<HHI", data, 0)
    if kind != RES_XML_TYPE:
        raise _bad(f"not binary XML (chunk type 0x{kind:04x}, expected 0x0003)")
    end = min(size, len(data))
    strings: list[str] = []
    res_ids: list[int] = []
    stack: list[XmlElement] = []
    root: XmlElement | None = None
    at = header_size

    def string(index: int) -> str:
        if index == NO_INDEX:
            return ""
        if index >= len(strings):
            raise _bad(f"string index {index} out of range ({len(strings)} strings)")
        return strings[index]

    while at + 8 <= end:
        kind, header_size, size = struct.unpack_from("<HHI", data, at)
        if size < 8 or at + size > end or header_size > size:
            raise _bad(f"chunk at byte {at} has a bad size ({size})")
        if kind == RES_STRING_POOL_TYPE:
            strings = _string_pool(data, at, header_size, size)
        elif kind == RES_XML_RESOURCE_MAP_TYPE:
            res_ids = list(struct.unpack_from(f"<{(size - header_size) // 4}I", data, at + header_size))
        elif kind == RES_XML_START_ELEMENT_TYPE:
            body = at + header_size
            _ns, name, attr_start, attr_size, attr_count = struct.unpack_from("<IIHHH", data, body)
            element = XmlElement(string(name))
            for i in range(attr_count):
                a = body + attr_start + i * attr_size
                if a + 20 > at + size:
                    raise _bad(f"attribute {i} of <{element.tag}> runs past its element")
                a_ns, a_name, raw, _vsize, _res0, vtype, vdata = struct.unpack_from("<IIIHBBI", data, a)
                local = string(a_name)
                if not local and a_name < len(res_ids):
                    local = ANDROID_ATTRS.get(res_ids[a_name], f"0x{res_ids[a_name]:08x}")
                element.attrs[local] = _value(vtype, vdata, raw, string)
            if stack:
                stack[-1].children.append(element)
            elif root is None:
                root = element
            stack.append(element)
        elif kind == RES_XML_END_ELEMENT_TYPE:
            if not stack:
                raise _bad(f"an element ends at byte {at} that never started")
            stack.pop()
        # namespaces and CDATA carry nothing the package manager reads here
        at += size
    if root is None:
        raise _bad("no root element")
    return root


def _value(vtype: int, vdata: int, raw: int, string) -> object:
    if vtype == TYPE_STRING:
        return string(vdata)
    if vtype == TYPE_INT_BOOLEAN:
        return vdata != 0
    if vtype in (TYPE_INT_DEC, TYPE_INT_HEX):
        return vdata - (1 << 32) if vdata & 0x80000000 else vdata
    if vtype in (TYPE_REFERENCE, TYPE_ATTRIBUTE):
        return Reference(vdata)
    if vtype == TYPE_FLOAT:
        return struct.unpack("<f", struct.pack("<I", vdata))[0]
    if raw != NO_INDEX:
        return string(raw)
    return vdata


# ---------------------------------------------------------------------------------------------------------------
# resources.arsc: string values by resource id

def _table_chunks(data: bytes, start: int, end: int):
    at = start
    while at + 8 <= end:
        kind, header_size, size = struct.unpack_from("<HHI", data, at)
        if size < 8 or at + size > end:
            return
        yield at, kind, header_size, size
        at += size


def _entry_value(data: bytes, at: int, header_size: int, size: int, entry: int) -> tuple[int, int] | None:
    """(dataType, data) of entry `entry` in one RES_TABLE_TYPE_TYPE chunk, or None when it has none."""
    _tid, flags, _res0, count, entries_start = struct.unpack_from("<BBHII", data, at + 8)
    offsets = at + header_size
    offset = None
    if flags & TYPE_FLAG_SPARSE:
        for i in range(count):
            idx, off = struct.unpack_from("<HH", data, offsets + 4 * i)
            if idx == entry:
                offset = off * 4
                break
    elif entry < count:
        if flags & TYPE_FLAG_OFFSET16:
            raw = struct.unpack_from("<H", data, offsets + 2 * entry)[0]
            offset = None if raw == 0xFFFF else raw * 4
        else:
            raw = struct.unpack_from("<I", data, offsets + 4 * entry)[0]
            offset = None if raw == NO_INDEX else raw
    if offset is None:
        return None
    e = at + entries_start + offset
    if e + 8 > at + size:
        return None
    e_size, e_flags = struct.unpack_from("<HH", data, e)
    if e_flags & ENTRY_FLAG_COMPACT:
        return e_flags >> 8, struct.unpack_from("<I", data, e + 4)[0]
    if e_flags & ENTRY_FLAG_COMPLEX:
        return None  # a bag (style, plural, array): not a string
    _vsize, _res0, vtype, vdata = struct.unpack_from("<HBBI", data, e + e_size)
    return vtype, vdata


def resource_string(arsc: bytes, res_id: int, depth: int = 0) -> str | None:
    """The string resource `res_id` holds (following a reference or two), in the default configuration when the
    table has one, else the first that defines it; None when the table does not hold a string there."""
    if depth > 4 or len(arsc) < 12 or struct.unpack_from("<H", arsc, 0)[0] != RES_TABLE_TYPE:
        return None
    package_id, type_id, entry = res_id >> 24, (res_id >> 16) & 0xFF, res_id & 0xFFFF
    header_size, size = struct.unpack_from("<HI", arsc, 2)
    strings: list[str] = []
    candidates: list[tuple[bool, tuple[int, int]]] = []
    try:
        for at, kind, h, sz in _table_chunks(arsc, header_size, min(size, len(arsc))):
            if kind == RES_STRING_POOL_TYPE and not strings:
                strings = _string_pool(arsc, at, h, sz)
            elif kind == RES_TABLE_PACKAGE_TYPE and struct.unpack_from("<I", arsc, at + 8)[0] == package_id:
                for t_at, t_kind, t_h, t_sz in _table_chunks(arsc, at + h, at + sz):
                    if t_kind != RES_TABLE_TYPE_TYPE or arsc[t_at + 8] != type_id:
                        continue
                    value = _entry_value(arsc, t_at, t_h, t_sz, entry)
                    if value is not None:
                        config_size = struct.unpack_from("<I", arsc, t_at + 20)[0]
                        config = arsc[t_at + 24:t_at + 20 + config_size]
                        candidates.append((not any(config), value))
    except (struct.error, ApkError, IndexError):
        return None
    candidates.sort(key=lambda c: not c[0])  # the default configuration first
    for _default, (vtype, vdata) in candidates:
        if vtype == TYPE_STRING and vdata < len(strings):
            return strings[vdata]
        if vtype == TYPE_REFERENCE:
            return resource_string(arsc, vdata, depth + 1)
    return None


def _resolve_strings(element: XmlElement, arsc: bytes) -> None:
    """Labels and versionName given as @string references become their text, where the table holds it."""
    for name in ("label", "versionName"):
        value = element.attrs.get(name)
        if isinstance(value, Reference):
            text = resource_string(arsc, value.res_id)
            if text is not None:
                element.attrs[name] = text
    for child in element.children:
        _resolve_strings(child, arsc)


# ---------------------------------------------------------------------------------------------------------------
# the manifest

@dataclass(frozen=True)
class IntentFilter:
    actions: tuple[str, ...]
    categories: tuple[str, ...]
    schemes: tuple[str, ...] = ()
    mime_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActivityDecl:
    name: str                          # the full class name
    label: str | None
    exported: bool
    filters: tuple[IntentFilter, ...]
    target_activity: str | None = None  # an <activity-alias>'s target

    @property
    def launcher(self) -> bool:
        return any("android.intent.action.MAIN" in f.actions and "android.intent.category.LAUNCHER" in f.categories
                   for f in self.filters)


@dataclass(frozen=True)
class InstrumentationDecl:
    name: str            # the full class name (the runner)
    target_package: str
    label: str | None
    handle_profiling: bool
    functional_test: bool


@dataclass(frozen=True)
class ServiceDecl:
    name: str                          # the full class name
    label: str | None
    permission: str | None             # android:permission: what a caller must hold to bind it
    exported: bool
    filters: tuple[IntentFilter, ...]
    meta_data: tuple[str, ...] = ()    # its <meta-data> names
    # the attributes of the <input-method> element its android.view.im meta-data names (an input method's
    # description, res/xml/…), when the APK holds that XML; None when it names none or the XML is missing
    input_method: dict | None = None

    def handles(self, action: str) -> bool:
        return any(action in f.actions for f in self.filters)


@dataclass(frozen=True)
class Manifest:
    package: str
    version_code: int
    version_name: str | None
    min_sdk: int
    target_sdk: int
    label: str | None
    permissions: tuple[str, ...]       # <uses-permission> names, in manifest order
    activities: tuple[ActivityDecl, ...]
    instrumentations: tuple[InstrumentationDecl, ...]
    split: str | None = None           # a split APK's name (<manifest split="…">)
    services: tuple[ServiceDecl, ...] = ()


def _class_name(package: str, name: str) -> str:
    """A component's class as the package manager resolves android:name: `.X` and a bare `X` are in the
    package."""
    if name.startswith("."):
        return package + name
    if "." not in name:
        return f"{package}.{name}"
    return name


def _text(value) -> str | None:
    if value is None:
        return None
    return str(value)


def _int(value, default: int) -> int:
    if isinstance(value, bool) or value is None:
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return default


def _filters(element: XmlElement) -> tuple[IntentFilter, ...]:
    out = []
    for f in element.iter("intent-filter"):
        actions = tuple(_text(a.get("name")) or "" for a in f.iter("action"))
        categories = tuple(_text(c.get("name")) or "" for c in f.iter("category"))
        schemes = tuple(str(d.get("scheme")) for d in f.iter("data") if d.get("scheme") is not None)
        mimes = tuple(str(d.get("mimeType")) for d in f.iter("data") if d.get("mimeType") is not None)
        out.append(IntentFilter(actions, categories, schemes, mimes))
    return tuple(out)


def manifest_of(root: XmlElement) -> Manifest:
    if root.tag != "manifest":
        raise _bad(f"the root element is <{root.tag}>, expected <manifest>")
    package = _text(root.get("package"))
    if not package or "." not in package:
        raise ApkError("INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME",
                       f"AndroidManifest.xml: bad package name '{package or ''}'")
    sdk = next(root.iter("uses-sdk"), None)
    min_sdk = _int(sdk.get("minSdkVersion") if sdk else None, 1)
    target_sdk = _int(sdk.get("targetSdkVersion") if sdk else None, min_sdk)
    permissions = tuple(dict.fromkeys(
        str(p.get("name")) for tag in ("uses-permission", "uses-permission-sdk-23") for p in root.iter(tag)
        if p.get("name") is not None))
    app = next(root.iter("application"), XmlElement("application"))
    activities = []
    for tag in ("activity", "activity-alias"):
        for a in app.iter(tag):
            if a.get("name") is None:
                raise _bad(f"<{tag}> without android:name")
            filters = _filters(a)
            exported = a.get("exported")
            target = a.get("targetActivity")
            activities.append(ActivityDecl(
                _class_name(package, str(a.get("name"))), _text(a.get("label")),
                bool(filters) if exported is None else bool(exported), filters,
                _class_name(package, str(target)) if target is not None else None))
    instrumentations = []
    for i in root.iter("instrumentation"):
        if i.get("name") is None or i.get("targetPackage") is None:
            raise _bad("<instrumentation> needs android:name and android:targetPackage")
        instrumentations.append(InstrumentationDecl(
            _class_name(package, str(i.get("name"))), str(i.get("targetPackage")), _text(i.get("label")),
            bool(i.get("handleProfiling", False)), bool(i.get("functionalTest", False))))
    services = []
    for svc in app.iter("service"):
        if svc.get("name") is None:
            continue
        filters = _filters(svc)
        exported = svc.get("exported")
        services.append(ServiceDecl(
            _class_name(package, str(svc.get("name"))), _text(svc.get("label")), _text(svc.get("permission")),
            bool(filters) if exported is None else bool(exported), filters,
            tuple(str(m.get("name")) for m in svc.iter("meta-data") if m.get("name") is not None)))
    version_name = root.get("versionName")
    return Manifest(package, _int(root.get("versionCode"), 0),
                    None if version_name is None else str(version_name), min_sdk, target_sdk,
                    _text(app.get("label")), permissions, tuple(activities), tuple(instrumentations),
                    _text(root.get("split")), tuple(services))


@dataclass(frozen=True)
class Apk:
    manifest: Manifest
    data: bytes


def read_apk(data: bytes, where: str = "the APK") -> Apk:
    """The APK's manifest, as PackageParser reads it; ApkError (with Android's failure code) when it is no APK."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        raise ApkError("INSTALL_PARSE_FAILED_NOT_APK", f"{where} is not a zip archive") from None
    with archive:
        try:
            info = archive.getinfo("AndroidManifest.xml")
        except KeyError:
            raise ApkError("INSTALL_PARSE_FAILED_BAD_MANIFEST",
                           f"{where} has no AndroidManifest.xml") from None
        if info.file_size > MAX_MANIFEST:
            raise _bad(f"{info.file_size} bytes is too large")
        try:
            raw = archive.read(info)
            arsc = archive.read("resources.arsc") if "resources.arsc" in archive.namelist() else b""
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ApkError("INSTALL_PARSE_FAILED_NOT_APK", f"{where}: cannot read AndroidManifest.xml: {exc}") \
                from None
        root = parse_axml(raw)
        if arsc:
            _resolve_strings(root, arsc)
        manifest = manifest_of(root)
        services = tuple(_with_input_method(svc, root, archive, arsc) for svc in manifest.services)
    return Apk(replace(manifest, services=services), data)


INPUT_METHOD_META = "android.view.im"


def _with_input_method(svc: ServiceDecl, root: XmlElement, archive: zipfile.ZipFile, arsc: bytes) -> ServiceDecl:
    """The service with the <input-method> element its android.view.im meta-data names, read from the APK's XML."""
    if INPUT_METHOD_META not in svc.meta_data or not arsc:
        return svc
    app = next(root.iter("application"), XmlElement("application"))
    decl = next((s for s in app.iter("service") if _class_name(str(root.get("package")), str(s.get("name")))
                 == svc.name), None)
    meta = next((m for m in decl.iter("meta-data") if m.get("name") == INPUT_METHOD_META), None) if decl else None
    ref = meta.get("resource") if meta is not None else None
    path = resource_string(arsc, ref.res_id) if isinstance(ref, Reference) else None
    try:
        element = parse_axml(archive.read(path)) if path else None
    except (KeyError, zipfile.BadZipFile, OSError, ApkError):
        element = None
    if element is None or element.tag != "input-method":
        return svc
    return replace(svc, input_method={k: v for k, v in element.attrs.items() if not isinstance(v, Reference)})
