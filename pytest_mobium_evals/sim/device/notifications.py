"""Notifications, toasts, logcat and the clipboard of the virtual device."""

from __future__ import annotations

from .records import LogEntry, Notification, Toast


class DeviceNotifications:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    # -- notifications, toasts, logs, clipboard ------------------------------------------------------------------

    def post_notification(self, package: str, title: str, text: str, channel: str = "default",
                          tag: str | None = None) -> int | None:
        """Posts a notification; returns its id, or None when the app may not post (POST_NOTIFICATIONS denied).
        A notification with the same tag from the same package replaces the earlier one."""
        perm = "android.permission.POST_NOTIFICATIONS"
        pkg = self.packages.get(package)
        if pkg is not None and perm in pkg.permissions and self.permission(package, perm) != "granted":
            self.log("NotificationService", f"Suppressing notification from package {package} by user request.",
                     "W", pid=self.system_pid)
            return None
        if tag is not None:
            self.notifications = [n for n in self.notifications if not (n.package == package and n.tag == tag)]
        nid = 2020 if tag is not None else next(self._notification_ids)
        uid = pkg.uid if pkg else 1000
        n = Notification(nid, package, str(title), str(text), self.clock.wall(self.now()),
                         f"0|{package}|{nid}|{tag if tag is not None else 'null'}|{uid}", channel, tag)
        self.notifications.insert(0, n)
        return nid

    def cancel_notification(self, package: str, nid: int | None = None) -> None:
        self.notifications = [n for n in self.notifications
                              if not (n.package == package and (nid is None or n.id == nid))]

    def toast(self, text: str, seconds: float = 2.0) -> None:
        package = self._calling[-1] if self._calling else "android"
        self.toasts = [Toast(str(text), self.now() + seconds, package)]
        for listener in list(self.toast_listeners):
            listener(str(text))

    def active_toast(self) -> Toast | None:
        now = self.now()
        live = [t for t in self.toasts if t.until > now]
        return live[-1] if live else None

    def log(self, tag: str, message: str, level: str = "I", *, pid: int | None = None, buffer: str = "main",
            uid: int | None = None) -> None:
        if pid is None:
            pkg = self._calling[-1] if self._calling else None
            proc = self.processes.get(pkg) if pkg else None
            pid = proc.pid if proc else self.system_pid
        tid = pid if pid != self.system_pid else pid + 17
        owner = next((p.package for p in self.processes.values() if p.pid == pid), None)
        if uid is None:
            uid = self.packages[owner].uid if owner in self.packages else 1000
        self.log_seq += 1
        self.logs.append(LogEntry(self.clock.wall(self.now()), pid, tid, level, tag, str(message), self.log_seq,
                                  uid, buffer))
