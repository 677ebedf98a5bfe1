import pytest
from django.core.management import call_command

from annotation.models import Item, Project


@pytest.mark.django_db
def test_make_demo_annotation_creates_a_project_of_drawn_scenes_once():
    call_command("make_demo_annotation")
    call_command("make_demo_annotation")
    project = Project.objects.get(slug="demo-color")
    assert project.leaf == "TargetLocalization/BasicAttributes/Color"
    items = Item.objects.filter(project=project)
    assert items.count() == 6
    assert all(item.images.count() == 1 for item in items)
