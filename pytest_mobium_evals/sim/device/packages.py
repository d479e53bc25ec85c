"""The virtual device's package manager: installing app classes, APK paths, and runtime permissions with
their grant dialogs.

What Android keeps of a permission's history, the virtual device keeps in the same places (read from AOSP's sources:
PermissionManagerServiceImpl, the PermissionController's GrantPermissionsViewModel):
- a runtime permission revoked from an app whose process runs kills that process ("permissions revoked": `pm
  revoke`, and `pm reset-permissions` for every app it took a grant from), which ActivityManager logs;
- each answer to a permission request is logged by the permission controller (tag GrantPermissionsViewModel):
  `Permission grant result requestId=… callingUid=… callingPackage=… permission=… isImplicit=false result=R …`,
  R one of PermissionGrantRequestResultReported's results: 4 the user granted, 5 granted without asking (already
  held), 6 the user denied, 7 denied for good (don't ask again), 2 not asked, the user fixed it denied (AOSP's
  StatsLogAtoms gives these), 10 granted only this time and 11 dismissed (the atom's next values, in its order).
App-ops keep no history of a grant taken and given back (their history is of an app's accesses), and the package
manager keeps only the current grant and its flags."""

from __future__ import annotations

import base64
import random
import zlib
from typing import Callable, Iterable

from ..apps.base import App
from .defaults import LAUNCHER_PACKAGE, LOCATION_PERMS, PERMISSION_PACKAGE, PERMISSION_QUESTIONS, ROLE_GRANTS
from .records import BASE_FLAGS, Dialog, PackageInfo, PermissionRequest, PermissionState


