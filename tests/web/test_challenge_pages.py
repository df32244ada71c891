"""Bots' terms and challenges from the browser: the bots page publishes and withdraws a
bot's terms, ``/challenges`` makes, answers and lists challenges. The pages call
``server.matchmaking.challenges``; what they write is read back through the API."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from server.matchmaking import selectors
from server.matchmaking.challenges import DECLINE_REASONS
from server.matchmaking.models import BotTerms, Challenge
from server.web.forms.challenges import REASON_LABELS, TermsForm
from tests.server.conftest import client_for, new_bot, new_member, token_for
from tests.web.conftest import signed_in

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def terms_post(**changes) -> dict:
    """The terms form as a browser sends it with its initial values, then ``changes``
    (an unticked box is absent)."""
    values = {name: f.initial for name, f in TermsForm.base_fields.items()}
    values.update(changes)
    return {k: ("on" if v is True else v) for k, v in values.items() if v is not False}


def challenge_post(partner, first, second, **changes) -> dict:
    values = {
        "partner": partner.username,
        "opponent_1": first.username,
        "opponent_2": second.username,
        "kind": "casual",
        "seconds_per_move": 30,
        "minutes": 10,
    }
    values.update(changes)
    return values


def four():
    return new_member("ann"), new_member("bob"), new_member("cat"), new_member("dan")


def make_challenge(ann, bob, cat, dan) -> Challenge:
    made = signed_in(ann).post("/challenges", challenge_post(bob, cat, dan), **EN)
    assert made.status_code == 302, made.content.decode()
    return Challenge.objects.get(challenger=ann)


def bot_with_terms(**terms):
    """A bot of a new member's that publishes ``terms`` (casual games, unless told)."""
    bot = new_bot(new_member("zed"))
    published = client_for(bot.bot_owner).put(
        f"/api/bots/{bot.username}/terms", {"casual": True, **terms}, format="json"
    )
    assert published.status_code == 200, published.content
    return bot


# -- a bot's terms on the bots page ---------------------------------------------------------
def test_terms_published_from_the_bots_page_are_the_apis():
    ann = new_member()
    bot = new_bot(ann)
    browser = signed_in(ann)
    before = browser.get("/bots/", **EN).content.decode()
    assert "It takes no challenges" in before
    assert f'action="/bots/{bot.username}/terms"' in before
    sent = terms_post(
        rated=True,
        opponents="people",
        partners="bots",
        min_seconds_per_move=5,
        max_seconds_per_move=60,
        games_per_day=7,
        hours_from=8,
        hours_to=20,
    )
    answer = browser.post(f"/bots/{bot.username}/terms", sent, **EN)
    assert answer.status_code == 302 and answer["Location"] == "/bots/"
    [published] = [t for t in selectors.published_terms() if t.bot_id == bot.pk]
    api = client_for(ann).get(f"/api/bots/{bot.username}/terms").json()
    expected = {
        "casual": True,
        "rated": True,
        "opponents": "people",
        "partners": "bots",
        "min_seconds_per_move": 5,
        "max_seconds_per_move": 60,
        "games_per_day": 7,
        "hours_from": 8,
        "hours_to": 20,
    }
    assert {k: getattr(published, k) for k in expected} == expected
    assert {k: api[k] for k in expected} == expected
    after = browser.get("/bots/", **EN).content.decode()
    assert "5 to 60 seconds per move." in after and "From 08:00 to 20:00 UTC." in after
    assert "It takes no challenges" not in after


def test_the_forms_initial_values_are_the_apis_defaults():
    ann = new_member()
    by_page, by_api = new_bot(ann), new_bot(ann)
    assert signed_in(ann).post(f"/bots/{by_page.username}/terms", terms_post()).status_code == 302
    put = client_for(ann).put(f"/api/bots/{by_api.username}/terms", {}, format="json")
    assert put.status_code == 200
    fields = list(TermsForm.base_fields)
    rows = {t.bot_id: t for t in BotTerms.objects.all()}
    page_row, api_row = rows[by_page.pk], rows[by_api.pk]
    assert {f: getattr(page_row, f) for f in fields} == {f: getattr(api_row, f) for f in fields}


def test_terms_the_service_refuses_are_a_sentence_and_nothing_is_written():
    ann = new_member()
    bot = new_bot(ann)
    browser = signed_in(ann)
    for sent in (
        terms_post(min_seconds_per_move=90, max_seconds_per_move=10),
        terms_post(casual=False, rated=False),
    ):
        answer = browser.post(f"/bots/{bot.username}/terms", sent, **EN)
        body = answer.content.decode()
        assert answer.status_code == 400
        assert "Take casual games, rated games or both" in body
        assert "validation_error" not in body and "Traceback" not in body
        assert not BotTerms.objects.filter(bot=bot).exists()


