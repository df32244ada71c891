"""Hashed, named, revocable tokens; usernames unique ignoring case; invites.

Existing tokens keep working: every ``authtoken_token`` key (DRF's plain-text table,
used before this migration) is copied as an ``AccessToken`` named "default" holding
only its SHA-256, and the plain-text row is deleted. Names that differ only by case
(possible before, through a race) are made distinct first: the oldest account keeps
its name, each later one becomes ``<name>-<id>`` (printed, so the operator can tell
those members).
"""

import hashlib

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


def rename_case_duplicates(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    seen: set[str] = set()
    for user in User.objects.order_by("id"):
        folded = user.username.lower()
        if folded in seen:
            user.username = f"{user.username}-{user.id}"
            user.save(update_fields=["username"])
            print(f"\n  renamed a case-duplicate account to {user.username!r}")
        seen.add(user.username.lower())


def copy_plain_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if "authtoken_token" not in connection.introspection.table_names():
        return
    AccessToken = apps.get_model("accounts", "AccessToken")
    with connection.cursor() as cursor:
        cursor.execute("SELECT key, user_id FROM authtoken_token")
        rows = cursor.fetchall()
        for key, user_id in rows:
            AccessToken.objects.create(user_id=user_id, name="default",
                                       key_hash=hashlib.sha256(key.encode()).hexdigest())
        cursor.execute("DELETE FROM authtoken_token")


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.RunPython(rename_case_duplicates, migrations.RunPython.noop),
        migrations.CreateModel(
            name='AccessToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text='the device or program holding it', max_length=40)),
                ('key_hash', models.CharField(help_text='sha256 hex of the key', max_length=64, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['created_at', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Invite',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('code_hash', models.CharField(max_length=64, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.AlterModelOptions(
            name='user',
            options={},
        ),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('username'), name='username_unique_ignoring_case'),
        ),
        migrations.AddField(
            model_name='accesstoken',
            name='user',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='access_tokens', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='invite',
            name='used_by',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='invite', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddConstraint(
            model_name='accesstoken',
            constraint=models.UniqueConstraint(fields=('user', 'name'), name='one_token_per_device'),
        ),
        migrations.RunPython(copy_plain_tokens, migrations.RunPython.noop),
    ]
