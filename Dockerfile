# The league server's image: web (gunicorn), worker and beat (Celery) all run it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    # The code runs from /app (templates, static files and catalogues sit beside it).
    PYTHONPATH=/app

RUN apt-get update \
    && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
RUN pip install .

# Build-time settings only: the real ones come from the environment at run time.
RUN DJANGO_DEBUG=0 DJANGO_SECRET_KEY=collectstatic-only DJANGO_ALLOWED_HOSTS=build \
    python manage.py collectstatic --noinput \
    && DJANGO_DEBUG=0 DJANGO_SECRET_KEY=compilemessages-only DJANGO_ALLOWED_HOSTS=build \
    python manage.py compilemessages --ignore '.venv'

RUN useradd --create-home --uid 10001 matrixhockey
USER matrixhockey

EXPOSE 8000
# As docker-compose.yml's web: 3 workers of 4 threads (gunicorn alone would start 1 sync worker).
CMD ["gunicorn", "matrixhockey.wsgi:application", "--bind", "0.0.0.0:8000", \
     "--workers", "3", "--worker-class", "gthread", "--threads", "4"]
