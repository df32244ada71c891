"""The round page's organizer tools (issue #22): deadline, substitute, forfeit, each a
form with a required confirmation, posted without JavaScript."""

from __future__ import annotations

import pytest

from server.league.models import ClubAction, LeagueMatch
from server.tables.models import Event, Seat
from tests.web.league_seed import seed_league
from tests.web.test_league_pages import client

pytestmark = pytest.mark.django_db


def test_the_organizer_sets_a_deadline_substitutes_and_forfeits_from_the_round_page():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    page = org.get(page_url).content.decode()
    assert 'id="round-actions"' in page and f"/matches/{match.pk}/substitute" in page
    assert f"/matches/{match.pk}/forfeit" not in page  # no deadline yet

    # a member is refused; a form without its confirmation changes nothing
    refused = client("ana").post(
        f"/matches/{match.pk}/substitute", {"seat": 1, "by": "level:strong", "confirm": "yes"}
    )
    assert refused.status_code == 403
    unconfirmed = org.post(f"/matches/{match.pk}/substitute", {"seat": 1, "by": "level:strong"})
    assert unconfirmed.status_code == 400
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()

    done = org.post(
        f"/matches/{match.pk}/substitute",
        {"seat": 1, "by": "level:strong", "reason": "late", "confirm": "yes"},
    )
    assert done.status_code == 302 and done["Location"].endswith(page_url)
    assert Seat.objects.get(table=match.table, number=1).player.is_hosted

    early = org.post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "x", "confirm": "yes"})
    assert early.status_code == 409 and "deadline" in early.content.decode()
    # A deadline typed in the past is refused; "End the wait now" ends it at once.
    past = org.post(page_url + "/deadline", {"action": "set", "deadline": "2020-01-01T20:00"})
    assert past.status_code == 400 and "in the past" in past.content.decode()
    assert org.post(page_url + "/deadline", {"action": "now"}).status_code == 302
    page = org.get(page_url).content.decode()
    assert f"/matches/{match.pk}/forfeit" in page and 'class="club-time"' in page
    done = org.post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "gone", "confirm": "yes"})
    assert done.status_code == 302
    match.refresh_from_db()
    assert match.status == "finished" and match.forfeited_by == "B" and match.winner == "A"
    verbs = set(ClubAction.objects.values_list("verb", flat=True))
    assert {"round.deadline", "match.substitute", "match.forfeit"} <= verbs


def test_a_forfeited_match_page_and_record_still_answer():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    org.post(page_url + "/deadline", {"action": "now"})
    assert (
        org.post(
            f"/matches/{match.pk}/forfeit", {"seat": 1, "reason": "gone", "confirm": "yes"}
        ).status_code
        == 302
    )
    for path in (f"/matches/{match.pk}", f"/matches/{match.pk}/record", f"/clubs/{lg['club']}/"):
        assert client("ana").get(path).status_code == 200, path
