"""Issue 32: "An item not assigned to you is a bare "Not Found" page." It is a 403 page saying whose the item is
and how to get it (a curator assigns it on the project's page)."""
import pytest
from django.contrib.auth.models import Group

pytestmark = pytest.mark.django_db


def test_an_item_assigned_to_someone_else_says_whose_it_is_and_how_to_get_it(
        client, curator, annotator, django_user_model, item_factory, small_png):
    """"An item not assigned to you is a bare "Not Found" page." """
    bob = django_user_model.objects.create_user("bob", password="pw-bob-12345")
    bob.groups.add(Group.objects.get(name="annotator"))
    [item] = item_factory(small_png, assignee=bob)
    client.force_login(annotator)
    page = client.get(f"/annotation/items/{item.pk}/")
    assert page.status_code == 403
    text = page.content.decode()
    assert "This item is not assigned to you" in text
    assert 'id="item-assignee">bob<' in text
    assert "ask a curator to assign it to you" in text and "carol" in text
    assert "Colors" in text  # the project it belongs to


def test_an_unassigned_item_says_so_and_outsiders_do_not_see_names(
        client, annotator, django_user_model, item_factory, small_png):
    """"An item not assigned to you is a bare "Not Found" page." """
    [item] = item_factory(small_png)
    client.force_login(annotator)
    assert "not assigned to anyone" in client.get(f"/annotation/items/{item.pk}/").content.decode()
    item.assignee = annotator
    item.save()
    stranger = django_user_model.objects.create_user("sam", password="pw-sam-123456")
    client.force_login(stranger)
    page = client.get(f"/annotation/items/{item.pk}/")
    assert page.status_code == 403 and "anna" not in page.content.decode()
