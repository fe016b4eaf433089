"""One outbox: an email is written by its kind, recipient and ids and rendered by the worker
that sends it, claimed by ``due_at``; the receipts due move into it (no queue before it)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def receipts_due_into_the_outbox(apps: object, schema_editor: object) -> None:
    """Each receipt still due becomes an outbox row that the worker renders and sends."""
    due = apps.get_model("mail", "PickReceiptDue")
    outbound = apps.get_model("mail", "OutboundEmail")
    outbound.objects.bulk_create(
        outbound(template="pick-receipt", language="fr", context={"pick": pick_id})
        for pick_id in due.objects.order_by("pick_id").values_list("pick_id", flat=True)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("mail", "0004_pick_receipts_due"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="outboundemail",
            name="outbound_email_status_valid",
        ),
        migrations.AddField(
            model_name="outboundemail",
            name="context",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="The ids the email is rendered from, by the worker that sends it.",
                verbose_name="context",
            ),
        ),
        migrations.AddField(
            model_name="outboundemail",
            name="due_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now,
                help_text="When a worker is to try it next (a claim or a failure moves it on).",
                verbose_name="due at",
            ),
        ),
        migrations.AddField(
            model_name="outboundemail",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="recipient",
            ),
        ),
        migrations.AlterField(
            model_name="outboundemail",
            name="body_text",
            field=models.TextField(blank=True, verbose_name="text body"),
        ),
        migrations.AlterField(
            model_name="outboundemail",
            name="language",
            field=models.CharField(
                choices=[("fr", "Français"), ("en", "English")],
                default="fr",
                help_text="The recipient's, settled when the email is rendered.",
                max_length=8,
                verbose_name="language",
            ),
        ),
        migrations.AlterField(
            model_name="outboundemail",
            name="status",
            field=models.CharField(
                choices=[
                    ("queued", "queued"),
                    ("sent", "sent"),
                    ("failed", "failed"),
                    ("dropped", "not sent: nobody to send it to"),
                ],
                default="queued",
                max_length=16,
                verbose_name="status",
            ),
        ),
        migrations.AlterField(
            model_name="outboundemail",
            name="subject",
            field=models.CharField(blank=True, max_length=255, verbose_name="subject"),
        ),
        migrations.AddIndex(
            model_name="outboundemail",
            index=models.Index(
                condition=models.Q(("status", "queued")),
                fields=["due_at"],
                name="outbound_email_due",
            ),
        ),
        migrations.AddConstraint(
            model_name="outboundemail",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["queued", "sent", "failed", "dropped"])),
                name="outbound_email_status_valid",
            ),
        ),
        migrations.RunPython(receipts_due_into_the_outbox, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="pickreceiptdue",
            name="pick",
        ),
        migrations.DeleteModel(
            name="PickReceiptDue",
        ),
    ]
