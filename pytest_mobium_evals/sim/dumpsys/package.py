"""`dumpsys package` on the virtual device: the resolver table and each package's block with its permissions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import FLAG_ORDER, boolean, stable_hash, stamp

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx
    from ..device import VirtualDevice


def _package(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    names = [a for a in args if not a.startswith("-")]
    if names and names[0] in ("packages", "p"):
        names = names[1:]
    if not names:
        pkgs = list(d.packages.values())
    else:
        pkgs = [d.packages[n] for n in names[:1] if n in d.packages]
        if not pkgs:
            return 0  # an unknown package dumps nothing
    if names:
        _resolver_table(ctx, d, pkgs)
    ctx.outln("Packages:")
    for pkg in pkgs:
        _package_block(ctx, d, pkg)
    ctx.outln("")
    ctx.outln("Queries:")
    ctx.outln("  system apps queryable: false")
    return 0


def _resolver_table(ctx: "Ctx", d: "VirtualDevice", pkgs) -> None:
    ctx.outln("Activity Resolver Table:")
    ctx.outln("  Non-Data Actions:")
    for pkg in pkgs:
        for cls, app in pkg.activities.items():
            if cls == pkg.launcher_activity:
                ctx.outln("      android.intent.action.MAIN:")
                ctx.outln(f"        {stable_hash(cls)} {pkg.short(cls)} filter {stable_hash(cls + 'f')}")
                ctx.outln('          Action: "android.intent.action.MAIN"')
                ctx.outln('          Category: "android.intent.category.LAUNCHER"')
            for action in getattr(app, "actions", ()):
                ctx.outln(f"      {action}:")
                ctx.outln(f"        {stable_hash(cls)} {pkg.short(cls)} filter {stable_hash(cls + action)}")
                ctx.outln(f'          Action: "{action}"')
                ctx.outln('          Category: "android.intent.category.DEFAULT"')
    ctx.outln("")


def _package_block(ctx: "Ctx", d: "VirtualDevice", pkg) -> None:
    installed = stamp(pkg.install_time)
    ctx.outln(f"  Package [{pkg.name}] ({stable_hash(pkg.name)}):")
    ctx.outln(f"    appId={pkg.uid}")
    ctx.outln(f"    pkg=Package{{{stable_hash(pkg.name + 'p')} {pkg.name}}}")
    ctx.outln(f"    codePath={pkg.code_path}")
    ctx.outln(f"    resourcePath={pkg.code_path}")
    ctx.outln(f"    legacyNativeLibraryDir={pkg.code_path}/lib")
    ctx.outln("    extractNativeLibs=false")
    ctx.outln("    primaryCpuAbi=x86_64" if not pkg.system else "    primaryCpuAbi=null")
    ctx.outln("    secondaryCpuAbi=null")
    ctx.outln("    cpuAbiOverride=null")
    ctx.outln(f"    versionCode={pkg.version_code} minSdk={pkg.min_sdk} targetSdk={pkg.target_sdk}")
    ctx.outln("    minExtensionVersions=[]")
    ctx.outln(f"    versionName={pkg.version_name}")
    ctx.outln("    hiddenApiEnforcementPolicy=2")
    ctx.outln("    usesNonSdkApi=false")
    ctx.outln(f"    splits=[{', '.join(['base', *pkg.splits])}]")
    ctx.outln("    apkSigningVersion=2")
    flags = "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP" if pkg.system else \
        "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    ctx.outln(f"    flags=[ {flags} ]")
    ctx.outln("    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION "
              "ALLOW_AUDIO_PLAYBACK_CAPTURE PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING ]")
    ctx.outln("    forceQueryable=false")
    ctx.outln(f"    dataDir=/data/user/0/{pkg.name}")
    ctx.outln("    supportsScreens=[small, medium, large, xlarge, resizeable, anyDensity]")
    ctx.outln(f"    timeStamp={stamp(pkg.update_time or pkg.install_time, ms=True)}")
    ctx.outln(f"    lastUpdateTime={stamp(pkg.update_time or pkg.install_time + 1)}")
    if not pkg.system:
        ctx.outln("    installerPackageName=com.android.shell")
    ctx.outln(f"    signatures=PackageSignatures{{{stable_hash(pkg.name + 's')} version:2, "
              f"signatures:[{stable_hash(pkg.name + 'sig')}], past signatures:[]}}")
    ctx.outln("    installPermissionsFixed=true")
    ctx.outln(f"    pkgFlags=[ {flags} ]")
    # an installed APK requests what its manifest lists, in its order (some neither install-granted nor runtime)
    requested = list(pkg.apk.manifest.permissions) if pkg.apk is not None else \
        list(pkg.install_permissions) + list(pkg.permissions)
    ctx.outln("    requested permissions:")
    for p in requested:
        ctx.outln(f"      {p}")
    ctx.outln("    install permissions:")
    for p in pkg.install_permissions:
        ctx.outln(f"      {p}: granted=true")
    stopped = pkg.name in getattr(d, "stopped_packages", set())
    ctx.outln(f"    User 0: ceDataInode={1000 + pkg.uid % 1000 * 7} deDataInode={900 + pkg.uid % 1000 * 5} "
              f"installed=true hidden=false suspended=false distractionFlags=0 stopped={boolean(stopped)} "
              f"notLaunched=false enabled=0 instant=false virtual=false quarantined=false")
    ctx.outln("      installReason=0")
    ctx.outln(f"      dataDir=/data/user/0/{pkg.name}")
    ctx.outln(f"      firstInstallTime={installed}")
    ctx.outln("      uninstallReason=0")
    ctx.outln("      gids=[3003]")
    states = d.permission_states(pkg.name)
    if states:
        ctx.outln("      runtime permissions:")
        for perm in pkg.permissions:
            st = states.get(perm)
            if st is None:
                continue
            flags_s = "|".join(f for f in FLAG_ORDER if f in st.flags)
            ctx.outln(f"        {perm}: granted={boolean(st.granted)}, flags=[ {flags_s}]")
