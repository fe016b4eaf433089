from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CompetitionsConfig(AppConfig):
    name = "competitions"
    verbose_name = _("Competitions")

    def ready(self) -> None:
        # Registers the competitions' tasks for the worker (the services import them too).
        from competitions import tasks  # noqa: F401
