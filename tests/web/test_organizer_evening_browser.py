"""The organizer's evening without traps (issue #33) in Chromium, from an empty database,
at 390 px and 1280 px: a double-clicked "Create the club" makes one club; a removal asks
first and revokes no shared code; the removed member meets a clear refusal on the link
(not a 404) until allowed back; a display name in Cyrillic; the club's time zone on the
deadline; a 600-character word does not widen the club page; a round opened twice is one
round, and an open round is deleted after its confirmation."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.browser import DESKTOP, PHONE, horizontal_overflow, screenshot
from tests.web.seed import PASSWORD

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory):
    from tests.conftest import LiveServer

    server = LiveServer(
        tmp_path_factory.mktemp("evening-live"),
        env={
            "DEKABES_RATE_LOGIN_ADDRESS": "100000/minute",
            "DEKABES_RATE_LOGIN_NAME": "100000/minute",
            "DEKABES_RATE_REGISTER_ADDRESS": "100000/hour",
        },
    )
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def submit(page, form: str, button: str = "button[type=submit]") -> None:
    with page.expect_navigation():
        page.click(f"{form} {button}")


def register(page, url: str, name: str, display_name: str = "") -> None:
    page.goto(url + "/register")
    page.fill("input[name=username]", name)
    if display_name:
        page.fill("input[name=display_name]", display_name)
    page.fill("input[name=password]", PASSWORD)
    submit(page, "form.stack")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_the_organizers_evening_without_traps(empty_server, open_page, viewport):
    url, width = empty_server, viewport["width"]
    slug = f"evening-{width}"
    org = open_page(viewport=viewport)
    register(org, url, f"olivia{width}")
    # Create the club with a double click: one club, and the page is its organize page.
    org.goto(url + "/clubs/new")
    org.fill("input[name=name]", f"Evening {width}")
    org.fill("input[name=slug]", slug)
    org.check("input[name=visibility][value=public]")
    box = org.locator("input[name=visibility][value=public]").bounding_box()
    label = org.locator("label[for=id_visibility_0]").bounding_box()
    assert abs(box["y"] - label["y"]) < label["height"]  # the radio beside its label
    org.select_option("select[name=time_zone]", "Europe/Madrid")
    org.dblclick("form.club-form button[type=submit]")
    # Polled, not one navigation awaited: on a busy machine the second click's submission
    # may abort the first's navigation (net::ERR_ABORTED) before the page lands.
    expect(org).to_have_url(f"{url}/clubs/{slug}/organize", timeout=30_000)
    expect(org.locator("h1")).to_have_text(re.compile(f"^Evening {width}"), timeout=30_000)
    assert "This address is taken" not in org.inner_text("main")

    # A shared invite link; two people join with it, one with a Cyrillic name.
    org.goto(url + f"/clubs/{slug}/invites")
    submit(org, "form.invite-form")
    link = org.input_value("input.invite-link")
    people = {}
    for name, shown in ((f"farid{width}", "Фарид"), (f"ana{width}", "")):
        page = open_page(viewport=viewport)
        page.goto(link)
        page.fill("form.join-register input[name=username]", name)
        if shown:
            page.fill("form.join-register input[name=display_name]", shown)
        page.fill("form.join-register input[name=password]", PASSWORD)
        submit(page, "form.join-register")
        assert page.url == f"{url}/clubs/{slug}/"
        people[name] = page
    farid, ana = people[f"farid{width}"], people[f"ana{width}"]
    # Re-opening the link: "you are a member", not "Join the club".
    ana.goto(link)
    assert "You are a member of" in ana.inner_text("main")

    # Remove farid: the first click asks, naming what happens; the shared code stays.
    org.goto(url + f"/clubs/{slug}/members")
    assert "Фарид" in org.inner_text(f'tr[data-member="farid{width}"]')
    submit(org, f'tr[data-member="farid{width}"] form.remove')
    asked = org.inner_text("ul.what-happens")
    assert "The invite codes others use stay valid." in asked
    assert horizontal_overflow(org) == 0
    screenshot(org, f"evening-remove-confirm-{width}")
    submit(org, "form.confirm-form")
    assert f'data-member="farid{width}"' in org.inner_html("ul.removed")
    # The link still admits newcomers, but farid meets a clear refusal (403, not 404).
    answer = farid.goto(link)
    assert answer.status == 403 and "An organizer removed you" in farid.inner_text("main")
    newcomer = open_page(viewport=viewport)
    newcomer.goto(link)
    assert "Register and join" in newcomer.inner_text("main")
    # Allowed back, farid joins again with the same link.
    submit(org, f'ul.removed li[data-member="farid{width}"] form.allow-back')
    farid.goto(link)
    submit(farid, "form.join-now")
    assert farid.url == f"{url}/clubs/{slug}/"

    # A 600-character word in an announcement does not widen the club page.
    org.goto(url + f"/clubs/{slug}/organize")
    org.fill("textarea[name=text]", "x" * 500)
    submit(org, "form.announcement-form")
    ana.goto(url + f"/clubs/{slug}/")
    assert horizontal_overflow(ana) == 0

    # A season; "New round" clicked twice opens one round; the round is deleted.
    org.fill("form.season-form input[name=name]", "Spring")
    submit(org, "form.season-form")
    season_page = org.url
    org.dblclick("button.new-round")  # polled, as the club's creation above
    expect(org).to_have_url(re.compile(r"/rounds/1$"), timeout=30_000)
    org.wait_for_load_state()
    org.goto(season_page)
    assert org.locator("button.new-round").count() == 0  # one open round at a time
    assert org.locator("text=Round 1").count() == 1
    org.goto(season_page + "rounds/1")
    submit(org, "form.delete-round")
    assert "Delete round 1 of Spring?" in org.inner_text("h1")
    submit(org, "form.confirm-form")
    assert org.url == season_page and org.locator("button.new-round").count() == 1
    screenshot(org, f"evening-season-{width}")