def test_nobody_publishes_or_withdraws_the_terms_of_someone_elses_bot():
    ann, eve = new_member(), new_member("eve")
    bot = new_bot(ann)
    client_for(ann).put(f"/api/bots/{bot.username}/terms", {"games_per_day": 3}, format="json")
    intruder = signed_in(eve)
    changed = intruder.post(f"/bots/{bot.username}/terms", terms_post(games_per_day=99))
    assert changed.status_code == 404
    gone = intruder.post(f"/bots/{bot.username}/terms/withdraw", {"confirm": "yes"})
    assert gone.status_code == 404
    assert BotTerms.objects.get(bot=bot).games_per_day == 3


def test_withdrawing_terms_asks_first():
    ann = new_member()
    bot = new_bot(ann)
    client_for(ann).put(f"/api/bots/{bot.username}/terms", {}, format="json")
    browser = signed_in(ann)
    asked = browser.post(f"/bots/{bot.username}/terms/withdraw", **EN)
    body = asked.content.decode()
    assert asked.status_code == 200
    assert f"Withdraw the terms of {bot.username}?" in body
    assert 'name="confirm" value="yes"' in body
    assert BotTerms.objects.filter(bot=bot).exists()  # the first POST changed nothing
    done = browser.post(f"/bots/{bot.username}/terms/withdraw", {"confirm": "yes"})
    assert done.status_code == 302
    assert not BotTerms.objects.filter(bot=bot).exists()
    assert client_for(ann).get(f"/api/bots/{bot.username}/terms").status_code == 404
    assert "It takes no challenges" in browser.get("/bots/", **EN).content.decode()


# -- making a challenge ---------------------------------------------------------------------
def test_a_challenge_made_from_the_page_has_its_four_seats():
    ann, bob, cat, dan = four()
    browser = signed_in(ann)
    made = browser.post(
        "/challenges", challenge_post(bob, cat, dan, kind="casual", seconds_per_move=45)
    )
    assert made.status_code == 302 and made["Location"] == "/challenges"
    challenge = Challenge.objects.get(challenger=ann)
    seats = {s.number: (s.player_id, s.answer) for s in challenge.seats.all()}
    assert seats == {
        1: (ann.pk, "accepted"),
        2: (cat.pk, "pending"),
        3: (bob.pk, "pending"),
        4: (dan.pk, "pending"),
    }
    assert challenge.status == "pending" and not challenge.rated
    assert challenge.seconds_per_move == 45
    page = browser.get("/challenges", **EN).content.decode()
    assert f'data-challenge="{challenge.pk}"' in page
    assert f'action="/challenges/{challenge.pk}/cancel"' in page
    # an invitee sees it with the buttons to answer it
    theirs = signed_in(bob).get("/challenges", **EN).content.decode()
    assert f'action="/challenges/{challenge.pk}/accept"' in theirs
    assert f'action="/challenges/{challenge.pk}/decline"' in theirs


def test_a_challenge_outside_a_bots_terms_is_refused_in_a_sentence_and_writes_nothing():
    ann, bob, cat = new_member("ann"), new_member("bob"), new_member("cat")
    casual_only = bot_with_terms()
    browser = signed_in(ann)
    page = browser.get("/challenges", **EN).content.decode()
    assert f'<option value="{casual_only.username}">' in page  # the datalist offers it
    refused = browser.post("/challenges", challenge_post(bob, casual_only, cat, kind="rated"), **EN)
    body = refused.content.decode()
    assert refused.status_code == 409
    # the bot by name, and the one of its terms the challenge fell outside
    assert (
        f"{casual_only.username} does not take this challenge by its published terms: "
        "Casual games only."
    ) in body
    assert "outside_terms" not in body and "Traceback" not in body
    no_terms = new_bot(new_member("yan"))
    refused = browser.post("/challenges", challenge_post(bob, no_terms, cat), **EN)
    assert refused.status_code == 409
    assert (
        f"{no_terms.username} publishes no terms: it takes no challenges."
        in refused.content.decode()
    )
    assert not Challenge.objects.exists()


@pytest.mark.parametrize(
    ("terms", "challenge", "sentence"),
    [
        ({"opponents": "bots"}, {}, "Opponents: bots only. Partners: anyone."),
        (
            {"min_seconds_per_move": 20, "max_seconds_per_move": 25},
            {"seconds_per_move": 30},
            "20 to 25 seconds per move.",
        ),
    ],
)
def test_the_refusal_names_the_term_the_challenge_fell_outside(terms, challenge, sentence):
    ann, bob, cat = new_member("ann"), new_member("bob"), new_member("cat")
    bot = bot_with_terms(**terms)
    post = challenge_post(bob, bot, cat, **challenge)
    refused = signed_in(ann).post("/challenges", post, **EN)
    assert refused.status_code == 409
    expected = f"{bot.username} does not take this challenge by its published terms: {sentence}"
    assert expected in refused.content.decode()


