"""What a fresh virtual device holds: the system packages' names, the runtime permissions and their dialog
wording, the default settings and system properties, and the built-in apps."""

from __future__ import annotations

import zlib

from ..apps import documents, launcher, market, mobiumapp, settings, system
from ..apps.base import App

LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher"
PERMISSION_PACKAGE = "com.google.android.permissioncontroller"
SYSTEMUI_PACKAGE = "com.android.systemui"
IME_ID = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"

#: Runtime permissions the system grants an app for a role it holds (RoleManager's grants on a fresh image): the
#: default phone app's. They survive `pm clear` and `pm reset-permissions`, as role grants are given back.
ROLE_GRANTS = {
    "com.google.android.dialer": ("android.permission.CALL_PHONE", "android.permission.READ_CONTACTS",
                                  "android.permission.READ_CALL_LOG"),
}

# Runtime ("dangerous") permissions the platform knows, with the dialog's wording (Android 15, en-US).
LOCATION_PERMS = ("android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION")
PERMISSION_QUESTIONS = {
    "android.permission.ACCESS_FINE_LOCATION": "access this device\u2019s location",
    "android.permission.ACCESS_COARSE_LOCATION": "access this device\u2019s location",
    "android.permission.CAMERA": "take pictures and record video",
    "android.permission.RECORD_AUDIO": "record audio",
    "android.permission.POST_NOTIFICATIONS": "send you notifications",
    "android.permission.READ_CONTACTS": "access your contacts",
    "android.permission.WRITE_CONTACTS": "access your contacts",
    "android.permission.READ_CALENDAR": "access your calendar",
    "android.permission.WRITE_CALENDAR": "access your calendar",
    "android.permission.READ_PHONE_STATE": "make and manage phone calls",
    "android.permission.CALL_PHONE": "make and manage phone calls",
    "android.permission.READ_MEDIA_IMAGES": "access photos and videos on this device",
    "android.permission.READ_MEDIA_VIDEO": "access photos and videos on this device",
    "android.permission.READ_MEDIA_AUDIO": "access music and audio on this device",
    "android.permission.BODY_SENSORS": "access sensor data about your vital signs",
    "android.permission.ACTIVITY_RECOGNITION": "access your physical activity",
    "android.permission.NEARBY_WIFI_DEVICES": "find, connect to, and determine the relative position of nearby devices",
    "android.permission.BLUETOOTH_CONNECT": "find, connect to, and determine the relative position of nearby devices",
    "android.permission.BLUETOOTH_SCAN": "find, connect to, and determine the relative position of nearby devices",
    "android.permission.SEND_SMS": "send and view SMS messages",
    "android.permission.READ_SMS": "send and view SMS messages",
}


def default_settings(serial: str) -> dict[str, dict[str, str]]:
    android_id = "%016x" % (zlib.crc32(serial.encode()) * 2654435761 % (1 << 64))
    return {
        "global": {
            "adb_enabled": "1",
            "airplane_mode_on": "0",
            "airplane_mode_radios": "cell,bluetooth,uwb,wifi,wimax",
            "airplane_mode_toggleable_radios": "bluetooth,wifi",
            "animator_duration_scale": "1.0",
            "auto_time": "1",
            "auto_time_zone": "1",
            "ble_scan_always_enabled": "0",
            "bluetooth_on": "1",
            "boot_count": "1",
            "data_roaming": "0",
            "default_install_location": "0",
            "development_settings_enabled": "1",
            "device_name": "sdk_gphone64_x86_64",
            "device_provisioned": "1",
            "heads_up_notifications_enabled": "1",
            "low_power": "0",
            "mobile_data": "1",
            "mobile_data1": "1",
            "network_recommendations_enabled": "0",
            "package_verifier_user_consent": "-1",
            "stay_on_while_plugged_in": "0",
            "theater_mode_on": "0",
            "transition_animation_scale": "1.0",
            "usb_mass_storage_enabled": "1",
            "verifier_verify_adb_installs": "0",
            "wifi_on": "1",
            "wifi_scan_always_enabled": "0",
            "wifi_wakeup_enabled": "0",
            "window_animation_scale": "1.0",
            "zen_mode": "0",
        },
        "secure": {
            "accessibility_enabled": "0",
            "android_id": android_id,
            "backup_enabled": "0",
            "default_input_method": IME_ID,
            "enabled_accessibility_services": "",
            "enabled_input_methods": IME_ID,
            "immersive_mode_confirmations": "confirmed",
            "install_non_market_apps": "1",
            "location_mode": "3",
            "lock_screen_show_notifications": "1",
            "navigation_mode": "2",
            "notification_badging": "1",
            "screensaver_enabled": "0",
            "selected_input_method_subtype": "-1",
            "show_ime_with_hard_keyboard": "1",
            "skip_first_use_hints": "1",
            "sysui_qs_tiles": "internet,bt,flashlight,dnd,alarm,airplane,controls,wallet,rotation,battery,cast,"
                              "screenrecord,mictoggle,cameratoggle,custom(com.android.permissioncontroller/"
                              ".permission.service.v33.SafetyCenterQsTileService)",
            "touch_exploration_enabled": "0",
            "ui_night_mode": "1",
            "user_setup_complete": "1",
            "zen_duration": "0",
        },
        "system": {
            "accelerometer_rotation": "0",
            "alarm_alert": "content://media/internal/audio/media/10?title=Awaken&canonical=1",
            "dtmf_tone": "1",
            "font_scale": "1.0",
            "haptic_feedback_enabled": "1",
            "hearing_aid": "0",
            "lockscreen_sounds_enabled": "1",
            "notification_sound": "content://media/internal/audio/media/28?title=Eureka&canonical=1",
            "pointer_location": "0",
            "pointer_speed": "0",
            "ringtone": "content://media/internal/audio/media/120?title=Your%20New%20Adventure&canonical=1",
            "screen_brightness": "102",
            "screen_brightness_mode": "0",
            "screen_off_timeout": "60000",
            "show_touches": "0",
            "sound_effects_enabled": "1",
            "tty_mode": "0",
            "user_rotation": "0",
            "vibrate_when_ringing": "0",
            "volume_alarm": "6",
            "volume_music": "5",
            "volume_ring": "5",
        },
    }


