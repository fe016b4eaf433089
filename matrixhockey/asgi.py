"""ASGI entry point, for servers that speak ASGI."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "matrixhockey.settings")

application = get_asgi_application()

# As the WSGI entry point: a settings mistake that would turn the site against its users stops it.
from matrixhockey.checks import refuse_to_start  # noqa: E402  (needs the settings loaded)

refuse_to_start()
