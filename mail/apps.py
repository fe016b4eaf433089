from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MailConfig(AppConfig):
    """The mail: the outbox, picks by email and the week's clock, fed by the layers below."""

    name = "mail"
    verbose_name = _("Mail and the week's clock")

    def ready(self) -> None:
        # Connects the mail's receivers, registers its tasks and its system checks.
        from mail import checks, receivers, tasks  # noqa: F401
