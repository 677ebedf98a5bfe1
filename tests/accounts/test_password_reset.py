"""Password reset mails go somewhere (issue 26, finding 15): with no mail server configured the page said "sent"
and the log showed SMTP refused. The embedded default writes each mail to a file under var/mail/; EMAIL_HOST
switches to SMTP."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import config.settings as project_settings

ROOT = Path(__file__).resolve().parents[2]


def settings_with(env: dict[str, str]) -> dict[str, str]:
    """The mail settings config/settings.py reads from this environment, in a fresh interpreter."""
    names = ("EMAIL_BACKEND", "EMAIL_FILE_PATH", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_USE_TLS", "DEFAULT_FROM_EMAIL")
    code = ("import config.settings as s; "
            f"print('\\n'.join(f'{{n}}={{getattr(s, n, None)}}' for n in {names!r}))")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EMAIL_")}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**clean, **env}, capture_output=True,
                         text=True, check=True, timeout=60).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


def test_the_embedded_default_writes_mail_to_files_under_var(tmp_path):
    found = settings_with({"EBH_VAR_DIR": str(tmp_path)})
    assert found["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
    assert found["EMAIL_FILE_PATH"] == str(tmp_path / "mail")


def test_email_host_switches_to_smtp(tmp_path):
    found = settings_with({"EBH_VAR_DIR": str(tmp_path), "EMAIL_HOST": "smtp.example.org", "EMAIL_PORT": "2525",
                           "EMAIL_USE_TLS": "false", "DEFAULT_FROM_EMAIL": "hub@example.org"})
    assert found["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (found["EMAIL_HOST"], found["EMAIL_PORT"], found["EMAIL_USE_TLS"]) == ("smtp.example.org", "2525", "False")
    assert found["DEFAULT_FROM_EMAIL"] == "hub@example.org"


@pytest.mark.django_db
def test_a_reset_mail_is_written_and_its_link_sets_the_password(client, user, settings, tmp_path):
    # The project's own backend (pytest-django swaps in its in-memory one), writing into this test's folder.
    settings.EMAIL_BACKEND = project_settings.EMAIL_BACKEND
    settings.EMAIL_FILE_PATH = tmp_path / "mail"
    user.email = "alice@example.org"
    user.save()
    response = client.post("/accounts/password_reset/", {"email": "alice@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password_reset/done/"
    (mail,) = (tmp_path / "mail").iterdir()
    text = mail.read_text()
    assert "To: alice@example.org" in text
    link = re.search(r"http://testserver(/accounts/reset/[^/\s]+/[^/\s]+/)", text).group(1)
    form = client.get(link, follow=True)
    assert form.status_code == 200 and "new_password1" in form.content.decode()
    set_url = form.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": "a-new-pass-2026", "new_password2": "a-new-pass-2026"})
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    user.refresh_from_db()
    assert user.check_password("a-new-pass-2026")
    assert client.get(link, follow=True).content.decode().count("new_password1") == 0  # the link is spent
