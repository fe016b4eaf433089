"""WSGI entry point: ``gunicorn matrixhockey.wsgi:application``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "matrixhockey.settings")

application = get_wsgi_application()

# A settings mistake that would turn the site against its users stops it here (no command
# ran Django's checks before the server).
from matrixhockey.checks import refuse_to_start  # noqa: E402  (needs the settings loaded)

refuse_to_start()
