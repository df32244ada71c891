"""``{% form_token %}``: the hidden field that makes a create form's second submit land
on what the first made (``server.web.once``)."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from server.web.once import FIELD, new_token

register = template.Library()


@register.simple_tag
def form_token():
    return format_html('<input type="hidden" name="{}" value="{}">', FIELD, new_token())