class DevicePackages:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    # -- packages ------------------------------------------------------------------------------------------------

    def install(self, app_cls: type[App]) -> PackageInfo:
        """Registers an activity class (and its package on first sight)."""
        name = app_cls.package
        cls = app_cls.activity if not app_cls.activity.startswith(".") else name + app_cls.activity
        pkg = self.packages.get(name)
        if pkg is None:
            if app_cls.system:
                folder = "priv-app" if name.startswith(("com.android.settings", LAUNCHER_PACKAGE)) else "app"
                base = app_cls.label.replace(" ", "")
                code_path = f"/system/{folder}/{base}"
                uid = getattr(app_cls, "uid", None) or (1000 if name == "com.android.settings"
                                                        else next(self._sys_uids))
            else:
                a = self._b64(name + "a")
                b = self._b64(name + "b")
                code_path = f"/data/app/~~{a}==/{name}-{b}=="
                uid = next(self._uids)
            pkg = PackageInfo(name, app_cls.label, uid, {}, None, tuple(app_cls.permissions), app_cls.system,
                              code_path, app_cls.version_name, app_cls.version_code, app_cls.target_sdk,
                              self.clock.boot_wall - (86400 * 30 if app_cls.system else 3600))
            self.packages[name] = pkg
            self._perm[name] = {p: self._initial_permission(name, p) for p in pkg.permissions}
        pkg.activities[cls] = app_cls
        if app_cls.launcher and pkg.launcher_activity is None:
            pkg.launcher_activity = cls
        for p in app_cls.permissions:
            if p not in pkg.permissions:
                pkg.permissions = pkg.permissions + (p,)
                self._perm[name][p] = PermissionState()
        return pkg

    def _b64(self, seed: str) -> str:
        raw = zlib.crc32(seed.encode()).to_bytes(4, "big") * 4
        return base64.urlsafe_b64encode(raw).decode()[:22]

    def apk_path(self, package: str) -> str:
        pkg = self.packages[package]
        if pkg.system:
            return f"{pkg.code_path}/{pkg.code_path.rsplit('/', 1)[-1]}.apk"
        return f"{pkg.code_path}/base.apk"

    def launchable(self) -> list[PackageInfo]:
        return [p for p in self.packages.values() if p.launcher_activity]


    def permission(self, package: str, perm: str) -> str:
        st = self._perm.get(package, {}).get(perm)
        if st is None:
            return "denied"
        if st.granted:
            return "granted"
        return "undetermined" if st.undetermined else "denied"

    def permission_states(self, package: str) -> dict[str, PermissionState]:
        return self._perm.get(package, {})

    def grant(self, package: str, perm: str, *, granted: bool = True, flags: Iterable[str] = ()) -> None:
        st = self._perm[package][perm]
        st.granted = granted
        st.flags.update(flags)
        if granted:
            st.flags.discard("USER_FIXED")
            self._close_answered_prompt(package)

    def _close_answered_prompt(self, package: str) -> None:
        """Android's permission controller re-checks its group when a grant lands from elsewhere (`pm grant`): once
        every permission it asks about is held, the prompt finishes by itself and the app hears "granted"."""
        for task in self.tasks:
            for rec in task.activities:
                for dialog in list(rec.dialogs):
                    req = dialog.request
                    if dialog.kind != "permission" or req is None or req.package != package:
                        continue
                    states = self._perm[package]
                    if all(states[p].granted for p in req.groups[0]):
                        rec.dialogs.remove(dialog)
                        for p in req.groups[0]:
                            req.results[p] = "granted"
                        self._permission_next(req)

    def _initial_permission(self, package: str, perm: str) -> PermissionState:
        """A permission as a fresh install holds it: asked for at run time, unless the app holds a role whose
        permissions the system grants (the default dialer's), which come back granted after a reset too."""
        if perm in ROLE_GRANTS.get(package, ()):
            return PermissionState(granted=True, flags=set(BASE_FLAGS) | {"GRANTED_BY_ROLE"})
        return PermissionState()

    def reset_permissions(self, package: str | None = None, *, kill: bool = False) -> None:
        """Every runtime permission of `package` (of every app when None) back to a fresh install's. With `kill`
        (`pm reset-permissions`), an app that lost a grant and runs is killed, as PermissionManagerServiceImpl kills
        the uids whose permissions a reset revoked ("permissions revoked")."""
        for name in ([package] if package else list(self._perm)):
            pkg = self.packages.get(name)
            if pkg:
                before = self._perm.get(name, {})
                self._perm[name] = {p: self._initial_permission(name, p) for p in pkg.permissions}
                revoked = any(st.granted and not self._perm[name][p].granted for p, st in before.items()
                              if p in self._perm[name])
                if kill and revoked and name in self.processes:
                    self.kill_process(name, reason="permissions revoked")

    #: The permission controller's results of a request (PermissionGrantRequestResultReported), as it logs them.
    GRANT_RESULTS = {"foreground": 4, "allow": 4, "auto_granted": 5, "deny": 6, "deny_for_good": 7,
                     "user_fixed": 2, "one_time": 10, "dismissed": 11}

    def _request_ids(self) -> random.Random:
        """The permission controller's request ids: random, as its sessionId, from a source of their own, so that
        the apps' own randomness (`device.random`) draws what it always drew."""
        if "_request_id_source" not in self.__dict__:
            self.__dict__["_request_id_source"] = random.Random(f"permission-requests:{self.serial}")
        return self.__dict__["_request_id_source"]

    def _log_grant_result(self, package: str, permission: str, result: str, request_id: int) -> None:
        """The permission controller's line for one permission of a request (GrantPermissionsViewModel's
        reportRequestResult, Android 15's wording)."""
        pkg = self.packages[package]
        self.log("GrantPermissionsViewModel",
                 f"Permission grant result requestId={request_id} callingUid={pkg.uid} callingPackage={package} "
                 f"permission={permission} isImplicit=false result={self.GRANT_RESULTS[result]} "
                 "isPermissionRationaleShown=falseisPackageRestrictedByEnhancedConfirmation=false",
                 pid=self.system_pid + 1311, uid=10126)

    def request_permissions(self, package: str, perms: list[str],
                            callback: Callable[[dict[str, str]], None] | None) -> None:
        """Shows the system permission dialog for what is not granted yet; calls back with perm -> granted|denied."""
        results: dict[str, str] = {}
        pending: list[str] = []
        states = self._perm.get(package, {})
        request_id = self._request_ids().getrandbits(63)
        for p in perms:
            st = states.get(p)
            if st is None:
                results[p] = "denied"  # not declared in the manifest: denied without asking
            elif st.granted:
                results[p] = "granted"
                self._log_grant_result(package, p, "auto_granted", request_id)
            elif "USER_FIXED" in st.flags:
                results[p] = "denied"  # "don't ask again" after two denials
                self._log_grant_result(package, p, "user_fixed", request_id)
            else:
                pending.append(p)
        if not pending:
            if callback is not None:
                self._call(package, callback, results)
            return
        groups: list[list[str]] = []
        loc = [p for p in pending if p in LOCATION_PERMS]
        if loc:
            groups.append(loc)
        seen_q: dict[str, list[str]] = {}
        for p in pending:
            if p in LOCATION_PERMS:
                continue
            q = PERMISSION_QUESTIONS.get(p, p)
            if q in seen_q:
                seen_q[q].append(p)
            else:
                seen_q[q] = [p]
                groups.append(seen_q[q])
        req = PermissionRequest(package, groups, results, callback, request_id)
        self._show_permission_dialog(req)

    def _show_permission_dialog(self, req: PermissionRequest) -> None:
        group = req.groups[0]
        pkg = self.packages[req.package]
        question = PERMISSION_QUESTIONS.get(group[0], group[0].rsplit(".", 1)[-1])
        if group[0] in LOCATION_PERMS:
            buttons = [("While using the app", "foreground", None), ("Only this time", "one_time", None),
                       ("Don\u2019t allow", "deny", None)]
        else:
            buttons = [("Allow", "allow", None), ("Don\u2019t allow", "deny", None)]
        dialog = Dialog("", f"Allow {pkg.label} to {question}?", buttons, PERMISSION_PACKAGE, cancelable=True,
                        kind="permission", caps=False, token=self.new_hash(), request=req)
        owner = self._owner_activity(req.package)
        if owner is None:
            # nothing on screen to ask over: the request fails as denied
            for p in group:
                req.results[p] = "denied"
            self._permission_next(req)
            return
        # The controller's activity takes the window focus, and Android puts the keyboard away with it; it does not
        # come back when the app is in front again.
        self.hide_keyboard()
        owner.dialogs.append(dialog)

    def _answer_permission(self, dialog: Dialog, role: str) -> None:
        req = dialog.request
        assert req is not None
        group = req.groups[0]
        for p in group:
            st = self._perm[req.package][p]
            if role in ("foreground", "one_time") and dialog.approximate and p == LOCATION_PERMS[0]:
                # Approximate: Android grants the coarse permission alone; the fine one is left ungranted, as
                # the user set it, and the app may ask again for precision.
                st.granted = False
                st.flags.add("USER_SET")
                req.results[p] = "denied"
            elif role in ("foreground", "allow", "one_time"):
                st.granted = True
                st.flags.add("USER_SET")
                st.flags.discard("USER_FIXED")
                if role == "one_time":
                    st.flags.add("ONE_TIME")
                else:
                    st.flags.discard("ONE_TIME")
                req.results[p] = "granted"
            elif role == "deny":
                st.granted = False
                st.denials += 1
                st.flags.add("USER_SET")
                if st.denials >= 2:
                    st.flags.add("USER_FIXED")
                req.results[p] = "denied"
            else:  # dismissed (back, outside): denied this time, not counted towards "don't ask again"
                req.results[p] = "denied"
            answer = {"foreground": "foreground", "allow": "allow", "one_time": "one_time"}.get(role)
            if role == "deny":
                answer = "deny_for_good" if "USER_FIXED" in st.flags else "deny"
            self._log_grant_result(req.package, p, answer or "dismissed", req.request_id)
        self._permission_next(req)

    def _permission_next(self, req: PermissionRequest) -> None:
        req.groups.pop(0)
        if req.groups:
            self._show_permission_dialog(req)
        elif req.callback is not None:
            self._call(req.package, req.callback, dict(req.results))
