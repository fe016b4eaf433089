from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MailConfig(AppConfig):
    """The mail: the outbox, picks by email and the week's clock, fed by the layers below."""

    name = "mail"
    verbose_name = _("Mail and the week's clock")

    def ready(self) -> None:
        # Connects the mail's receivers, registers its tasks and its system checks, and registers
        # every kind of email with what renders it (``mail.outbox.RENDERINGS``), in the web's
        # processes and the worker's alike.
        from mail import (  # noqa: F401
            checks,
            emails,
            emails_accounts,
            emails_replies,
            news,
            receivers,
            tasks,
            weekly,
        )
