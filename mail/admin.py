"""The mail in the admin: the outbox (with resend), inbound emails and the week's clock's
mailings, all read-only.
"""

from __future__ import annotations

from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from mail import outbox
from mail.models import (
    EmailPreferences,
    InboundEmail,
    InboundFailure,
    Mailing,
    OutboundEmail,
)
from matrixhockey.admin import ReadOnlyAdmin


@admin.register(OutboundEmail)
class OutboundEmailAdmin(ReadOnlyAdmin):
    """The outbox: what was sent, what waits for a worker or the mail server (an email still
    queued with an empty subject is yet to be rendered), what failed. Read-only, with a
    "resend" action."""

    list_display = ["created_at", "subject", "recipients", "template", "language", "status"]
    list_display += ["attempts", "due_at", "sent_at"]
    list_filter = ["status", "template", "language"]
    search_fields = ["subject", "to", "last_error"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "template",
        "language",
        "user",
        "to",
        "context",
        "reply_to",
        "headers",
        "subject",
        "body_text",
        "html_preview",
        "status",
        "attempts",
        "last_error",
        "created_at",
        "due_at",
        "sent_at",
    ]
    fields = (*readonly_fields,)
    actions = ["resend"]

    @admin.display(description=_("to"))
    def recipients(self, email: OutboundEmail) -> str:
        return ", ".join(email.to)

    @admin.display(description=_("HTML body"))
    def html_preview(self, email: OutboundEmail) -> str:
        # Sandboxed: the email's HTML is shown as the recipient sees it, without scripts.
        return format_html(
            '<iframe sandbox srcdoc="{}" title="{}" style="width:100%;min-height:28rem;'
            'border:1px solid var(--hairline-color)"></iframe>',
            email.body_html,
            email.subject,
        )

    @admin.action(description=_("Resend the selected emails"))
    def resend(self, request: HttpRequest, queryset: QuerySet[OutboundEmail]) -> None:
        count = 0
        for email in queryset:
            outbox.email_resend(email=email)
            count += 1
        self.message_user(
            request,
            ngettext("%(count)d email queued again.", "%(count)d emails queued again.", count)
            % {"count": count},
        )


@admin.register(InboundEmail)
class InboundEmailAdmin(ReadOnlyAdmin):
    """Every email received for picks, once per Message-ID, with what the league did."""

    list_display = ["processed_at", "received_at", "sender", "user", "outcome", "subject", "reply"]
    list_filter = ["outcome"]
    search_fields = ["sender", "message_id", "subject", "user__username", "reason"]
    date_hierarchy = "received_at"
    list_select_related = ["user", "reply"]


@admin.register(InboundFailure)
class InboundFailureAdmin(ReadOnlyAdmin):
    """Mailbox messages whose ingestion failed, and those set aside after too many tries.
    Deleting a row gives its message new tries, once it is back among the unseen ones."""

    list_display = ["last_failed_at", "message_id", "sender", "attempts", "set_aside_at"]
    list_filter = [("set_aside_at", admin.EmptyFieldListFilter)]
    search_fields = ["message_id", "sender", "digest", "last_error"]

    def has_delete_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return admin.ModelAdmin.has_delete_permission(self, request, obj)


@admin.register(Mailing)
class MailingAdmin(ReadOnlyAdmin):
    """The week's clock (``mail.weekly``): who got which weekly email, reminder or watchdog
    alert — one each per week (or pool round), with the email in the outbox. Read-only."""

    list_display = ["created_at", "kind", "season", "week", "user", "pool_round", "email"]
    list_filter = ["kind", "season", "week"]
    search_fields = ["user__username", "user__email"]
    date_hierarchy = "created_at"
    list_select_related = [
        "season",
        "user",
        "pool_round__pool",
        "pool_round__round__season",
        "email",
    ]


@admin.register(EmailPreferences)
class EmailPreferencesAdmin(ReadOnlyAdmin):
    """Who stopped which optional emails (each person changes their own on « My account » or
    with an email's one-click link)."""

    list_display = ["user", "weekly", "results", "news", "updated_at"]
    list_filter = ["weekly", "results", "news"]
    search_fields = ["user__username", "user__email"]