def test_the_refusal_names_the_bot_and_its_term_in_the_members_language():
    ann, bob, cat = new_member("ann"), new_member("bob"), new_member("cat")
    bot = bot_with_terms()
    browser = signed_in(ann)
    browser.cookies["django_language"] = "es"
    refused = browser.post(
        "/challenges", challenge_post(bob, bot, cat, kind="rated"), HTTP_ACCEPT_LANGUAGE="es"
    )
    assert refused.status_code == 409
    assert (
        f"{bot.username} no acepta este desafío según sus condiciones publicadas: "
        "Solo partidas amistosas."
    ) in refused.content.decode()


def test_wrong_names_are_refused_in_a_sentence():
    ann, bob, cat, _ = four()
    browser = signed_in(ann)
    for sent in (
        challenge_post(bob, cat, bob),  # the same account twice
        challenge_post(bob, cat, cat, opponent_2="nobody-by-this-name"),
    ):
        refused = browser.post("/challenges", sent, **EN)
        body = refused.content.decode()
        assert refused.status_code == 400
        assert "Check the names: four different accounts" in body
        assert "validation_error" not in body
    assert not Challenge.objects.exists()


# -- answering ------------------------------------------------------------------------------
def test_accepting_until_all_four_accepted_starts_the_table_and_links_to_its_play_page():
    ann, bob, cat, dan = four()
    challenge = make_challenge(ann, bob, cat, dan)
    for invitee in (bob, cat, dan):
        answered = signed_in(invitee).post(f"/challenges/{challenge.pk}/accept")
        assert answered.status_code == 302
        challenge.refresh_from_db()
        assert challenge.status == ("started" if invitee is dan else "pending")
    assert challenge.table is not None
    play = f'href="/tables/{challenge.table.code}/play"'
    for member in (ann, bob):
        assert play in signed_in(member).get("/challenges", **EN).content.decode()
    again = signed_in(bob).post(f"/challenges/{challenge.pk}/accept", **EN)
    assert again.status_code == 409
    assert "This challenge is no longer open." in again.content.decode()


def test_declining_asks_first_then_closes_with_the_reason():
    ann, bob, cat, dan = four()
    challenge = make_challenge(ann, bob, cat, dan)
    browser = signed_in(bob)
    asked = browser.post(f"/challenges/{challenge.pk}/decline", {"reason": "too_fast"}, **EN)
    body = asked.content.decode()
    assert asked.status_code == 200
    assert f"Decline the challenge of {ann.username}?" in body
    assert "Too little time per move" in body
    assert 'name="reason" value="too_fast"' in body and 'name="confirm" value="yes"' in body
    challenge.refresh_from_db()
    assert challenge.status == "pending"  # the first POST changed nothing
    done = browser.post(
        f"/challenges/{challenge.pk}/decline", {"reason": "too_fast", "confirm": "yes"}
    )
    assert done.status_code == 302
    challenge.refresh_from_db()
    assert challenge.status == "declined"
    seat = challenge.seats.get(player=bob)
    assert (seat.answer, seat.reason) == ("declined", "too_fast")
    page = signed_in(ann).get("/challenges", **EN).content.decode()
    assert "Too little time per move" in page and "declined" in page


def test_cancelling_asks_first_and_only_the_challenger_cancels():
    ann, bob, cat, dan = four()
    challenge = make_challenge(ann, bob, cat, dan)
    asked = signed_in(ann).post(f"/challenges/{challenge.pk}/cancel", **EN)
    assert asked.status_code == 200
    assert "Cancel your challenge?" in asked.content.decode()
    challenge.refresh_from_db()
    assert challenge.status == "pending"
    # an invitee may not cancel it (the service's rule): a sentence, nothing changed
    refused = signed_in(bob).post(f"/challenges/{challenge.pk}/cancel", {"confirm": "yes"}, **EN)
    assert refused.status_code == 403
    assert "Your account may not do this." in refused.content.decode()
    challenge.refresh_from_db()
    assert challenge.status == "pending"
    done = signed_in(ann).post(f"/challenges/{challenge.pk}/cancel", {"confirm": "yes"})
    assert done.status_code == 302
    challenge.refresh_from_db()
    assert challenge.status == "cancelled"


