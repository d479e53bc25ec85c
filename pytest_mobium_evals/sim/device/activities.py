"""Processes and the activity stack of the virtual device: starting, finishing, moving tasks, killing,
force-stopping and clearing apps."""

from __future__ import annotations

from .. import views
from ..apps.base import App
from ..views import Placed
from .defaults import LAUNCHER_PACKAGE
from .records import ActivityRecord, ActivityTask, PackageInfo, Process, VirtualDeviceError


class DeviceActivities:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    # -- processes and the activity stack -----------------------------------------------------------------------

    def _home_task(self) -> ActivityTask:
        for t in self.tasks:
            if t.kind == "home":
                return t
        pkg = self.packages[LAUNCHER_PACKAGE]
        task = ActivityTask(self, 1, pkg, "home")
        self.tasks.append(task)
        cls = next(iter(pkg.activities))
        rec = ActivityRecord(self, pkg, cls, task,
                             f"act=android.intent.action.MAIN cat=[android.intent.category.HOME] flg=0x10000100 "
                             f"cmp={pkg.short(cls)}")
        task.activities.append(rec)
        self._create(rec, {})
        return task

    def _ensure_process(self, package: str) -> tuple[Process, bool]:
        proc = self.processes.get(package)
        if proc is not None:
            return proc, False
        pkg = self.packages[package]
        # Linux hands out pids in increasing order, with gaps for what else started meanwhile: a process started
        # again never gets its earlier pid back (a counter plus a random offset could give it).
        for _ in range(self._ids.randrange(1, 40) - 1):
            next(self._pids)
        proc = Process(package, next(self._pids), pkg.uid, self.now())
        self.processes[package] = proc
        self.stopped_packages.discard(package)
        self.log("ActivityManager", f"Start proc {proc.pid}:{package}/u0a{pkg.uid - 10000} for "
                 f"next-top-activity {{{package}/{pkg.launcher_activity or ''}}}", pid=self.system_pid)
        return proc, True

    def _create(self, rec: ActivityRecord, extras: dict) -> None:
        self._ensure_process(rec.package.name)
        app_cls = rec.package.activities[rec.cls]
        rec.app = self._call(rec.package.name, app_cls, self)
        if rec.app is not None:
            self._call(rec.package.name, rec.app.on_start, dict(extras))
        rec.state = "RESUMED"

    def current_activity(self) -> ActivityRecord | None:
        for t in self.tasks:
            if t.top is not None:
                return t.top
        return None

    def current_app(self) -> App | None:
        rec = self.current_activity()
        return rec.app if rec else None

    @property
    def scroll_offsets(self) -> dict[str, int]:
        """The current activity's scroll offsets (id -> px); an app may clear an entry when it remounts a list."""
        rec = self.current_activity()
        return rec.scroll_offsets if rec else {}

    def scroll_state(self, scroll_id: str) -> tuple[int, int]:
        """(offset, max offset) of a scroll container in the current frame, px."""
        frame = self.frame()
        root = frame.app_window.root
        if root is None:
            return 0, 0
        p = root.find(scroll_id)
        if p is None:
            return self.scroll_offsets.get(scroll_id, 0), 0
        return self.scroll_offsets.get(scroll_id, 0), self._max_offset(p)

    @staticmethod
    def _max_offset(p: Placed) -> int:
        pad = views._px(p.node.padding)
        if p.node.scroll == "vertical":
            viewport = p.box[3] - p.box[1] - 2 * pad
        else:
            viewport = p.box[2] - p.box[0] - 2 * pad
        return max(0, p.content_extent - viewport)

    def _owner_activity(self, package: str) -> ActivityRecord | None:
        for t in self.tasks:
            for rec in reversed(t.activities):
                if rec.package.name == package:
                    return rec
        return None

    def _bring_to_front(self, task: ActivityTask) -> None:
        prev = self.current_activity()
        if self.tasks and self.tasks[0] is task:
            return
        self.tasks.remove(task)
        self.tasks.insert(0, task)
        task.last_active = self.now()
        if prev is not None and prev is not task.top:
            self._stopped(prev)
        if task.top is not None:
            task.top.state = "RESUMED"

    def _stopped(self, rec: ActivityRecord) -> None:
        if rec.state == "RESUMED":
            rec.state = "STOPPED"
            if rec.app is not None:
                self._call(rec.package.name, rec.app.on_stop)
        if rec.package.name == (self._focus_package or ""):
            self._clear_focus()

    _focus_package: str | None = None  # the package whose field has focus (focus dies with its activity)

    def _clear_focus(self) -> None:
        self.focused_id = None
        self.keyboard_shown = False
        self._focus_package = None
        self._cursor = None
        self._select_all = False

    def resolve_component(self, component: str) -> tuple[PackageInfo, str]:
        """`pkg/.Act` or `pkg/full.Class` -> (package, full class). VirtualDeviceError if there is no such activity."""
        if "/" not in component:
            raise VirtualDeviceError(f"Bad component name: {component}")
        name, cls = component.split("/", 1)
        pkg = self.packages.get(name)
        full = (name + cls) if cls.startswith(".") else cls
        if pkg is None or full not in pkg.activities:
            raise VirtualDeviceError(f"Activity class {{{name}/{full}}} does not exist.")
        return pkg, full

    def start_activity(self, component: str, extras: dict | None = None, *, intent: str | None = None,
                       clear_top: bool = False) -> str:
        """Starts an activity as `am start -n` does (FLAG_ACTIVITY_NEW_TASK). Returns the launch state:
        "COLD" (process created), "WARM" (activity created in a live process), "HOT" (task brought to front) or
        "DELIVERED" (already the top-most instance)."""
        with self.lock:
            pkg, full = self.resolve_component(component)
            extras = dict(extras or {})
            if pkg.name == LAUNCHER_PACKAGE:
                self.go_home()
                return "HOT"
            intent = intent or f"flg=0x10000000 cmp={pkg.short(full)}"
            self.log("ActivityTaskManager", f"START u0 {{{intent}}} with LAUNCH_MULTIPLE from uid 2000 "
                     f"(BAL_ALLOW_PERMISSION) result code=0", pid=self.system_pid)
            task = next((t for t in self.tasks if t.kind == "standard" and t.package is pkg), None)
            if task is not None and task.activities:
                top = task.top
                if top is not None and top.cls == full and not clear_top:
                    was_front = self.tasks[0] is task
                    self._bring_to_front(task)
                    if top.app is not None and extras:
                        self._call(pkg.name, top.app.on_new_intent, extras)
                    self.shade_expanded = False
                    return "DELIVERED" if was_front else "HOT"
                # another activity of the package is on top: start this one in the same task
            if task is None:
                task = ActivityTask(self, next(self._task_ids), pkg)
                self.tasks.insert(0, task)
            else:
                self._bring_to_front(task)
            prev = self.current_activity()
            cold = pkg.name not in self.processes
            if prev is not None and prev.task is not task:
                self._stopped(prev)
            elif task.top is not None:
                self._stopped(task.top)
            rec = ActivityRecord(self, pkg, full, task, intent)
            task.activities.append(rec)
            task.last_active = self.now()
            if self.tasks[0] is not task:
                self.tasks.remove(task)
                self.tasks.insert(0, task)
            self._create(rec, extras)
            self.shade_expanded = False
            self.log("ActivityTaskManager", f"Displayed {rec.short} for user 0: +{380 if cold else 120}ms",
                     pid=self.system_pid)
            return "COLD" if cold else "WARM"

    def launch(self, package: str, extras: dict | None = None) -> str:
        """What tapping the app's icon does: bring its task to the front, or start its launcher activity."""
        pkg = self.packages.get(package)
        if pkg is None or pkg.launcher_activity is None:
            raise VirtualDeviceError("No activities found to run, monkey aborted.")
        task = next((t for t in self.tasks if t.kind == "standard" and t.package is pkg and t.activities), None)
        if task is not None:
            was_front = self.tasks[0] is task
            self._bring_to_front(task)
            self.shade_expanded = False
            return "DELIVERED" if was_front else "HOT"
        intent = (f"act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 "
                  f"cmp={pkg.short(pkg.launcher_activity)}")
        return self.start_activity(f"{pkg.name}/{pkg.launcher_activity}", extras, intent=intent)

    def go_home(self) -> None:
        with self.lock:
            home = self._home_task()
            self.shade_expanded = False
            self._bring_to_front(home)

    def finish_current(self) -> None:
        """Finishes the top activity (destroyed); its task goes away when it was the last one."""
        with self.lock:
            rec = self.current_activity()
            if rec is None or rec.task.kind == "home":
                return
            self._stopped(rec)
            task = rec.task
            task.activities.remove(rec)
            if not task.activities:
                self.tasks.remove(task)
            nxt = self.current_activity()
            if nxt is not None:
                nxt.state = "RESUMED"

    def move_task_to_back(self, rec: ActivityRecord) -> None:
        """Android 12+: back on a task's root activity moves the task behind the others (the activity lives on)."""
        self._stopped(rec)
        task = rec.task
        home = self._home_task()
        # the home screen comes to the front and the task sits right behind it (first in recents)
        self.tasks.remove(task)
        self.tasks.remove(home)
        self.tasks[0:0] = [home, task]
        if home.top is not None:
            home.top.state = "RESUMED"

    def kill_process(self, package: str, reason: str = "stop") -> bool:
        """What force-stop does to a package: process gone, activities and tasks removed, timers and notifications
        dropped, one-time permissions revoked. Returns whether anything ran."""
        with self.lock:
            proc = self.processes.pop(package, None)
            for t in self._timers:
                if t.owner == package:
                    t.cancelled = True
            current = self.current_activity()
            for task in list(self.tasks):
                if task.kind == "home":
                    continue
                task.activities = [r for r in task.activities if r.package.name != package]
                if not task.activities:
                    self.tasks.remove(task)
            if self._focus_package == package:
                self._clear_focus()
            self.toasts = [t for t in self.toasts if t.package != package]
            if reason != "crash":
                self.cancel_notification(package)
            for st in self._perm.get(package, {}).values():
                if "ONE_TIME" in st.flags:
                    st.granted = False
                    st.flags.discard("ONE_TIME")
                    st.flags.discard("USER_SET")
            if proc is not None:
                pkg = self.packages[package]
                self.log("ActivityManager", f"Killing {proc.pid}:{package}/u0a{pkg.uid - 10000} (adj 0): "
                         f"{reason} {package}", pid=self.system_pid)
            for component in [c for c in self.running_services if c.split("/", 1)[0] == package]:
                del self.running_services[component]
            running = self.running_instrumentations.get(package)
            if running is not None:
                running.end("crashed")  # an instrumentation dies with its process, or with its test package
            nxt = self.current_activity()
            if nxt is not None and nxt is not current:
                nxt.state = "RESUMED"
            if not any(t.kind == "home" for t in self.tasks):
                self._home_task()
            return proc is not None

    def force_stop(self, package: str, reason: str | None = None) -> None:
        """`am force-stop` (whose reason is the caller: "from pid N"), or the stop another action makes, which
        ActivityManager logs with that action's reason ("clear data")."""
        if package in self.packages:
            self.log("ActivityManager", f"Force stopping {package} appid={self.packages[package].uid} user=0: "
                     f"{reason or f'from pid {self.system_pid + 9000}'}", pid=self.system_pid)
        self.kill_process(package)
        if package in self.packages:
            self.stopped_packages.add(package)

    def clear_data(self, package: str) -> bool:
        """`pm clear`: force-stop, wipe private storage, reset runtime permissions."""
        with self.lock:
            if package not in self.packages:
                return False
            self.force_stop(package, reason="clear data")
            self._storage.pop(package, None)
            self.reset_permissions(package)
            for path in [p for p in self.files if p.startswith(f"/sdcard/Android/data/{package}/")]:
                del self.files[path]
            self.log("ActivityManager", f"Clearing data for {package}", pid=self.system_pid)
            return True
