"""The competitions in the admin, one module per concern; importing this registers them."""

from competitions.admin import entries, picks, structure

__all__ = ["entries", "picks", "structure"]
