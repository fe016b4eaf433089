"""« Join the league » (``/join/``): a visitor registers a team on the waiting list, confirms
the address with the emailed link, sees the team's place and leaves the list."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings

from competitions.services.replacement import waiting_list_place
from league.links import waiting_place_path
from league.models import Profile, WaitingListEntry
from league.selectors import user_language
from tests.league.accounts_helpers import Capture, html_of, link_in, post_committed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("delivered")]

JOIN = "/join/"
FORM = {
    "contact_name": "Jeanne Puck",
    "email": "jeanne@example.org",
    "team_name": "Les Castors",
    "language": "en",
}
Status = WaitingListEntry.Status


def register(client: Client, capture: Capture, **changes: str) -> object:
    return post_committed(client, capture, JOIN, {**FORM, **changes})


def waiting(name: str, minutes_ago: int) -> WaitingListEntry:
    """A team staff put on the list in the admin (on the list at once)."""
    return WaitingListEntry.objects.create(
        name=name,
        email=f"{name.lower()}@example.org",
        registered_at=timezone.now() - timedelta(minutes=minutes_ago),
    )


def confirm_link() -> str:
    return link_in(mail.outbox[-1], r"/join/confirm/\S+/")


def test_the_form_is_open_to_visitors(client: Client, db: None) -> None:
    page = client.get(JOIN)
    assert page.status_code == 200
    assert "Join the league" in page.text and 'autocomplete="email"' in page.text


def test_a_visitor_joins_with_a_confirmed_email_and_sees_their_place(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    waiting("Yetis", minutes_ago=30)
    waiting("Walruses", minutes_ago=20)
    sent = register(client, django_capture_on_commit_callbacks)
    assert sent["Location"] == "/join/sent/"
    assert "jeanne@example.org" in client.get("/join/sent/").text
    entry = WaitingListEntry.objects.get(email="jeanne@example.org")
    assert (entry.status, entry.name, entry.contact_name, entry.language) == (
        Status.PENDING,
        "Les Castors",
        "Jeanne Puck",
        "en",
    )
    # Not on the list before the address is confirmed.
    assert list(
        WaitingListEntry.objects.filter(status=Status.WAITING).values_list("name", flat=True)
    ) == ["Yetis", "Walruses"]
    [email] = mail.outbox
    assert email.to == ["jeanne@example.org"]
    assert 'lang="en"' in html_of(email) and "/join/confirm/" in html_of(email)

    place = client.get(confirm_link(), follow=True)
    assert place.status_code == 200
    assert place["Cache-Control"] == "no-store" and place["Referrer-Policy"] == "same-origin"
    assert "Your email address is confirmed" in place.text
    assert "3 of 3" in place.text
    entry.refresh_from_db()
    assert entry.status == Status.WAITING and entry.confirmed_at is not None


def test_a_second_click_on_the_link_changes_nothing_and_says_so(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    register(client, django_capture_on_commit_callbacks)
    client.get(confirm_link())
    joined = WaitingListEntry.objects.get().registered_at
    again = client.get(confirm_link(), follow=True)
    assert again.status_code == 200
    assert "This link was used already: nothing changed." in again.text
    assert "1 of 1" in again.text
    assert WaitingListEntry.objects.get().registered_at == joined


def test_an_address_already_on_the_list_keeps_its_place_and_gets_its_link(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    register(client, django_capture_on_commit_callbacks)
    client.get(confirm_link())
    waiting("Yetis", minutes_ago=0)
    again = register(client, django_capture_on_commit_callbacks, email="JEANNE@example.org")
    assert again["Location"] == "/join/sent/"
    assert WaitingListEntry.objects.filter(email__iexact="jeanne@example.org").count() == 1
    known = mail.outbox[-1]
    assert "is on the waiting list" in known.subject
    assert "number 1 of 2" in known.body
    place = client.get(link_in(known, r"/join/place/\S+/"))
    assert "1 of 2" in place.text


def test_registering_again_before_confirming_sends_a_new_link_for_the_same_entry(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    register(client, django_capture_on_commit_callbacks)
    register(client, django_capture_on_commit_callbacks, team_name="Les Castors Bleus")
    entry = WaitingListEntry.objects.get()
    assert entry.name == "Les Castors Bleus" and entry.status == Status.PENDING
    assert len(mail.outbox) == 2
    client.get(confirm_link())
    entry.refresh_from_db()
    assert entry.status == Status.WAITING


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("email", "jeanne@", "Enter a valid email address."),
        ("email", "", "This field is required."),
        ("team_name", "   ", "This field is required."),
        ("team_name", "x" * 81, "Ensure this value has at most 80 characters"),
        ("contact_name", "Jeanne\x07", "Write it with letters, digits and spaces."),
        ("language", "de", "Select a valid choice."),
    ],
)
def test_bad_input_is_refused_with_a_message_and_nothing_stored(
    client: Client,
    django_capture_on_commit_callbacks: Capture,
    field: str,
    value: str,
    message: str,
) -> None:
    response = register(client, django_capture_on_commit_callbacks, **{field: value})
    assert response.status_code == 400
    assert message in response.text
    assert not WaitingListEntry.objects.exists()
    assert mail.outbox == []


def test_an_expired_link_says_so_and_confirms_nothing(
    client: Client, django_capture_on_commit_callbacks: Capture, settings: Settings
) -> None:
    register(client, django_capture_on_commit_callbacks)
    settings.WAITING_LIST_CONFIRM_DAYS = 0
    response = client.get(confirm_link())
    assert response.status_code == 410
    assert "This link has expired" in response.text
    assert WaitingListEntry.objects.get().status == Status.PENDING


@pytest.mark.parametrize("token", ["nonsense", "eyJ3IjoxfQ:1abc:forged", "%00"])
def test_a_broken_link_says_so(client: Client, db: None, token: str) -> None:
    for path in (f"/join/confirm/{token}/", f"/join/place/{token}/", f"/join/place/{token}/leave/"):
        response = client.get(path)
        assert response.status_code == 400, path


def test_a_link_to_an_entry_staff_deleted_says_so(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    register(client, django_capture_on_commit_callbacks)
    WaitingListEntry.objects.all().delete()
    response = client.get(confirm_link())
    assert response.status_code == 400
    assert "This link does not work" in response.text


def test_leaving_is_asked_then_done_on_post(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    register(client, django_capture_on_commit_callbacks)
    place = client.get(confirm_link(), follow=True).redirect_chain[-1][0]
    leave = place + "leave/"
    asked = client.get(leave)
    assert asked.status_code == 200 and "Yes, leave the list" in asked.text
    assert WaitingListEntry.objects.get().status == Status.WAITING
    done = client.post(leave)
    assert "Les Castors left the waiting list." in done.text
    assert WaitingListEntry.objects.get().status == Status.WITHDRAWN
    again = client.post(leave)
    assert again.status_code == 200 and "nothing changed" in again.text
    assert "This team left the waiting list." in client.get(place).text


def test_a_place_link_serves_only_its_own_entry(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    other = waiting("Yetis", minutes_ago=5)
    register(client, django_capture_on_commit_callbacks)
    own = client.get(confirm_link(), follow=True).redirect_chain[-1][0]
    # The other entry's data under this entry's signature.
    own_data = own.split("/")[3].split(":")[0]
    other_data = waiting_place_path(other).split("/")[3].split(":")[0]
    forged = own.replace(own_data, other_data)
    assert client.get(forged).status_code == 400
    assert client.post(forged + "leave/").status_code == 400
    assert client.post("/join/place/leave/").status_code == 400
    assert WaitingListEntry.objects.get(pk=other.pk).status == Status.WAITING


def test_a_signed_in_person_s_entry_is_theirs_and_listed_in_my_account(
    client: Client, visitor: User, django_capture_on_commit_callbacks: Capture
) -> None:
    client.force_login(visitor)
    assert 'value="visitor@example.org"' in client.get(JOIN).text
    register(client, django_capture_on_commit_callbacks, email="visitor@example.org")
    entry = WaitingListEntry.objects.get()
    assert entry.user == visitor
    account = client.get("/accounts/").text
    assert f'href="{waiting_place_path(entry)}"' in account


def test_another_person_s_entries_are_not_in_my_account(
    client: Client, visitor: User, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    client.force_login(visitor)
    register(client, django_capture_on_commit_callbacks, email="visitor@example.org")
    client.force_login(coach)
    assert "/join/place/" not in client.get("/accounts/").text


def test_the_form_takes_five_registrations_an_hour_from_one_address(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    codes = [
        register(
            client, django_capture_on_commit_callbacks, email=f"team{n}@example.org"
        ).status_code
        for n in range(6)
    ]
    assert codes == [302] * 5 + [429]
    assert (
        "Too many registrations"
        in register(client, django_capture_on_commit_callbacks, email="late@example.org").text
    )
    assert WaitingListEntry.objects.count() == 5


def test_one_email_address_is_written_three_times_a_day_at_most(
    django_capture_on_commit_callbacks: Capture,
) -> None:
    codes = [
        register(
            Client(REMOTE_ADDR=f"198.51.100.{n}"), django_capture_on_commit_callbacks
        ).status_code
        for n in range(4)
    ]
    assert codes == [302, 302, 302, 429]
    assert len(mail.outbox) == 3


def test_staff_manage_the_list_in_the_admin(
    client: Client, admin_client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    register(client, django_capture_on_commit_callbacks)
    listing = admin_client.get("/admin/league/waitinglistentry/?status=pending")
    assert listing.status_code == 200 and "Les Castors" in listing.text


def test_a_placed_team_s_coach_is_created_in_the_language_chosen(
    client: Client, django_capture_on_commit_callbacks: Capture
) -> None:
    register(client, django_capture_on_commit_callbacks)
    place = client.get(confirm_link(), follow=True).redirect_chain[-1][0]
    placement = waiting_list_place(waiting=WaitingListEntry.objects.get())
    assert user_language(placement.team.coach) == "en"
    assert Profile.objects.get(user=placement.team.coach).language == "en"
    assert "Your team got a place in the league" in client.get(place).text
