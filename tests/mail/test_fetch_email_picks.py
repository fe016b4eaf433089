"""``manage.py fetch_email_picks`` against a real IMAP server: Dovecot, started for each test.

Each test gets its own Dovecot (Debian's ``dovecot-imapd``) with a configuration in a temporary
directory: IMAP on 127.0.0.1 on free ports (plain with STARTTLS, and IMAPS), a self-signed
certificate, one user in a passwd file, a maildir. The ``.eml`` fixtures are delivered into the
maildir the way a mail server does (one file per message in ``new/``; Dovecot's INTERNALDATE is
the file's time). Without ``dovecot`` these tests are skipped, or fail with
``REQUIRE_SERVICES=1``.
"""

from __future__ import annotations

import grp
import imaplib
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from io import StringIO
from itertools import count
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import OperationalError
from pytest_django.fixtures import Settings

from competitions.models import LatePick, Pick
from league.models import Season
from mail import intake as services
from mail.models import InboundEmail, InboundFailure
from mail.tasks import email_fetch_picks
from tests.conftest import services_required
from tests.mail.test_ingest_email import AUTHSERV_ID, EML, EmailLeague, build_email_league

PARIS = ZoneInfo("Europe/Paris")
USER, PASSWORD = "picks", "imap-test-password"
_delivered = count(1)


