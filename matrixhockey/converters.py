"""The site's path converters, registered when this module is first imported (the URL modules
that use them import it).

``<num:…>`` is a round's number, a week, a season, a row's id in an address: up to nine digits,
so that an address naming a number no column can hold (``/api/picks/kdh/27290375774247532356/``)
is a plain 404 — no such page — instead of a query the database refuses."""

from __future__ import annotations

from django.urls import register_converter


class NumberConverter:
    regex = "[0-9]{1,9}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(NumberConverter, "num")
