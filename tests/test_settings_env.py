"""Settings read from the environment strictly: a value that means nothing is an error naming the variable, never a
quiet default (DEBUG=ture used to read as off)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import env_bool, env_int

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("value", ["1", "true", "True", "TRUE", "yes", "Yes", "on", "ON", " on "])
def test_a_switch_reads_its_spellings_of_on(monkeypatch, value):
    monkeypatch.setenv("EBH_TEST_SWITCH", value)
    assert env_bool("EBH_TEST_SWITCH", False) is True


@pytest.mark.parametrize("value", ["0", "false", "False", "no", "NO", "off", "Off"])
def test_a_switch_reads_its_spellings_of_off(monkeypatch, value):
    monkeypatch.setenv("EBH_TEST_SWITCH", value)
    assert env_bool("EBH_TEST_SWITCH", True) is False


@pytest.mark.parametrize("default", [True, False])
def test_an_unset_or_empty_switch_is_its_default(monkeypatch, default):
    monkeypatch.delenv("EBH_TEST_SWITCH", raising=False)
    assert env_bool("EBH_TEST_SWITCH", default) is default
    monkeypatch.setenv("EBH_TEST_SWITCH", "")
    assert env_bool("EBH_TEST_SWITCH", default) is default


@pytest.mark.parametrize("value", ["ture", "2", "enabled", "y", "nope"])
def test_a_switch_that_means_nothing_names_the_variable_and_the_value(monkeypatch, value):
    monkeypatch.setenv("EBH_TEST_SWITCH", value)
    with pytest.raises(ImproperlyConfigured) as error:
        env_bool("EBH_TEST_SWITCH", True)
    assert "EBH_TEST_SWITCH" in str(error.value) and repr(value) in str(error.value)


def test_a_number_reads_whole_numbers_and_defaults_when_unset_or_empty(monkeypatch):
    monkeypatch.setenv("EBH_TEST_NUMBER", " 42 ")
    assert env_int("EBH_TEST_NUMBER", 7) == 42
    monkeypatch.setenv("EBH_TEST_NUMBER", "")
    assert env_int("EBH_TEST_NUMBER", 7) == 7
    monkeypatch.delenv("EBH_TEST_NUMBER")
    assert env_int("EBH_TEST_NUMBER", 7) == 7


@pytest.mark.parametrize("value", ["4.5", "ten", "1e3"])
def test_a_number_that_is_not_whole_names_the_variable_and_the_value(monkeypatch, value):
    monkeypatch.setenv("EBH_TEST_NUMBER", value)
    with pytest.raises(ImproperlyConfigured) as error:
        env_int("EBH_TEST_NUMBER", 7)
    assert "EBH_TEST_NUMBER" in str(error.value) and repr(value) in str(error.value)


def test_the_site_does_not_start_on_a_misspelt_switch(tmp_path):
    # Given DEBUG=ture, when the settings load in a fresh interpreter, then they refuse with the variable's name
    env = {**os.environ, "DEBUG": "ture", "EBH_VAR_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", "import config.settings"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "ImproperlyConfigured: DEBUG='ture' is not a switch" in done.stderr
