"""`{{ name|split_image_url }}`: the URL of an image name as PLAN stores it (see `scoring.split_media`)."""
from django import template

from scoring.split_media import public_relative_url

register = template.Library()


@register.filter
def split_image_url(name: str) -> str:
    return public_relative_url(str(name))
