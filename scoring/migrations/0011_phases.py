"""Phases: a benchmark's splits belong to a phase with dates, quotas per user (per day and in total), results at
once or at the close, and whether private uploads are allowed. A split's daily quota becomes its phase's: each split
that had one gets a phase of its own (opened when the split was made), so nothing changes for its uploads. The
quota lock rows are per phase from now on (they are locks only: today's are made again by the next upload)."""
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def phases_from_split_quotas(apps, schema_editor):
    Split = apps.get_model("scoring", "Split")
    Phase = apps.get_model("scoring", "Phase")
    for split in Split.objects.filter(daily_quota__isnull=False).select_related("benchmark").order_by("pk"):
        slug, n = split.name[:40], 1
        while Phase.objects.filter(benchmark=split.benchmark, slug=slug).exists():
            n += 1
            slug = f"{split.name[:40]}-{n}"
        phase = Phase.objects.create(
            benchmark=split.benchmark, name=split.name.replace("-", " ").capitalize(), slug=slug,
            opens_at=split.created_at, daily_quota=split.daily_quota,
            description=f"Made from split {split.name}'s daily quota.")
        split.phase = phase
        split.save(update_fields=["phase"])


def split_quotas_from_phases(apps, schema_editor):
    Split = apps.get_model("scoring", "Split")
    for split in Split.objects.filter(phase__isnull=False).select_related("phase"):
        split.daily_quota = split.phase.daily_quota
        split.save(update_fields=["daily_quota"])


class Migration(migrations.Migration):

    dependencies = [
        ("scoring", "0010_submission_row_types"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Phase",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                ("slug", models.SlugField()),
                ("description", models.TextField(blank=True)),
                ("opens_at", models.DateTimeField(default=django.utils.timezone.now,
                                                  help_text="Uploads are taken from this moment (UTC).")),
                ("closes_at", models.DateTimeField(
                    blank=True, null=True, help_text="Uploads are refused from this moment (UTC); empty: open with no end.")),
                ("daily_quota", models.PositiveIntegerField(
                    blank=True, null=True,
                    help_text="Uploads per user per UTC day, over all the phase's splits; empty: unlimited.")),
                ("total_quota", models.PositiveIntegerField(
                    blank=True, null=True, help_text="Uploads per user over the whole phase; empty: unlimited.")),
                ("results_at_close", models.BooleanField(
                    default=False,
                    help_text="Boards show others' results only once the phase has closed (each submitter sees their "
                              "own on the submission page at once).")),
                ("private_allowed", models.BooleanField(
                    default=True, help_text="Whether an upload may be private (scored, seen by its owner only).")),
                ("order", models.PositiveIntegerField(default=0)),
                ("benchmark", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="phases",
                                                to="scoring.benchmark")),
            ],
            options={
                "ordering": ["benchmark", "order", "opens_at"],
                "constraints": [
                    models.UniqueConstraint(fields=("benchmark", "slug"), name="unique_phase_slug"),
                    models.CheckConstraint(
                        condition=models.Q(("closes_at__isnull", True), ("closes_at__gt", models.F("opens_at")),
                                           _connector="OR"),
                        name="phase_closes_after_it_opens"),
                ],
            },
        ),
        migrations.AddField(
            model_name="split",
            name="phase",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="splits",
                to="scoring.phase",
                help_text="The phase whose dates and quotas apply to uploads here; none: always open, no quota."),
        ),
        migrations.RunPython(phases_from_split_quotas, split_quotas_from_phases),
        migrations.RemoveField(model_name="split", name="daily_quota"),
        migrations.DeleteModel(name="UploadQuotaDay"),
        migrations.CreateModel(
            name="UploadQuotaDay",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("day", models.DateField()),
                ("phase", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                            to="scoring.phase")),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("user", "phase", "day"),
                                                        name="unique_upload_quota_phase_day")],
            },
        ),
    ]
