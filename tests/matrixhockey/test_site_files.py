"""The icon, the crawlers' file and every page's description: nothing a browser asks for at the
root answers 404, and every page says what the site is."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db


def test_every_page_declares_the_svg_icon_and_the_icon_exists(client: Client) -> None:
    html = client.get("/").content.decode()
    link = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
    assert link is not None
    assert finders.find("favicon.svg") is not None


def test_favicon_ico_leads_to_the_svg_icon(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("favicon.svg")


def test_robots_keeps_crawlers_out_of_desks_accounts_and_the_api(client: Client) -> None:
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    body = response.content.decode()
    for path in ("/admin/", "/desk/", "/referee/", "/accounts/", "/picks/", "/api/"):
        assert f"Disallow: {path}" in body
    assert "Disallow: /\n" not in body  # the public pages stay open
    # The sign-in and forgotten-password pages are public pages like the others.
    for path in ("/accounts/login/", "/accounts/password_reset/"):
        assert f"Allow: {path}" in body


@pytest.mark.parametrize(("language", "words"), [("en", "play-by-email"), ("fr", "par e-mail")])
def test_every_page_has_a_description_in_the_reader_s_language(language: str, words: str) -> None:
    html = Client(headers={"accept-language": language}).get("/").content.decode()
    description = re.search(r'<meta name="description" content="([^"]+)">', html)
    assert description is not None and words in description.group(1)
