"""What the registry tells the layers above it (the mail listens: ``mail.receivers_people``).

Each signal is sent inside the sending service's transaction, so what a receiver writes (an
email in the outbox) is committed with the action or not at all.
"""

from __future__ import annotations

from django.dispatch import Signal

coach_invited = Signal()
"""Sent (``user=``) for a coach whose account was created without a usable password (a first
season's import, a waiting-list team taking its place): the invitation to set one."""
