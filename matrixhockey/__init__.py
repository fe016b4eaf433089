"""The Django project of the Matrix Hockey league server."""

from matrixhockey.celery import app as celery_app

__all__ = ("celery_app",)
