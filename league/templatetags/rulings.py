"""Citations of the rulings made into links to them, for every page and email that cites one.

``{% load rulings %}`` then:

- ``{{ text|ruling_links }}``: escapes ``text`` (unless it is already marked safe), then turns
  each ``R<n>`` into ``<a href="/rules/#r<n>">R<n></a>``: R1–R25 land on their section of the
  guide (``rules``), a ruling the league added (R26 on) on its entry of the rulings page
  (``rulings``). For a translated sentence:
  ``{% translate "… (R14)." as text %}{{ text|ruling_links }}``.
  Never on text that goes into an attribute (``title="…"``); in text already marked safe,
  only what lies between its tags is linked.
- ``{{ text|ruling_links:"absolute" }}``: the same with the site's absolute address, for HTML
  emails.
- ``{% rules_url %}``: the guide's absolute address, for a plain-text email's « Rules: » line.
"""

from __future__ import annotations

import re
from typing import cast

from django import template
from django.urls import reverse
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe

from league.models import BUILT_IN_RULINGS
from matrixhockey.site import site_url

register = template.Library()

CITATION = re.compile(r"\bR([1-9][0-9]?)\b")
"""``R1`` … ``R99`` as a word: ``R14``, ``(R14)``, ``R14's``; not ``R140`` nor ``TR14``."""
TAG = re.compile(r"(<[^>]*>)")
LINK_OPEN = re.compile(r"<a[\s>]", re.IGNORECASE)


def ruling_url(number: int, *, absolute: bool = False) -> str:
    """Where a citation of ruling ``number`` leads: the guide's section for R1–R25, the rulings
    page's entry for a ruling added since."""
    page = reverse("rules") if number <= BUILT_IN_RULINGS else reverse("rulings")
    url = f"{page}#r{number}"
    return site_url(url) if absolute else url


@register.filter(needs_autoescape=True)
def ruling_links(text: object, arg: str = "", autoescape: bool = True) -> SafeString:
    """``text`` escaped, with every ``R<n>`` a link to that ruling (``arg``: \"absolute\")."""
    # Escaped even where autoescaping is off: the answer is HTML with links in it.
    # conditional_escape takes any object (its __html__, or its str() escaped); the stubs ask
    # for text (django-stubs issue 1474).
    safe = conditional_escape(cast(str, text))
    absolute = arg == "absolute"

    def link(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return f'<a href="{escape(ruling_url(number, absolute=absolute))}">R{number}</a>'

    # Text already marked safe may hold tags: citations are linked between tags only, and
    # not inside a link already there.
    out, inside_link = [], 0
    for part in TAG.split(str(safe)):
        if part.startswith("<"):
            if LINK_OPEN.match(part):
                inside_link += 1
            elif part.startswith("</a") and inside_link:
                inside_link -= 1
            out.append(part)
        else:
            out.append(part if inside_link else CITATION.sub(link, part))
    return mark_safe("".join(out))


@register.simple_tag
def rules_url() -> str:
    """The guide's absolute address (plain-text emails)."""
    return site_url(reverse("rules"))
