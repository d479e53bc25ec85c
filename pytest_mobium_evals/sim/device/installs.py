"""Installing APKs on the virtual device, as the package manager does it: the package is what the APK's own
AndroidManifest.xml says (name, version, permissions, activities and their intent filters, instrumentation), its
activities are known to `am start` and the launcher, and `uninstall` and `reset_packages` take it away again.

The APK's code does not run: its activities show an empty window (`apps.installed`), and a server it carries (an
instrumentation runner) is what `am instrument` starts, looked up by the instrumentation the manifest declares.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..apk import Apk, ApkError, InstrumentationDecl, read_apk
from ..apps.installed import activity_class
from .defaults import PERMISSION_QUESTIONS
from .records import BASE_FLAGS, PackageInfo, PermissionState

SDK_INT = 35
# Android's dangerous (runtime) permissions: asked for at run time, granted at install only with `-g`.
RUNTIME_PERMISSIONS = frozenset(PERMISSION_QUESTIONS) | {
    "android.permission.ACCESS_BACKGROUND_LOCATION", "android.permission.ACCESS_MEDIA_LOCATION",
    "android.permission.READ_EXTERNAL_STORAGE", "android.permission.WRITE_EXTERNAL_STORAGE",
    "android.permission.READ_CALL_LOG", "android.permission.WRITE_CALL_LOG", "android.permission.ADD_VOICEMAIL",
    "android.permission.USE_SIP", "android.permission.PROCESS_OUTGOING_CALLS",
    "android.permission.ANSWER_PHONE_CALLS", "android.permission.READ_PHONE_NUMBERS",
    "android.permission.RECEIVE_SMS", "android.permission.RECEIVE_MMS", "android.permission.RECEIVE_WAP_PUSH",
    "android.permission.BODY_SENSORS_BACKGROUND", "android.permission.ACCEPT_HANDOVER",
    "android.permission.UWB_RANGING", "android.permission.BLUETOOTH_ADVERTISE", "android.permission.GET_ACCOUNTS",
    "android.permission.READ_MEDIA_VISUAL_USER_SELECTED",
}
# Signature, privileged, development and app-op permissions: requested, but not granted to an app from `adb install`
# (WRITE_SETTINGS and the like are app ops the user allows in Settings; development ones are `pm grant`ed).
NOT_GRANTED_AT_INSTALL = frozenset({
    "android.permission.WRITE_SETTINGS", "android.permission.WRITE_SECURE_SETTINGS",
    "android.permission.SET_ANIMATION_SCALE", "android.permission.CHANGE_CONFIGURATION",
    "android.permission.READ_LOGS", "android.permission.DUMP", "android.permission.PACKAGE_USAGE_STATS",
    "android.permission.SYSTEM_ALERT_WINDOW", "android.permission.ACCESS_MOCK_LOCATION",
    "android.permission.MANAGE_EXTERNAL_STORAGE", "android.permission.INTERACT_ACROSS_USERS",
    "android.permission.REQUEST_INSTALL_PACKAGES", "android.permission.BIND_ACCESSIBILITY_SERVICE",
})


@dataclass(frozen=True)
class Instrumentation:
    """An <instrumentation> an installed package declares (`pm list instrumentation`, `am instrument`)."""
    package: str          # the test package that declares it
    decl: InstrumentationDecl

    @property
    def name(self) -> str:
        return self.decl.name

    @property
    def target_package(self) -> str:
        return self.decl.target_package

    @property
    def component(self) -> str:
        """flattenToShortString: `pkg/.Runner` when the class is in the package, else `pkg/full.Runner`."""
        if self.decl.name.startswith(self.package + "."):
            return f"{self.package}/{self.decl.name[len(self.package):]}"
        return f"{self.package}/{self.decl.name}"


class DeviceInstalls:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    def install_apk(self, data: bytes, *, grant_runtime: bool = False, allow_downgrade: bool = False,
                    where: str = "base.apk", splits: tuple[bytes, ...] = ()) -> PackageInfo:
        """Installs (or replaces) the package an APK holds. ApkError carries Android's failure code and reason."""
        apk = read_apk(data, where)
        m = apk.manifest
        if m.split:
            raise ApkError("INSTALL_FAILED_MISSING_SPLIT", f"Missing split for {m.package}: {where} is split "
                           f"'{m.split}' and no base APK was given")
        split_apks: dict[str, bytes] = {}
        for i, split in enumerate(splits):
            split_manifest = read_apk(split, f"split {i + 1}").manifest
            if split_manifest.package != m.package:
                raise ApkError("INSTALL_FAILED_INVALID_APK", f"Split {split_manifest.split or i + 1} package "
                               f"{split_manifest.package} inconsistent with {m.package}")
            if not split_manifest.split:
                raise ApkError("INSTALL_FAILED_INVALID_APK", "Split null was defined multiple times")
            if split_manifest.split in split_apks:
                raise ApkError("INSTALL_FAILED_INVALID_APK",
                               f"Split {split_manifest.split} was defined multiple times")
            split_apks[split_manifest.split] = split
        if m.min_sdk > SDK_INT:
            raise ApkError("INSTALL_FAILED_OLDER_SDK", f"Requires newer sdk version #{m.min_sdk} (current version "
                           f"is #{SDK_INT})")
        with self.lock:
            old = self.packages.get(m.package)
            if old is not None and old.apk is None:
                # a package the device came with: a different signer may not replace it
                raise ApkError("INSTALL_FAILED_UPDATE_INCOMPATIBLE", f"Existing package {m.package} signatures do "
                               f"not match newer version; ignoring!")
            if old is not None and m.version_code < old.version_code and not allow_downgrade:
                raise ApkError("INSTALL_FAILED_VERSION_DOWNGRADE", f"Downgrade detected: Update version code "
                               f"{m.version_code} is older than current {old.version_code}")
            return self._register_apk(apk, old, grant_runtime, split_apks)

    def _register_apk(self, apk: Apk, old: PackageInfo | None, grant_runtime: bool,
                      splits: dict[str, bytes]) -> PackageInfo:
        m = apk.manifest
        runtime = tuple(p for p in m.permissions if p in RUNTIME_PERMISSIONS)
        install = tuple(p for p in m.permissions if p not in RUNTIME_PERMISSIONS and p not in NOT_GRANTED_AT_INSTALL)
        version_name = m.version_name if m.version_name is not None else "null"
        label = m.label if m.label and not m.label.startswith("@") else m.package
        if old is not None:
            # An update: the app is stopped, keeps its uid, data and grants; its activities are the new APK's.
            self.kill_process(m.package, reason="installPackageLI")
            uid, first_install = old.uid, old.install_time
        else:
            uid, first_install = next(self._uids), self.now_wall()
        serial = self.new_hash()
        code_path = f"/data/app/~~{self._b64(m.package + 'a' + serial)}==/{m.package}-{self._b64(m.package + serial)}=="
        pkg = PackageInfo(m.package, label, uid, {}, None, runtime, False, code_path, version_name, m.version_code,
                          m.target_sdk, first_install, install_permissions=install)
        pkg.apk = apk
        pkg.min_sdk = m.min_sdk
        pkg.update_time = self.now_wall()
        pkg.instrumentations = tuple(Instrumentation(m.package, i) for i in m.instrumentations)
        pkg.splits = dict(sorted(splits.items()))
        for decl in m.activities:
            if decl.target_activity is not None:
                continue  # an alias starts its target; the target's class serves it
            actions = tuple(dict.fromkeys(a for f in decl.filters for a in f.actions
                                          if a != "android.intent.action.MAIN"))
            cls = activity_class(m.package, decl.name, label=decl.label if decl.label and not
                                 decl.label.startswith("@") else label, launcher=decl.launcher, actions=actions,
                                 permissions=runtime, version_name=version_name, version_code=m.version_code,
                                 target_sdk=m.target_sdk)
            pkg.activities[decl.name] = cls
            if decl.launcher and pkg.launcher_activity is None:
                pkg.launcher_activity = decl.name
        states = self._perm.get(m.package, {}) if old is not None else {}
        self._perm[m.package] = {p: states.get(p) or PermissionState() for p in runtime}
        if grant_runtime:
            for st in self._perm[m.package].values():
                st.granted = True
                st.flags = set(BASE_FLAGS)
        self.packages[m.package] = pkg
        self.stopped_packages.add(m.package)  # installed, never launched: stopped until its first start
        self.log("PackageManager", f"{'Update' if old else 'Install'} package {m.package} "
                 f"versionCode={m.version_code} at {code_path}", pid=self.system_pid)
        return pkg

    def uninstall(self, package: str, *, keep_data: bool = False) -> bool:
        """`pm uninstall`: False when there is no such package, or it is a system app (Android's
        DELETE_FAILED_INTERNAL_ERROR for both)."""
        with self.lock:
            pkg = self.packages.get(package)
            if pkg is None or pkg.system:
                return False
            self.kill_process(package, reason="uninstall pkg")
            self._input_methods_removed(package)
            del self.packages[package]
            self._perm.pop(package, None)
            self.stopped_packages.discard(package)
            if not keep_data:
                self._storage.pop(package, None)
                for path in [p for p in self.files if p.startswith(f"/sdcard/Android/data/{package}/")]:
                    del self.files[path]
            self.log("PackageManager", f"Removing package {package}", pid=self.system_pid)
            return True

    def reset_packages(self) -> None:
        """Back to the packages the device came with: every installed APK removed, every own app that was
        uninstalled installed again (fresh, as from the system image)."""
        with self.lock:
            for name in [n for n, p in self.packages.items() if p.apk is not None]:
                self.uninstall(name)
            missing = {a.package for a in self.own_apps} - set(self.packages)
            for app_cls in self.own_apps:
                if app_cls.package in missing:
                    self.install(app_cls)

    def instrumentations(self, target: str | None = None) -> list[Instrumentation]:
        """Every installed instrumentation (of `target` only, when given), by target package as pm sorts them."""
        found = [i for p in self.packages.values() for i in getattr(p, "instrumentations", ())
                 if target is None or i.target_package == target]
        return sorted(found, key=lambda i: i.target_package)

    def instrumentation(self, component: str) -> Instrumentation | None:
        """The instrumentation `am instrument` names (`pkg/.Runner` or `pkg/full.Runner`), if installed."""
        package, _, cls = component.partition("/")
        if cls.startswith("."):
            cls = package + cls
        for i in self.instrumentations():
            if i.package == package and i.name == cls:
                return i
        return None

    def apk_paths(self, package: str) -> list[str]:
        """What `pm path` prints: the base APK, then each split's (`split_NAME.apk`)."""
        pkg = self.packages[package]
        return [self.apk_path(package)] + [f"{pkg.code_path}/split_{name}.apk" for name in pkg.splits]

    def installed_apk(self, path: str) -> bytes | None:
        """The APK bytes at a path `pm path` printed (readable by the shell, as base.apk is on a device)."""
        for pkg in self.packages.values():
            if pkg.apk is None or not path.startswith(pkg.code_path + "/"):
                continue
            name = path[len(pkg.code_path) + 1:]
            if name == "base.apk":
                return pkg.apk.data
            if name.startswith("split_") and name.endswith(".apk"):
                return pkg.splits.get(name[len("split_"):-len(".apk")])
        return None

    def now_wall(self) -> float:
        """The device's wall clock now (for install times)."""
        return self.clock.wall(self.now())
