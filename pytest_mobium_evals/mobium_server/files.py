"""Files to and from the folder the device keeps downloads in: app_upload (push, size read back, media scan) and
app_download (a listing, or one file pulled back, size checked against the device's)."""

from __future__ import annotations

import base64
import io
import os
import re
import shlex

from .errors import MobiumError, invalid
from .tool_state import DeviceState, Result

DOWNLOAD = "/sdcard/Download"
LS_LINE = re.compile(r"^[-l][rwxsStT-]{9}\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s+(\d{4}-\d\d-\d\d \d\d:\d\d)\s+(.+)$")


def file_name(name: str) -> str:
    if not name or "/" in name or name in (".", "..") or ".." in name:
        raise invalid(f'"{name}" is not a file name — a name, not a path: files go in the folder the device keeps '
                      "downloads in")
    return name


class FileTools:
    """Mixed into `Mobium`."""

    def _listing(self, st: DeviceState) -> list[tuple[str, int, str]]:
        out = st.link.shell(f"ls -l {DOWNLOAD}")
        rows = []
        for line in out.splitlines():
            m = LS_LINE.match(line.strip())
            if m:
                rows.append((m.group(3), int(m.group(1)), m.group(2)))
        return rows

    def t_app_upload(self, args: dict) -> Result:
        path, content, name = args.get("path"), args.get("content"), args.get("name")
        if (path is None) == (content is None):
            raise invalid("app_upload needs path (a file on this machine) or content (base64) with name, not both")
        if content is not None and not name:
            raise invalid("content needs a name to save it under")
        if path is not None:
            if not os.path.isfile(path):
                raise MobiumError("no_such_element", f"no file at {path} on this machine", "give a file that exists")
            with open(path, "rb") as f:
                body = f.read()
            name = name or os.path.basename(path)
        else:
            try:
                body = base64.b64decode(content, validate=True)
            except ValueError as exc:
                raise invalid("content is not base64") from exc
        name = file_name(name)
        st = self.state(args)
        target = f"{DOWNLOAD}/{name}"
        st.link.dev.sync.push(io.BytesIO(body), target)
        held = next((size for n, size, _ in self._listing(st) if n == name), None)
        if held != len(body):
            raise MobiumError("device_server", f"{target} holds {held} bytes after the upload, not {len(body)}")
        st.link.shell(f"am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d "
                      f"{shlex.quote('file://' + target)}")
        shown = path or name
        return Result(f"uploaded {shown} to Download/{name} ({len(body)} bytes) — confirmed by its size read back on "
                      "the device", {"name": name, "device_path": target, "bytes": len(body)})

    def t_app_download(self, args: dict) -> Result:
        name, local = args.get("name"), args.get("path")
        st = self.state(args)
        rows = self._listing(st)
        if not name:
            if not rows:
                return Result("the Download folder is empty", {"files": []})
            head = f"the Download folder holds {len(rows)} file{'s' if len(rows) != 1 else ''}"
            lines = [f"  {n:40} {size:10} bytes  {when}" for n, size, when in rows]
            return Result("\n".join([head, *lines]),
                          {"files": [{"name": n, "bytes": s, "modified": w} for n, s, w in rows]})
        name = file_name(name)
        size = next((s for n, s, _ in rows if n == name), None)
        if size is None:
            raise MobiumError("no_such_element", f"no {name} in the Download folder",
                              "call app_download with no name to list what is there")
        body = st.link.dev.sync.read_bytes(f"{DOWNLOAD}/{name}")
        if len(body) != size:
            raise MobiumError("device_server", f"the copy of {name} has {len(body)} bytes, the device's {size}")
        data = {"name": name, "bytes": size}
        if local:
            with open(local, "wb") as f:
                f.write(body)
            where = os.path.abspath(local)
            data["path"] = where
            return Result(f"downloaded {name} from Download/{name} to {where} ({size} bytes) — confirmed by the "
                          "copy's size read back against the device's", data)
        data["data"] = base64.b64encode(body).decode()
        return Result(f"downloaded {name} from Download/{name} ({size} bytes, in this answer) — confirmed by the "
                      "copy's size read back against the device's", data)
