from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CompetitionsConfig(AppConfig):
    name = "competitions"
    verbose_name = _("Competitions")

    def ready(self) -> None:
        # Connects the competitions' receivers of the registry's signals, and registers their
        # tasks for the worker (the services import them too).
        from competitions import receivers, tasks  # noqa: F401
