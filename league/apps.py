from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeagueConfig(AppConfig):
    name = "league"
    verbose_name = _("League")

    def ready(self) -> None:
        # Registers the site's system checks (matrixhockey imports no app, so an app does it):
        # the registry's sign-in is what a miscounted proxy turns against the league.
        from matrixhockey import checks  # noqa: F401
