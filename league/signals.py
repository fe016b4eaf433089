"""What the registry tells the layers above it (the mail listens: ``mail.receivers_people``).

Each signal is sent inside the sending service's transaction, so what a receiver writes (an
email in the outbox) is committed with the action or not at all.
"""

from __future__ import annotations

from django.dispatch import Signal

coach_invited = Signal()
"""Sent (``user=``) for a coach whose account was created without a usable password (a first
season's import, a waiting-list team taking its place): the invitation to set one."""

deputy_ended = Signal()
"""Sent (``team=``, ``deputy=``) when ``deputy`` stops deputising ``team`` because they now coach
a team of their own (a person is never coach of one team and deputy of another): the email
that tells the team's coach, in their language."""

password_reset_requested = Signal()
"""Sent (``user=``) when someone asks, with ``user``'s email address, for a link to choose a new
password: the email with the link, in ``user``'s language."""

waiting_list_registered = Signal()
"""Sent (``entry=``, ``known=``, ``in_reply_to=``: the Message-ID of the email that asked, or
empty) when a visitor registers on the waiting list: the email with the
link that confirms the address (``known=False``), or, when the address is already on the list,
the link to its place (``known=True``)."""

plan_inputs_changed = Signal()
"""Sent (no arguments) when something the next season's plan is computed from changes in the
registry between two seasons: the waiting list (an address confirmed, a team leaving it) or a
team (made, renamed or removed in the admin). The competitions store the plan again
(``competitions.services.season_plan_refresh``) in the sender's transaction, so that the pages
reading it never compute it on a GET."""

news_email_requested = Signal()
"""Sent (``news=``) when an admin asks for a news item to be emailed to every coach now: the mail
queues the emails once the transaction commits."""
