"""The device's `/system/bin/sh`: enough of mksh to run what the harness, adbutils, uiautomator2, Appium and
AndroidWorld send (`;`, `&&`, `||`, `!`, pipes, quoting, `$?`, redirections, `if`/`then`/`elif`/`else`/`fi`), and
the Android commands they call.

A command is `fn(ctx, args) -> exit status`; it writes through `ctx.out`/`ctx.err`. Output keeps its order across
stdout and stderr (the v1 shell protocol interleaves them on one stream; v2 separates them).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any, Callable

from .commands import COMMANDS
from .commands.base import SH, Ctx, ShellExit
from .device import VirtualDevice, VirtualDeviceError
from .filesystem import fs_listdir, fs_norm, fs_read, fs_write


class Output:
    """Ordered chunks of (stream, bytes): stream 1 = stdout, 2 = stderr."""

    def __init__(self) -> None:
        self.chunks: list[tuple[int, bytes]] = []

    def write(self, stream: int, data: bytes) -> None:
        if data:
            self.chunks.append((stream, data))

    def stdout(self) -> bytes:
        return b"".join(d for s, d in self.chunks if s == 1)

    def stderr(self) -> bytes:
        return b"".join(d for s, d in self.chunks if s == 2)

    def merged(self) -> bytes:
        return b"".join(d for _, d in self.chunks)


# ---------------------------------------------------------------------------------------------------------------
# parsing

class ParseError(Exception):
    pass


REDIRS = re.compile(r"^(\d?)(>>|>&|>|<&|<)$")


def tokenize(src: str) -> list[tuple[str, object]]:
    """Words (as ("word", [(quoted, text), …])) and operators (("op", text)). Expansion happens later, at run time,
    so `$?` sees the status of the command before it."""
    tokens: list[tuple[str, object]] = []
    i, n = 0, len(src)
    parts: list[tuple[str, str]] = []
    in_word = False

    def flush() -> None:
        nonlocal parts, in_word
        if in_word:
            tokens.append(("word", parts))
        parts, in_word = [], False

    while i < n:
        c = src[i]
        if c in " \t":
            flush()
            i += 1
        elif c == "#" and not in_word:
            while i < n and src[i] != "\n":
                i += 1
        elif c == "'":
            j = src.find("'", i + 1)
            if j < 0:
                raise ParseError("unterminated ' string")
            parts.append(("'", src[i + 1:j]))
            in_word = True
            i = j + 1
        elif c == '"':
            j = i + 1
            buf = []
            while j < n and src[j] != '"':
                if src[j] == "\\" and j + 1 < n and src[j + 1] in '"\\$`\n':
                    buf.append("\\" + src[j + 1] if src[j + 1] == "$" else src[j + 1])
                    j += 2
                    continue
                if src.startswith("$(", j) or src[j] == "`":
                    parts.append(('"', "".join(buf)))
                    buf = []
                    inner, j = _substitution(src, j)
                    parts.append(('"$(', inner))
                    continue
                buf.append(src[j])
                j += 1
            if j >= n:
                raise ParseError('unterminated " string')
            parts.append(('"', "".join(buf)))
            in_word = True
            i = j + 1
        elif src.startswith("$(", i) or c == "`":
            inner, i = _substitution(src, i)
            parts.append(("$(", inner))
            in_word = True
        elif c == "\\":
            if i + 1 < n:
                if src[i + 1] != "\n":
                    parts.append(("'", src[i + 1]))
                    in_word = True
                i += 2
            else:
                i += 1
        elif c in "|&;\n<>()":
            # a digit right before > or < is a file descriptor (2>&1)
            if c in "<>" and in_word and len(parts) == 1 and parts[0][0] == "" and parts[0][1].isdigit() \
                    and len(parts[0][1]) == 1:
                fd = parts[0][1]
                parts, in_word = [], False
            else:
                fd = ""
                flush()
            if c in "<>":
                op = c
                if i + 1 < n and src[i + 1] in ">&" and not (c == "<" and src[i + 1] == ">"):
                    op += src[i + 1]
                    i += 1
                tokens.append(("redir", fd + op))
                i += 1
                continue
            if c in "()":
                tokens.append(("op", c))
                i += 1
                continue
            two = src[i:i + 2]
            if two in ("&&", "||", ";;"):
                tokens.append(("op", two))
                i += 2
            else:
                tokens.append(("op", c))
                i += 1
        else:
            j = i
            while j < n and src[j] not in " \t'\"\\|&;\n<>()`" and not src.startswith("$(", j):
                j += 1
            parts.append(("", src[i:j]))
            in_word = True
            i = j
    flush()
    return tokens


def _substitution(src: str, i: int) -> tuple[str, int]:
    """`$(…)` or a backquoted command starting at i: -> (the inner command line, the index after it)."""
    if src[i] == "`":
        j = src.find("`", i + 1)
        if j < 0:
            raise ParseError("unterminated ` string")
        return src[i + 1:j], j + 1
    depth, j, n = 1, i + 2, len(src)
    while j < n:
        c = src[j]
        if c == "'":
            k = src.find("'", j + 1)
            if k < 0:
                break
            j = k + 1
            continue
        if c == '"':
            k = j + 1
            while k < n and src[k] != '"':
                k += 2 if src[k] == "\\" else 1
            j = k + 1
            continue
        if c == "\\":
            j += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return src[i + 2:j], j + 1
        j += 1
    raise ParseError("syntax error: missing ')'")


class Command:
    def __init__(self) -> None:
        self.words: list[list[tuple[str, str]]] = []
        self.redirs: list[tuple[str, list[tuple[str, str]]]] = []
        self.subshell: list | None = None
        # `if`: ([(condition, body), …] for the if and each elif, the else body or None)
        self.if_clause: tuple[list[tuple[list, list]], list | None] | None = None
        # `! pipeline`: set on the pipeline's first command
        self.negate = False

    @property
    def compound(self) -> bool:
        return self.subshell is not None or self.if_clause is not None


#: mksh's reserved words this shell knows. They are reserved only where a command starts and only unquoted, so
#: `echo fi` and `'if'` stay plain words.
RESERVED = ("if", "then", "elif", "else", "fi", "!")


def _reserved(token: tuple[str, object]) -> str | None:
    kind, val = token
    if kind == "word" and isinstance(val, list) and len(val) == 1 and val[0][0] == "" and val[0][1] in RESERVED:
        return val[0][1]
    return None


def parse(src: str) -> list[tuple[list[Command], str]]:
    """A list of (pipeline, connector-before-it). Connectors: "" (first), ";", "&&", "||"."""
    tokens = tokenize(src)
    return _parse_list(tokens, 0, len(tokens))[0]


def _parse_if(tokens, i, end) -> tuple[tuple, int]:
    """From just after `if` to just after its `fi`: the clauses and else body."""
    clauses: list[tuple[list, list]] = []
    else_body = None
    word = "if"
    while word in ("if", "elif"):
        cond, i, got = _parse_list(tokens, i, end, stops=("then",))
        if got != "then":
            raise ParseError(f"syntax error: '{word}' unmatched")
        if not cond:
            raise ParseError("syntax error: 'then' unexpected")
        body, i, word = _parse_list(tokens, i, end, stops=("elif", "else", "fi"))
        if word is None:
            raise ParseError("syntax error: 'if' unmatched")
        if not body:
            raise ParseError(f"syntax error: '{word}' unexpected")
        clauses.append((cond, body))
    if word == "else":
        else_body, i, word = _parse_list(tokens, i, end, stops=("fi",))
        if word != "fi":
            raise ParseError("syntax error: 'if' unmatched")
        if not else_body:
            raise ParseError("syntax error: 'fi' unexpected")
    return (clauses, else_body), i


def _parse_list(tokens, i, end, closing: str | None = None, stops: tuple[str, ...] = ()):
    """Parses up to `end`, the `closing` parenthesis, or one of the reserved words `stops` where a command starts.
    Returns (list, index after what ended it, the stop word met or None)."""
    result: list[tuple[list[Command], str]] = []
    pipeline: list[Command] = []
    cmd = Command()
    connector = ""

    def end_command() -> None:
        nonlocal cmd
        if cmd.words or cmd.redirs or cmd.compound:
            pipeline.append(cmd)
        elif pipeline:
            raise ParseError("syntax error: unexpected '|'")
        cmd = Command()

    def end_pipeline(next_connector: str, op: str) -> None:
        nonlocal pipeline, connector
        end_command()
        if not pipeline:
            if next_connector in ("&&", "||") or op in ("|",):
                raise ParseError(f"syntax error: unexpected '{op}'")
            connector = connector or ""
            return
        result.append((pipeline, connector))
        pipeline = []
        connector = next_connector

    while i < end:
        kind, val = tokens[i]
        at_start = not (cmd.words or cmd.redirs or cmd.compound)
        word = _reserved(tokens[i]) if at_start else None
        if word is not None:
            if word == "!" and not pipeline and not cmd.negate:
                cmd.negate = True
                i += 1
                continue
            if word == "if":
                cmd.if_clause, i = _parse_if(tokens, i + 1, end)
                continue
            if word in stops:
                if pipeline or cmd.negate or (connector in ("&&", "||") and result):
                    raise ParseError(f"syntax error: '{word}' unexpected")
                end_command()
                return result, i + 1, word
            raise ParseError(f"syntax error: '{word}' unexpected")
        if kind == "word":
            if cmd.compound:
                raise ParseError(f"syntax error: '{_plain(val)}' unexpected")
            cmd.words.append(val)  # type: ignore[arg-type]
        elif kind == "redir":
            if i + 1 >= end or tokens[i + 1][0] != "word":
                raise ParseError("syntax error: newline unexpected")
            cmd.redirs.append((val, tokens[i + 1][1]))  # type: ignore[arg-type]
            i += 1
        elif val == "|":
            if not (cmd.words or cmd.compound):
                raise ParseError("syntax error: unexpected '|'")
            end_command()
        elif val in ("&&", "||"):
            if not (cmd.words or cmd.compound or cmd.redirs):
                raise ParseError(f"syntax error: unexpected '{val}'")
            end_pipeline(val, val)
        elif val in (";", "\n", "&"):
            if cmd.negate and not (cmd.words or cmd.compound):
                raise ParseError(f"syntax error: unexpected '{val}'")
            if val == ";" and not (cmd.words or cmd.compound or pipeline) and not result \
                    and connector == "":
                raise ParseError("syntax error: unexpected ';'")
            end_pipeline(";" if (cmd.words or pipeline or cmd.compound) else connector or ";", val)
        elif val == "(":
            if cmd.words or cmd.compound:
                raise ParseError("syntax error: unexpected '('")
            inner, i, _ = _parse_list(tokens, i + 1, end, ")")
            cmd.subshell = inner
            continue
        elif val == ")":
            if closing == ")":
                end_pipeline("", val)
                return result, i + 1, None
            raise ParseError("syntax error: unexpected ')'")
        else:
            raise ParseError(f"syntax error: unexpected '{val}'")
        i += 1
    if closing:
        raise ParseError("syntax error: missing ')'")
    if cmd.negate and not (cmd.words or cmd.compound):
        raise ParseError("syntax error: unexpected end of file")
    end_command()
    if pipeline:
        result.append((pipeline, connector))
    elif connector in ("&&", "||"):
        raise ParseError("syntax error: unexpected end of file")
    return result, i, None


def _plain(word) -> str:
    return "".join(part for _, part in word)


# ---------------------------------------------------------------------------------------------------------------
# the shell

class Shell:
    def __init__(self, device: VirtualDevice):
        self.device = device
        self.status = 0
        self.top_out: Callable[[bytes], None] | None = None
        self.cwd = "/"
        # set by a blocking logcat (no -d): a commands.logcat.LogFollow, polled for what is logged from then on
        self.follow: Any = None
        # set by a command that runs on after it returns (`am instrument -w`): an object whose wait(hung_up) blocks
        # until it ends or the client hangs up, and returns what it prints last
        self.hold: Any = None
        self.env = {"PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:"
                            "/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
                    "HOME": "/", "USER": "shell", "SHELL": SH, "EXTERNAL_STORAGE": "/sdcard",
                    "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system", "TMPDIR": "/data/local/tmp",
                    "HOSTNAME": self.device.props.get("ro.product.device", "emu64xa")}

    def run(self, src: str, stdin: bytes = b"") -> tuple[Output, int]:
        """Runs a command line; returns its ordered output and exit status. Never raises for bad input."""
        out = Output()
        self.follow = None
        self.hold = None
        with self.device.lock:
            self.device.run_due()
            try:
                self.top_out = lambda b: out.write(1, b)
                status = self._run_src(src, stdin, self.top_out, lambda b: out.write(2, b))
            except ShellExit as e:
                status = e.status
        return out, status & 0xFF

    def _run_src(self, src: str, stdin: bytes, out, err) -> int:
        try:
            tree = parse(src)
        except ParseError as e:
            err(f"{SH}: {e}\n".encode())
            self.status = 1 if "unterminated" not in str(e) else 1
            return 1
        return self._run_list(tree, stdin, out, err)

    def _run_list(self, tree, stdin: bytes, out, err) -> int:
        status = self.status
        for pipeline, connector in tree:
            if connector == "&&" and status != 0:
                continue
            if connector == "||" and status == 0:
                continue
            status = self._run_pipeline(pipeline, stdin, out, err)
            self.status = status
        return status

    def _run_pipeline(self, pipeline: list[Command], stdin: bytes, out, err) -> int:
        data = stdin
        status = 0
        for idx, cmd in enumerate(pipeline):
            last = idx == len(pipeline) - 1
            buf: list[bytes] = []
            sink = out if last else buf.append
            status = self._run_command(cmd, data, sink, err)
            data = b"" if last else b"".join(buf)
        if pipeline and pipeline[0].negate:
            return 0 if status else 1
        return status

    def _run_if(self, clause, stdin: bytes, out, err) -> int:
        clauses, else_body = clause
        for cond, body in clauses:
            if self._run_list(cond, stdin, out, err) == 0:
                return self._run_list(body, stdin, out, err)
        if else_body is not None:
            return self._run_list(else_body, stdin, out, err)
        return 0  # no branch taken: mksh's `if` exits 0

    # expansion

    def expand(self, word: list[tuple[str, str]], err: Callable[[bytes], None] | None = None) -> list[str]:
        text = []
        globbable = False
        if len(word) == 1 and word[0][0] == "$(":
            # an unquoted substitution alone: its output split into words
            return self._substitute(word[0][1], err).split()
        for quote, part in word:
            if quote == "'":
                text.append(part)
            elif quote in ("$(", '"$('):
                text.append(self._substitute(part, err))
            else:
                expanded = self._expand_vars(part)
                text.append(expanded)
                if quote == "" and any(c in part for c in "*?["):
                    globbable = True
        value = "".join(text)
        if globbable:
            matches = self.glob(value)
            if matches:
                return matches
        if not word:
            return [""]
        # an unquoted empty expansion disappears ($EMPTY); a quoted one stays as ""
        if value == "" and all(q == "" for q, _ in word):
            return []
        return [value]

    def _substitute(self, src: str, err: Callable[[bytes], None] | None) -> str:
        """Runs a command substitution; its output without trailing newlines ($? becomes its status)."""
        chunks: list[bytes] = []
        try:
            self.status = self._run_src(src, b"", chunks.append, err or _discard)
        except ShellExit as e:
            self.status = e.status
        return b"".join(chunks).decode(errors="replace").rstrip("\n")

    def _expand_vars(self, s: str) -> str:
        def sub(m: re.Match) -> str:
            name = m.group(1) or m.group(2)
            if name == "?":
                return str(self.status)
            if name == "$":
                return "4242"
            if name == "#":
                return "0"
            return self.env.get(name, "")
        out = re.sub(r"(?<!\\)\$(?:\{([A-Za-z_][A-Za-z0-9_]*|\?)\}|([A-Za-z_][A-Za-z0-9_]*|\?|\$|#))", sub, s)
        return out.replace("\\$", "$")

    def glob(self, pattern: str) -> list[str]:
        if "/" in pattern:
            directory, base = pattern.rsplit("/", 1)
            directory = directory or "/"
        else:
            directory, base = ".", pattern
        if not directory.startswith("/"):
            directory = self.cwd.rstrip("/") + "/" + directory
        names = fs_listdir(self.device, fs_norm(directory))
        if names is None:
            return []
        hits = sorted(n for n in names if fnmatch.fnmatchcase(n, base))
        prefix = pattern.rsplit("/", 1)[0] + "/" if "/" in pattern else ""
        return [prefix + h for h in hits]

    def _run_command(self, cmd: Command, stdin: bytes, out, err) -> int:
        argv: list[str] = []
        for w in cmd.words:
            argv.extend(self.expand(w, err))
        # variable assignments before a command (FOO=1 cmd) set the environment for it only; alone, for the shell
        assigns = {}
        while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):
            k, v = argv.pop(0).split("=", 1)
            assigns[k] = v
        if not argv:
            self.env.update(assigns)
        cmd_out, cmd_err = out, err
        files_to_write: list[tuple[str, bool, list[bytes]]] = []
        for op, target_word in cmd.redirs:
            targets = self.expand(target_word, err)
            target = targets[0] if targets else ""
            m = REDIRS.match(op)
            if not m:
                err(f"{SH}: syntax error: bad redirection '{op}'\n".encode())
                return 1
            fd = int(m.group(1)) if m.group(1) else (0 if m.group(2).startswith("<") else 1)
            kind = m.group(2)
            if kind == ">&":
                if target == "1":
                    if fd == 2:
                        cmd_err = cmd_out
                elif target == "2":
                    if fd == 1:
                        cmd_out = cmd_err
                elif target == "-":
                    pass
                else:
                    err(f"{SH}: {target}: illegal file descriptor name\n".encode())
                    return 1
                continue
            if kind == "<":
                content = fs_read(self.device, fs_norm(target if target.startswith("/")
                                                      else self.cwd.rstrip("/") + "/" + target))
                if content is None:
                    err(f"{SH}: can't open {target}: No such file or directory\n".encode())
                    return 1
                stdin = content
                continue
            path = fs_norm(target if target.startswith("/") else self.cwd.rstrip("/") + "/" + target)
            if path == "/dev/null":
                sink = _discard
            elif path in ("/dev/tty", "/dev/stdout"):
                sink = out
            elif path == "/dev/stderr":
                sink = err
            else:
                chunks: list[bytes] = []
                files_to_write.append((path, kind == ">>", chunks))
                sink = chunks.append
                if kind == ">" and not fs_write(self.device, path, b"", append=False):
                    err(f"{SH}: can't create {target}: Permission denied\n".encode())
                    return 1
            if fd == 1:
                cmd_out = sink
            elif fd == 2:
                cmd_err = sink
        if cmd.if_clause is not None:
            status = self._run_if(cmd.if_clause, stdin, cmd_out, cmd_err)
        elif cmd.subshell is not None:
            try:
                status = self._run_list(cmd.subshell, stdin, cmd_out, cmd_err)
            except ShellExit as e:
                status = e.status  # `exit` in ( … ) leaves the subshell only
        elif not argv:
            status = 0
        else:
            name = argv[0]
            base = name.rsplit("/", 1)[-1] if re.match(r"^/(system/bin|system/xbin|bin|vendor/bin)/", name) \
                else name
            fn = COMMANDS.get(base)
            ctx = Ctx(self, stdin, cmd_out, cmd_err)
            ctx.argv0 = base
            if fn is None:
                cmd_err(f"{SH}: {name}: inaccessible or not found\n".encode())
                status = 127
            else:
                saved_env = dict(self.env)
                self.env.update(assigns)
                if base != "virtual-clock":  # the harness's own hand on the clock is no command of the device's
                    self.device.clock.tick()
                try:
                    status = fn(ctx, argv[1:])
                except ShellExit:
                    raise
                except VirtualDeviceError as e:
                    cmd_err(f"{e}\n".encode())
                    status = 255
                except Exception as e:  # noqa: BLE001 - a bug in a command must look like Android's exception print
                    cmd_err(_exception_text(base, argv[1:], e).encode())
                    status = 255
                finally:
                    if assigns:
                        self.env = saved_env
        for path, _append, chunks in files_to_write:
            fs_write(self.device, path, b"".join(chunks), append=True)
        return status


def _discard(_: bytes) -> None:
    pass


def _exception_text(cmd: str, args: list[str], exc: Exception) -> str:
    sub = args[0] if args else cmd
    return (f"\nException occurred while executing '{sub}':\n"
            f"java.lang.IllegalArgumentException: {exc}\n"
            f"\tat com.android.server.{cmd}.ShellCommand.onCommand(ShellCommand.java:97)\n"
            f"\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n"
            f"\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n")
