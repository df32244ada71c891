"""Members' mail on the organizer's pages, without those pages knowing mail: who in the
club has no address (the members page), the form that mails an invite (the invites
page)."""

from __future__ import annotations

from django import template

from server.mail import selectors
from server.web.forms.mail import SendInviteForm

register = template.Library()


@register.inclusion_tag("web/mail_no_address.html")
def members_without_address(club):
    return {"names": selectors.members_without_address(club)}


@register.inclusion_tag("web/mail_invite_form.html", takes_context=True)
def send_invite_form(context, club):
    return {"club": club, "form": SendInviteForm(), "csrf_token": context.get("csrf_token")}