def dovecot_binary() -> str | None:
    return shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin:/usr/local/sbin")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class ImapServer:
    """A running Dovecot: where it listens, its user's maildir, the certificate to trust."""

    port: int
    tls_port: int
    maildir: Path
    certificate: Path | None
    uid: int
    gid: int
    process: subprocess.Popen[bytes] = field(repr=False)

    def deliver(self, name: str, *, at: datetime, flags: str = "") -> Path:
        """Put fixture ``name`` in the inbox as received at ``at`` (``flags``: maildir letters,
        ``S`` for seen)."""
        folder = "cur" if flags else "new"
        unique = f"{int(at.timestamp())}.M{next(_delivered)}P{os.getpid()}.mh-test"
        path = self.maildir / folder / (f"{unique}:2,{flags}" if flags else unique)
        path.write_bytes((EML / name).read_bytes())
        os.utime(path, (at.timestamp(), at.timestamp()))
        os.chown(path, self.uid, self.gid)
        return path

    def connect(self) -> imaplib.IMAP4:
        connection = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        connection.login(USER, PASSWORD)
        return connection

    def flags(self, folder: str = "INBOX") -> dict[str, set[str]]:
        """Each message of ``folder`` by Message-ID, with its flags."""
        connection = self.connect()
        try:
            status, exists = connection.select(f'"{folder}"', readonly=True)
            assert status == "OK", folder
            if exists == [b"0"]:
                return {}
            _, data = connection.fetch("1:*", "(FLAGS BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
        finally:
            connection.logout()
        found: dict[str, set[str]] = {}
        for item in data:
            if not isinstance(item, tuple):
                continue
            flags = re.search(rb"FLAGS \(([^)]*)\)", item[0])
            message_id = re.search(rb"<[^>]+>", item[1])
            assert flags is not None and message_id is not None, item
            found[message_id.group().decode()] = set(flags.group(1).decode().split())
        return found


def _users() -> tuple[str, str, str, int, int]:
    """Dovecot's internal and login users, and the mail owner (uid, gid).

    As root, Debian's own ``dovecot``/``dovenull`` users and ``nobody`` for the mail (Dovecot
    refuses root for its login and mail processes); otherwise everything runs as the current
    user.
    """
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        return "dovecot", "dovecot", "dovenull", nobody.pw_uid, nobody.pw_gid
    me = pwd.getpwuid(os.geteuid())
    return me.pw_name, grp.getgrgid(os.getegid()).gr_name, me.pw_name, me.pw_uid, me.pw_gid


def _certificate(directory: Path) -> Path | None:
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(directory / "key.pem"),
            "-out",
            str(directory / "cert.pem"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    (directory / "key.pem").chmod(0o644)  # read by Dovecot's login processes; a test key
    return directory / "cert.pem"


def _config(directory: Path, port: int, tls_port: int, certificate: Path | None) -> Path:
    internal, internal_group, login, uid, gid = _users()
    ssl = (
        f"ssl = yes\nssl_cert = <{certificate}\nssl_key = <{directory / 'key.pem'}\n"
        if certificate
        else "ssl = no\n"
    )
    imaps = f"address = 127.0.0.1\n    port = {tls_port}" if certificate else "port = 0"
    config = directory / "dovecot.conf"
    config.write_text(
        f"""base_dir = {directory}/run
state_dir = {directory}/state
log_path = {directory}/dovecot.log
protocols = imap
listen = 127.0.0.1
{ssl}disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = {internal}
default_internal_group = {internal_group}
default_login_user = {login}
first_valid_uid = 1
mail_location = maildir:{directory}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {directory}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={directory}/mail/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    {imaps}
  }}
}}
service anvil {{
  chroot =
}}
service auth-worker {{
  user = $default_internal_user
}}
"""
    )
    return config


@pytest.fixture
def imap_server() -> Iterator[ImapServer]:
    binary = dovecot_binary()
    if binary is None:
        reason = "dovecot is not installed (apt-get install dovecot-imapd)"
        if services_required():
            pytest.fail(f"REQUIRE_SERVICES=1 and {reason}", pytrace=False)
        pytest.skip(reason)
    directory = Path(tempfile.mkdtemp(prefix="mh-dovecot-"))
    directory.chmod(0o755)  # Dovecot's own users go through it
    _internal, _group, _login, uid, gid = _users()
    maildir = directory / "mail" / USER
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    for path in (directory / "mail", maildir, *(maildir / s for s in ("cur", "new", "tmp"))):
        os.chown(path, uid, gid)
    (directory / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    port, tls_port = free_port(), free_port()
    certificate = _certificate(directory)
    config = _config(directory, port, tls_port, certificate)
    process = subprocess.Popen(
        [binary, "-F", "-c", str(config)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    server = ImapServer(port, tls_port, maildir, certificate, uid, gid, process)
    try:
        _wait_for(server, directory)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)


def _wait_for(server: ImapServer, directory: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            break
        try:
            server.connect().logout()
            return
        except (OSError, imaplib.IMAP4.error):
            time.sleep(0.02)
    log = directory / "dovecot.log"
    output = server.process.stdout.read().decode() if server.process.poll() is not None else ""
    problem = f"Dovecot did not answer: {output}{log.read_text() if log.exists() else ''}"
    if services_required():
        pytest.fail(problem, pytrace=False)
    pytest.skip(problem)


@pytest.fixture
def league(season: Season, coach: User, other_coach: User, settings: Settings) -> EmailLeague:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    return build_email_league(season, coach, other_coach)


@pytest.fixture
def mailbox(imap_server: ImapServer, settings: Settings) -> ImapServer:
    """The league reads ``imap_server``: plain IMAP on 127.0.0.1, no TLS (the defaults being
    IMAPS, or STARTTLS, are tested apart)."""
    settings.IMAP_HOST = "127.0.0.1"
    settings.IMAP_PORT = imap_server.port
    settings.IMAP_SSL = False
    settings.IMAP_STARTTLS = False
    settings.IMAP_USER = USER
    settings.IMAP_PASSWORD = PASSWORD
    settings.IMAP_FOLDER = "INBOX"
    settings.IMAP_PROCESSED_FOLDER = ""
    return imap_server


def fetch() -> str:
    out = StringIO()
    call_command("fetch_email_picks", stdout=out, stderr=StringIO())
    return out.getvalue()


def paris(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=PARIS)


def stored() -> list[tuple[str, int, str, datetime]]:
    return [
        (p.round.competition, p.round.number, p.normalized, p.received_at)
        for p in Pick.objects.order_by("id").select_related("round")
    ]


# --- Reading the mailbox --------------------------------------------------------------------------


@pytest.mark.django_db
def test_unseen_messages_are_ingested_at_their_internaldate_and_marked_seen(
    league: EmailLeague, mailbox: ImapServer
) -> None:
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    mailbox.deliver("two-competitions.eml", at=paris(5, 8, 5))
    # Its Received header says Saturday: the mailbox's INTERNALDATE (Thursday) decides.
    mailbox.deliver("late.eml", at=paris(5, 9))
    mailbox.deliver("unknown-sender.eml", at=paris(5, 9, 30))
    output = fetch()
    assert sorted(stored(), key=lambda s: s[3]) == [
        ("championship", 1, "F+(2)", paris(4, 10)),
        ("championship", 1, "F+(2)", paris(5, 8, 5)),
        ("kdh", 1, "C(1)(4)", paris(5, 8, 5)),
        ("championship", 1, "E+(1)", paris(5, 9)),
    ]
    assert LatePick.objects.count() == 0
    assert InboundEmail.objects.count() == 4
    assert "4 messages ingested, 0 failed" in output
    assert all("\\Seen" in flags for flags in mailbox.flags().values())
    assert len(mailbox.flags()) == 4


@pytest.mark.django_db
def test_a_message_the_mailbox_received_after_the_deadline_goes_to_the_referees_queue(
    league: EmailLeague, mailbox: ImapServer
) -> None:
    mailbox.deliver("fr-championship.eml", at=paris(6, 17, 0))  # R13: 17:00 is too late
    fetch()
    assert stored() == []
    late = LatePick.objects.get()
    assert (late.notation, late.received_at) == ("F+(2)", paris(6, 17))


@pytest.mark.django_db
def test_seen_messages_are_left_alone_and_a_second_run_reads_nothing(
    league: EmailLeague, mailbox: ImapServer
) -> None:
    mailbox.deliver("fr-championship.eml", at=paris(4, 10), flags="S")
    mailbox.deliver("round-number.eml", at=paris(4, 22))
    fetch()
    assert [(c, n, p) for c, n, p, _at in stored()] == [
        ("championship", 2, "B(3)"),
        ("championship", 3, "C++(0)"),
    ]
    assert "0 messages ingested" in fetch()
    assert Pick.objects.count() == 2


@pytest.mark.django_db
def test_the_same_message_delivered_twice_is_stored_once_and_both_are_seen(
    league: EmailLeague, mailbox: ImapServer
) -> None:
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    mailbox.deliver("fr-championship.eml", at=paris(4, 10, 1))
    output = fetch()
    assert len(stored()) == 1
    assert "duplicate" in output
    connection = mailbox.connect()
    connection.select("INBOX", readonly=True)
    _, unseen = connection.search(None, "UNSEEN")
    connection.logout()
    assert unseen == [b""]


@pytest.mark.django_db
def test_a_message_that_fails_stays_unseen_and_is_read_at_the_next_run(
    league: EmailLeague, mailbox: ImapServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    mailbox.deliver("kdh-great-save.eml", at=paris(4, 12))
    real_ingest = services.email_ingest

    def flaky(*, raw: bytes, received_at: datetime | None = None) -> services.EmailIngestResult:
        if b"<fr-championship.1@mail.example.org>" in raw:
            raise RuntimeError("database went away")
        return real_ingest(raw=raw, received_at=received_at)

    monkeypatch.setattr(services, "email_ingest", flaky)
    with pytest.raises(CommandError, match="1 message"):
        fetch()
    flags = mailbox.flags()
    assert "\\Seen" not in flags["<fr-championship.1@mail.example.org>"]
    assert "\\Seen" in flags["<kdh-great-save.4@mail.example.org>"]
    assert stored() == []
    monkeypatch.setattr(services, "email_ingest", real_ingest)
    fetch()
    assert stored() == [("championship", 1, "F+(2)", paris(4, 10))]
    assert all("\\Seen" in f for f in mailbox.flags().values())


def failing_for(message_id: bytes, error: Exception) -> object:
    """``email_ingest`` failing with ``error`` for the message ``message_id``, only."""
    real_ingest = services.email_ingest

    def ingest(*, raw: bytes, received_at: datetime | None = None) -> services.EmailIngestResult:
        if message_id in raw:
            raise error
        return real_ingest(raw=raw, received_at=received_at)

    return ingest


FR_CHAMPIONSHIP = "<fr-championship.1@mail.example.org>"


@pytest.mark.django_db
def test_a_message_that_keeps_failing_is_set_aside_after_three_tries_and_recorded(
    league: EmailLeague, mailbox: ImapServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    mailbox.deliver("kdh-great-save.eml", at=paris(4, 12))
    broken = failing_for(FR_CHAMPIONSHIP.encode(), RuntimeError("a bug on this message"))
    monkeypatch.setattr(services, "email_ingest", broken)
    for attempt in (1, 2):
        with pytest.raises(CommandError, match="1 message"):
            fetch()
        assert "\\Seen" not in mailbox.flags()[FR_CHAMPIONSHIP]
        assert InboundFailure.objects.get().attempts == attempt
    with pytest.raises(CommandError, match="1 set aside"):
        fetch()
    assert {"\\Seen", "\\Flagged"} <= mailbox.flags()[FR_CHAMPIONSHIP]
    failure = InboundFailure.objects.get()
    assert (failure.attempts, failure.message_id, failure.sender) == (
        3,
        FR_CHAMPIONSHIP,
        "sleigh-coach@example.org",
    )
    assert failure.set_aside_at is not None and "a bug on this message" in failure.last_error
    assert "0 messages ingested, 0 failed" in fetch()  # no fourth try
    assert stored() == []


@pytest.mark.django_db
def test_a_message_set_aside_moves_to_the_failed_folder_when_one_is_set(
    league: EmailLeague, mailbox: ImapServer, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.IMAP_FAILED_FOLDER = "Failed"
    settings.MAIL_FETCH_MAX_ATTEMPTS = 1
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    monkeypatch.setattr(
        services, "email_ingest", failing_for(FR_CHAMPIONSHIP.encode(), ValueError("no"))
    )
    with pytest.raises(CommandError):
        fetch()
    assert mailbox.flags("INBOX") == {}
    assert {"\\Seen", "\\Flagged"} <= mailbox.flags("Failed")[FR_CHAMPIONSHIP]


@pytest.mark.django_db
def test_a_database_that_fails_counts_no_try_and_a_message_read_at_last_forgets_its_failures(
    league: EmailLeague, mailbox: ImapServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    message_id = FR_CHAMPIONSHIP.encode()
    monkeypatch.setattr(services, "email_ingest", failing_for(message_id, RuntimeError("bug")))
    with pytest.raises(CommandError):
        fetch()
    assert InboundFailure.objects.get().attempts == 1
    down = OperationalError("the database is down")
    monkeypatch.setattr(services, "email_ingest", failing_for(message_id, down))
    for _run in range(3):
        with pytest.raises(CommandError):
            fetch()
    assert InboundFailure.objects.get().attempts == 1
    assert "\\Seen" not in mailbox.flags()[FR_CHAMPIONSHIP]
    monkeypatch.undo()
    fetch()
    assert stored() == [("championship", 1, "F+(2)", paris(4, 10))]
    assert not InboundFailure.objects.exists()


@pytest.mark.django_db
def test_read_messages_move_to_the_processed_folder_when_one_is_set(
    league: EmailLeague, mailbox: ImapServer, settings: Settings
) -> None:
    settings.IMAP_PROCESSED_FOLDER = "Processed"
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    mailbox.deliver("bounce.eml", at=paris(4, 11))
    fetch()
    assert mailbox.flags("INBOX") == {}
    moved = mailbox.flags("Processed")
    assert set(moved) == {"<fr-championship.1@mail.example.org>", "<bounce.1@mail.example.org>"}
    assert all("\\Seen" in flags for flags in moved.values())
    assert len(stored()) == 1


@pytest.mark.django_db
def test_the_celery_task_reads_the_mailbox(league: EmailLeague, mailbox: ImapServer) -> None:
    mailbox.deliver("two-competitions.eml", at=paris(5, 8))
    assert email_fetch_picks.apply().get() == {"ingested": 1, "failed": 0, "set_aside": 0}
    assert len(stored()) == 2


# --- Connecting ---------------------------------------------------------------------------------


@pytest.fixture
def trusted_certificate(imap_server: ImapServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    if imap_server.certificate is None:
        pytest.skip("openssl is not installed: no certificate for the TLS tests")
    # ssl.create_default_context() trusts the file OpenSSL's SSL_CERT_FILE names.
    monkeypatch.setenv("SSL_CERT_FILE", str(imap_server.certificate))
    return imap_server.certificate


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["starttls", "imaps"])
def test_the_mailbox_is_read_over_tls_with_the_certificate_checked(
    league: EmailLeague,
    mailbox: ImapServer,
    trusted_certificate: Path,
    settings: Settings,
    mode: str,
) -> None:
    settings.IMAP_SSL = mode == "imaps"
    settings.IMAP_STARTTLS = True
    settings.IMAP_PORT = mailbox.tls_port if mode == "imaps" else mailbox.port
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    fetch()
    assert len(stored()) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["starttls", "imaps"])
def test_an_untrusted_certificate_is_refused(
    league: EmailLeague, mailbox: ImapServer, settings: Settings, mode: str
) -> None:
    if mailbox.certificate is None:
        pytest.skip("openssl is not installed: no certificate for the TLS tests")
    settings.IMAP_SSL = mode == "imaps"
    settings.IMAP_STARTTLS = True
    settings.IMAP_PORT = mailbox.tls_port if mode == "imaps" else mailbox.port
    mailbox.deliver("fr-championship.eml", at=paris(4, 10))
    with pytest.raises(CommandError, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify"):
        fetch()
    assert stored() == []
    assert "\\Seen" not in mailbox.flags()["<fr-championship.1@mail.example.org>"]


@pytest.mark.django_db
def test_a_wrong_password_is_an_error_naming_the_server(
    league: EmailLeague, mailbox: ImapServer, settings: Settings
) -> None:
    settings.IMAP_PASSWORD = "not-the-password"
    with pytest.raises(CommandError, match=f"127.0.0.1:{mailbox.port}"):
        fetch()


def test_without_a_mailbox_configured_the_command_says_so(settings: Settings) -> None:
    settings.IMAP_HOST = ""
    with pytest.raises(CommandError, match="IMAP_HOST is not set"):
        fetch()


def test_an_unreachable_server_is_an_error(settings: Settings) -> None:
    settings.IMAP_HOST = "127.0.0.1"
    settings.IMAP_PORT = free_port()
    settings.IMAP_SSL = False
    with pytest.raises(CommandError, match="cannot connect"):
        fetch()