# -- privacy ----------------------------------------------------------------------------------
def test_a_stranger_can_neither_see_nor_answer_someone_elses_challenge():
    ann, bob, cat, dan = four()
    challenge = make_challenge(ann, bob, cat, dan)
    stranger = new_member("eve")
    eve = signed_in(stranger)
    page = eve.get("/challenges", **EN).content.decode()
    assert f'data-challenge="{challenge.pk}"' not in page and ann.username not in page
    for action in ("accept", "decline", "cancel"):
        answer = eve.post(f"/challenges/{challenge.pk}/{action}", {"confirm": "yes"})
        assert answer.status_code == 404, action
    assert client_for(stranger).get(f"/api/challenges/{challenge.pk}").status_code == 404
    challenge.refresh_from_db()
    assert challenge.status == "pending"
    assert all(s.answer == "pending" for s in challenge.seats.exclude(number=1))


def test_the_owner_of_an_invited_bot_sees_what_the_api_shows_them():
    ann, bob, cat = new_member("ann"), new_member("bob"), new_member("cat")
    zed = new_member("zed")
    bot = new_bot(zed)
    client_for(zed).put(f"/api/bots/{bot.username}/terms", {}, format="json")
    challenge = make_challenge(ann, bob, bot, cat)
    # the API answers the bot's owner 404 for the bot's challenge: so does the page
    assert client_for(zed).get(f"/api/challenges/{challenge.pk}").status_code == 404
    owner = signed_in(zed)
    assert f'data-challenge="{challenge.pk}"' not in owner.get("/challenges").content.decode()
    assert owner.post(f"/challenges/{challenge.pk}/accept").status_code == 404
    assert challenge.seats.get(player=bot).answer == "pending"


def test_no_page_shows_a_token():
    ann, bob, cat, dan = four()
    bot = new_bot(ann)
    tokens = [token_for(ann), token_for(bot)]
    client_for(ann).put(f"/api/bots/{bot.username}/terms", {}, format="json")
    make_challenge(ann, bob, cat, dan)
    browser = signed_in(ann)
    bodies = [browser.get(path, **EN).content.decode() for path in ("/challenges", "/bots/")]
    bodies.append(browser.post(f"/bots/{bot.username}/terms/withdraw", **EN).content.decode())
    for body in bodies:
        assert bot.username in body or "Challenges" in body  # the page rendered
        assert not any(token in body for token in tokens)
        assert not re.search(r"\bToken [0-9a-f]{20,}", body)


# -- languages ----------------------------------------------------------------------------------
def test_every_decline_reason_has_a_label():
    assert set(REASON_LABELS) == set(DECLINE_REASONS)


@pytest.mark.parametrize("lang", ["es", "ru", "ms"])
def test_the_pages_speak_the_members_language(lang):
    ann = new_member()
    new_bot(ann)
    browser = signed_in(ann)
    browser.cookies["django_language"] = lang
    with translation.override(lang):
        expected = [
            translation.gettext("Make a challenge"),
            translation.gettext("It takes no challenges: publish its terms to take some."),
        ]
    assert expected[0] != "Make a challenge"
    assert expected[0] in browser.get("/challenges", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert expected[1] in browser.get("/bots/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def test_the_pages_are_for_signed_in_members_and_linked_where_they_look():
    from django.test import Client

    for path in ("/challenges", "/bots/"):
        answer = Client().get(path)
        assert answer.status_code == 302 and "/signin" in answer["Location"]
    browser = signed_in(new_member())
    home = browser.get("/", **EN).content.decode()
    assert home.count('href="/challenges"') >= 2  # the header and the home page's links


@pytest.mark.parametrize(
    ("lang", "games", "seconds", "expected"),
    [
        ("en", 1, 1, ["1 to 1 second per move.", "At most 1 challenge game a day."]),
        ("en", 5, 30, ["1 to 30 seconds per move.", "At most 5 challenge games a day."]),
        ("ru", 1, 21, ["От 1 до 21 секунды на ход.", "Не более 1 игры по вызову в день."]),
        ("ru", 3, 22, ["От 1 до 22 секунд на ход.", "Не более 3 игр по вызову в день."]),
        ("ru", 11, 25, ["От 1 до 25 секунд на ход.", "Не более 11 игр по вызову в день."]),
    ],
)
def test_counts_in_the_terms_take_the_languages_plural_forms(lang, games, seconds, expected):
    from server.web.selectors.challenges import terms_by_name

    terms = BotTerms(games_per_day=games, min_seconds_per_move=1, max_seconds_per_move=seconds)
    with translation.override(lang):
        said = terms_by_name(terms)
    assert [said["seconds"], said["games_per_day"]] == expected
