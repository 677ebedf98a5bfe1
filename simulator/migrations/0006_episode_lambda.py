from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('simulator', '0005_device_definition_keeps_key_order'),
    ]

    operations = [
        migrations.AddField(
            model_name='episode',
            name='lam',
            field=models.PositiveSmallIntegerField(blank=True, help_text="The interaction budget λ the episode is played with (1..10); empty: the task's own (5 by default).", null=True),
        ),
    ]