def default_props(serial: str, port: int) -> dict[str, str]:
    return {
        "dalvik.vm.heapsize": "576m",
        "gsm.operator.alpha": "T-Mobile",
        "gsm.sim.state": "LOADED",
        "init.svc.adbd": "running",
        "init.svc.bootanim": "stopped",
        "persist.sys.locale": "en-US",
        "persist.sys.timezone": "UTC",
        "qemu.hw.mainkeys": "0",
        "ro.boot.hardware": "ranchu",
        "ro.boot.qemu": "1",
        "ro.boot.serialno": serial,
        "ro.board.platform": "",
        "ro.build.characteristics": "emulator",
        # The build names what this is, the virtual device of pytest-mobium-evals, not a Google system image: a run
        # record quotes the fingerprint, and a reader must not believe the run was on an emulator image.
        "ro.build.description": "mobium_evals_virtual_device-userdebug 15 MOBIUM.EVALS.VIRTUAL 1 dev-keys",
        "ro.build.display.id": "AE3A.240806.005",
        "ro.build.fingerprint": "mobium-evals/virtual_device/virtual:15/MOBIUM.EVALS.VIRTUAL/1:userdebug/dev-keys",
        "ro.mobium_evals.virtual_device": "1",
        "ro.build.id": "AE3A.240806.005",
        "ro.build.tags": "dev-keys",
        "ro.build.type": "userdebug",
        "ro.build.version.codename": "REL",
        "ro.build.version.incremental": "12228598",
        "ro.build.version.release": "15",
        "ro.build.version.release_or_codename": "15",
        "ro.build.version.sdk": "35",
        "ro.build.version.security_patch": "2024-08-05",
        "ro.debuggable": "1",
        "ro.hardware": "ranchu",
        "ro.kernel.qemu": "1",
        "ro.product.board": "goldfish_x86_64",
        "ro.product.brand": "google",
        "ro.product.cpu.abi": "x86_64",
        "ro.product.cpu.abilist": "x86_64,arm64-v8a",
        "ro.product.device": "emu64xa",
        "ro.product.locale": "en-US",
        "ro.product.manufacturer": "Google",
        "ro.product.model": "sdk_gphone64_x86_64",
        "ro.product.name": "sdk_gphone64_x86_64",
        "ro.secure": "1",
        "ro.serialno": serial,
        "ro.sf.lcd_density": "420",
        "service.adb.root": "0",
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "net.hostname": f"android-{serial.replace('emulator-', '')}",
        "ro.kernel.android.qemud": "1",
        "qemu.sf.lcd_density": "420",
        "ro.adb.qemud": "1",
        "ro.boot.console_port": str(port),
    }


def builtin_apps() -> list[type[App]]:
    """The app classes a fresh device installs: the launcher, Settings, the system apps, MobiumApp and the market."""
    return [launcher.Launcher, *settings.APPS, *system.APPS, *documents.APPS, *mobiumapp.APPS,
            *market.APPS]
