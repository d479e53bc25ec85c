"""`ime` (and `cmd input_method ime`, which the `ime` script execs) on the virtual device, as Android 15's
InputMethodManagerService answers it (ImeShellCommandController): list [-a] [-s], enable, disable, set, reset, help,
for user 0 (the device's only user). A refusal goes to stderr and exits 255 (ShellCommandResult.FAILURE)."""

from __future__ import annotations

from .base import Ctx, command

HELP = """ime <command>:
  list [-a] [-s]
    prints all enabled input methods.
      -a: see all input methods
      -s: only a single summary line of each
  enable [--user <USER_ID>] <ID>
    allows the given input method ID to be used.
      --user <USER_ID>: Specify which user to enable. Assumes the current user if not specified.
  disable [--user <USER_ID>] <ID>
    disallows the given input method ID to be used.
      --user <USER_ID>: Specify which user to disable. Assumes the current user if not specified.
  set [--user <USER_ID>] <ID>
    switches to the given input method ID.
      --user <USER_ID>: Specify which user to enable. Assumes the current user if not specified.
  reset [--user <USER_ID>]
    reset currently selected/enabled IMEs to the default ones as if the device is initially booted with the
    current locale.
      --user <USER_ID>: Specify which user to reset. Assumes the current user if not specified.
"""
FAILURE = 255


@command("ime")
def _ime(ctx: Ctx, args: list[str]) -> int:
    return ime_command(ctx, args)


def ime_command(ctx: Ctx, args: list[str]) -> int:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub in ("", "-h", "help"):
        ctx.out(HELP)
        return 0
    if sub == "list":
        return _list(ctx, rest)
    if sub in ("enable", "disable", "set"):
        ime_id = _id_after_user_option(rest)
        if ime_id is None:
            ctx.errln("Error: Argument expected after \"" + (rest[-1] if rest else sub) + "\"")
            return FAILURE
        return _enable(ctx, ime_id, sub == "enable") if sub != "set" else _set(ctx, ime_id)
    if sub == "reset":
        d = ctx.device
        d.reset_input_methods()
        ctx.outln("Reset current and enabled IMEs for user #0")
        ctx.outln(f"  Selected: {d.current_input_method()}")
        for ime_id in d.enabled_input_method_ids():
            ctx.outln(f"   Enabled: {ime_id}")
        return 0
    if sub == "tracing":
        ctx.outln("Unknown command: " + sub)  # b/180765389: `ime tracing` is cmd input_method tracing's now
        return FAILURE
    ctx.outln(f"Unknown command: {sub}")
    return FAILURE


def _id_after_user_option(rest: list[str]):
    it = iter(rest)
    for a in it:
        if a in ("--user", "-u"):
            next(it, None)  # user 0, the only one
            continue
        return a
    return None


def _list(ctx: Ctx, rest: list[str]) -> int:
    d = ctx.device
    all_of_them = "-a" in rest
    brief = "-s" in rest
    enabled = d.enabled_input_method_ids()
    methods = [m for m in d.input_methods() if all_of_them or m.id in enabled]
    if not all_of_them:
        methods.sort(key=lambda m: enabled.index(m.id))
    for m in methods:
        if brief:
            ctx.outln(m.id)
            continue
        # InputMethodInfo.dump under the id and a colon (appium-adb reads the unindented lines): its own lines and
        # the head of its service's ResolveInfo (the ApplicationInfo below it is left out)
        ctx.outln(f"{m.id}:")
        ctx.outln(f"  mId={m.id} mSettingsActivityName={m.settings_activity or 'null'} "
                  "mLanguageSettingsActivityName=null "
                  f"mIsVrOnly=false mIsVirtualDeviceOnly=false "
                  f"mSupportsSwitchingToNextInputMethod={str(m.supports_switching).lower()} "
                  "mInlineSuggestionsEnabled=false mSupportsInlineSuggestionsWithTouchExploration=false "
                  "mSuppressesSpellChecker=false mShowInInputMethodPicker=true mSupportsStylusHandwriting=false "
                  "mSupportsConnectionlessStylusHandwriting=false mStylusHandwritingSettingsActivityAttr=null")
        ctx.outln("  mIsDefaultResId=0x0")
        ctx.outln("  Service:")
        ctx.outln("    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false")
        ctx.outln("    ServiceInfo:")
        ctx.outln(f"      name={m.service}")
        ctx.outln(f"      packageName={m.package}")
        ctx.outln("      enabled=true exported=true directBootAware=false")
        ctx.outln("      permission=android.permission.BIND_INPUT_METHOD")
    return 0


def _enable(ctx: Ctx, ime_id: str, enable: bool) -> int:
    d = ctx.device
    if enable and d.input_method(ime_id) is None:
        ctx.errln(f"Unknown input method {ime_id} cannot be enabled for user #0")
        return FAILURE
    was = d.enable_input_method(ime_id, enable)
    ctx.outln(f"Input method {ime_id}: {'already ' if was == enable else 'now '}"
              f"{'enabled' if enable else 'disabled'} for user #0")
    return 0


def _set(ctx: Ctx, ime_id: str) -> int:
    if not ctx.device.select_input_method(ime_id):
        ctx.errln(f"Unknown input method {ime_id} cannot be selected for user #0")
        return FAILURE
    ctx.outln(f"Input method {ime_id} selected for user #0")
    return 0
