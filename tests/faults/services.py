"""Real parts the fault tests start, break and stop: a private PostgreSQL cluster, the site
under gunicorn, a Celery worker in its own process group. Each runs on 127.0.0.1, in a temporary
directory, and is stopped by the test that started it."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PG_PORT = 18543
"""The private PostgreSQL's port (another free port when it is taken)."""
SITE_PORT = 18580
"""The site's port under gunicorn (another free port when it is taken)."""


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def port_or_free(port: int) -> int:
    if port_free(port):
        return port
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(check: Callable[[], bool], *, timeout: float, what: str, every: float = 0.1) -> None:
    """Poll ``check`` until it is true; ``TimeoutError`` naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not happen within {timeout:g} s")
        time.sleep(every)


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's programs (Debian's layout), or ``None``."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4])
    )
    return Path(found[-1]).parent if found else None


def base_env(**extra: str) -> dict[str, str]:
    """A child's environment: PATH and HOME, the project's settings, and ``extra``."""
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    env["DJANGO_SETTINGS_MODULE"] = "matrixhockey.settings"
    env.update(extra)
    return env


class PrivatePostgres:
    """A PostgreSQL cluster of its own, in a temporary directory, on 127.0.0.1:``port``,
    trusting local connections as ``postgres``. PostgreSQL refuses to run as root: as root its
    programs run as the ``postgres`` system user (``runuser``)."""

    def __init__(self, bin_dir: Path, port: int = PG_PORT) -> None:
        self.bin = bin_dir
        self.port = port_or_free(port)
        self.dir = Path(tempfile.mkdtemp(prefix="mh-faults-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [*self.as_user, str(self.bin / program), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=self.dir,
        )
        if done.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"{program} {args} failed: {done.stdout}{done.stderr}\n{log}")

    def start(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync",
            "-E", "UTF8", "--locale", "C",
        )  # fmt: skip
        # The settings in the cluster's own file, so that every start and restart uses them.
        settings = (
            f"port = {self.port}\nunix_socket_directories = '{self.dir}'\n"
            "listen_addresses = '127.0.0.1'\n"
        )
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(settings)
        self.start_server()

    def stop_server(self) -> None:
        """``pg_ctl stop -m fast``: the server down (its files kept for :meth:`start_server`)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def start_server(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "start")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every session cut, the server down, then up again."""
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-m", "fast", "-w", "restart"
        )

    def create_database(self, name: str) -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)

    def restore_database(self, name: str, dump: bytes) -> None:
        """Database ``name`` made from ``dump`` (``pg_dump -Fc``, the test database's schema)."""
        self.create_database(name)
        subprocess.run(
            [str(self.bin / "pg_restore"), "--no-owner", "-h", "127.0.0.1", "-p",
             str(self.port), "-U", "postgres", "-d", name],
            input=dump, capture_output=True, timeout=60, check=True,
        )  # fmt: skip

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(
                [*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m",
                 "immediate", "-w", "stop"],
                capture_output=True, timeout=60, cwd=self.dir,
            )  # fmt: skip
        shutil.rmtree(self.dir, ignore_errors=True)


def manage(env: Mapping[str, str], *args: str, timeout: float = 120) -> str:
    """``manage.py args…`` in a fresh process with ``env``; its output (fails on an error)."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


class Process:
    """A child in a process group of its own (so a signal reaches all of it), its output in a
    file."""

    def __init__(self, command: list[str], env: Mapping[str, str], log: Path) -> None:
        self.log = log
        self.output = log.open("wb")
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=dict(env),
            stdout=self.output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """``sig`` to the whole process group (the worker and its pool's children)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)

    def stop(self, timeout: float = 20) -> None:
        if self.alive():
            self.kill(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill(signal.SIGKILL)
                self.process.wait(timeout=timeout)
        self.kill(signal.SIGKILL)  # what may remain of the group
        self.output.close()


def gunicorn_site(
    env: Mapping[str, str], log: Path, *, workers: int, threads: int, timeout: int
) -> tuple[Process, str]:
    """The site under gunicorn on :data:`SITE_PORT` (or a free port) and its address, once its
    ``/healthz`` answers 200."""
    port = port_or_free(SITE_PORT)
    server = Process(
        [sys.executable, "-m", "gunicorn", "matrixhockey.wsgi:application",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
         "--timeout", str(timeout)],
        env,
        log,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"

    def serving() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=30) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    try:
        wait_for(serving, timeout=30, what="gunicorn serving the site", every=0.3)
    except BaseException:
        server.stop()
        raise
    return server, url


def celery_worker(env: Mapping[str, str], log: Path, *, name: str) -> Process:
    """A real Celery worker (prefork, one child) for the project, ready to take tasks."""
    worker = Process(
        [
            sys.executable, "-m", "celery", "-A", "matrixhockey", "worker", "--pool=prefork",
            "--concurrency=1", "--loglevel=INFO", "--without-gossip", "--without-mingle",
            "--without-heartbeat", "-n", f"{name}@%h",
        ],
        env,
        log,
    )  # fmt: skip
    wait_for(
        lambda: "ready." in worker.text() or not worker.alive(),
        timeout=45,
        what="the Celery worker's start",
    )
    if not worker.alive():
        raise RuntimeError(f"the Celery worker stopped:\n{worker.text()}")
    return worker


class PrivateRedis:
    """A ``redis-server`` of its own on 127.0.0.1:``port``, its data in a temporary directory
    (appended to its file at every write, so a restart keeps the queues, as a production Redis
    with persistence does). It can be stopped and started again on the same port, or hung with
    SIGSTOP: it then accepts connections and answers nothing, as a Redis that hangs does."""

    def __init__(self, server: str, port: int) -> None:
        self.server = server
        self.port = port_or_free(port)
        self.dir = Path(tempfile.mkdtemp(prefix="mh-faults-redis-"))
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def answers(self) -> bool:
        with socket.socket() as probe:
            probe.settimeout(1)
            try:
                probe.connect(("127.0.0.1", self.port))
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")
            except OSError:
                return False

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        wait_for(self.answers, timeout=20, what="the private redis-server's start", every=0.05)

    def stop(self) -> None:
        """SIGTERM and wait: the server down, its data kept for :meth:`start`."""
        if self.process is not None and self.process.poll() is None:
            self.resume()
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process = None

    def hang(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
