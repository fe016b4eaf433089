"""The site's Permissions-Policy (``PERMISSIONS_POLICY``) as Debian's Chromium reads it: every
feature named is one it knows — it warns in the console, on every page, about one it does not —
and the features refused are refused to the page's scripts."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import Launch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_chromium_knows_every_feature_of_the_policy_and_refuses_them(
    browser: Launch, live_server: LiveServer
) -> None:
    page = browser()
    heard: list[str] = []

    def listen(message: ConsoleMessage) -> None:
        heard.append(message.text)

    page.on("console", listen)
    response = page.goto(live_server.url + "/rules/")
    assert response is not None and response.status == 200
    assert "camera=()" in response.headers["permissions-policy"]
    assert not [text for text in heard if "Permissions-Policy" in text]
    allowed = page.evaluate(
        "['camera', 'microphone', 'geolocation', 'payment', 'usb']"
        ".filter((f) => document.featurePolicy.allowsFeature(f))"
    )
    assert allowed == []
