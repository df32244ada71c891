"""The ways in to the browser table (issue #32, points 6 and 8), in-process: "My next
table" → Play now, the round page's Play and Watch links, the club page's "your table is
ready", a casual table against the computer at a level, a seat offered by link, join by
code, watch, the desktop app offered beside; no command and no token on a page a member
sees; and the authorization matrix of the new forms, where every refusal changes nothing."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from server.accounts import services as accounts
from server.accounts.models import AccessToken, User
from server.league import selectors as league
from server.league.actions.hosted import casual_computer, do_add_hosted_player
from server.league.actions.rounds import do_check_in, do_create_round, do_start_round
from server.league.actions.seasons import do_create_season
from server.league.models import Club, LeagueMatch, Membership
from server.tables import projection
from server.tables.models import Event, Seat, Table
from tests.web.league_seed import PASSWORD, seed_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def lg():
    return seed_league(members=("ana", "ben", "carl"), rounds=1)


def client(name: str | None) -> Client:
    c = Client()
    if name:
        assert c.login(username=name, password=PASSWORD)
    return c


def person(name: str) -> User:
    return accounts.do_register(username=name, password=PASSWORD)


def text(response) -> str:
    return response.content.decode()


def seats_of(code: str) -> dict[int, str | None]:
    return {
        s.number: (s.player.username if s.player else None)
        for s in Seat.objects.filter(table__code=code).select_related("player")
    }


def create(c: Client, level: str = "strong", friends: tuple[int, ...] = ()) -> str:
    data = {"level": level, **{f"seat_{n}": "computer" for n in (2, 3, 4)}}
    data.update({f"seat_{n}": "friend" for n in friends})
    made = c.post("/tables/new", data)
    assert made.status_code == 302, text(made)
    found = re.fullmatch(r"/tables/([A-Z0-9]+)/play", made["Location"])
    assert found, made["Location"]
    return found[1]


# -- my next table, the round page, the club page --------------------------------------------------
def test_play_now_on_the_home_page_leads_to_the_seat_and_the_app_beside_it(lg):
    match = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0])
    player = Seat.objects.filter(table=match.table, player__is_bot=False).first().player
    c = client(player.username)
    home = text(c.get("/"))
    card = home[home.index('id="next-table"') :]
    card = card[: card.index("</section>")]
    assert f'<a class="button play-now" href="/tables/{match.table.code}/play">' in card
    assert f'href="/download/?table={match.table.code}"' in card
    assert "Desktop app (optional)" in card
    assert c.get(f"/tables/{match.table.code}/play").status_code == 200
    # The app's page has this server's address filled in, and the table's links.
    download = text(c.get(f"/download/?table={match.table.code}"))
    assert "http://testserver" in download and f"dekabes://testserver/table/{match.table.code}" in (
        download
    )


def test_the_round_page_links_each_player_to_their_seat_and_others_to_watch(lg):
    path = f"/clubs/riverside/seasons/{lg['season']}/rounds/{lg['live_round']}"
    match = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0])
    code = match.table.code
    seated = [
        s.player.username for s in Seat.objects.filter(table=match.table, player__is_bot=False)
    ]
    for name in seated:
        page = text(client(name).get(path))
        assert f'href="/tables/{code}/play"' in page and f'href="/tables/{code}/watch"' not in page
    for name in (None, "zed", lg["organizer"]):
        page = text(client(name).get(path))
        assert '/play"' not in page and "play-now" not in page, name
        assert f'href="/tables/{code}/watch"' in page, name
        assert client(name).get(f"/tables/{code}/watch").status_code == 200


def test_a_duplicate_round_on_shows_its_players_their_seat_and_nobody_a_watch_link(lg):
    olga = User.objects.get(username=lg["organizer"])
    club = Club.objects.get(slug="cellar")
    season = do_create_season(user=olga, club=club, name="Dup", format="individual", duplicate=True)
    computers = [do_add_hosted_player(user=olga, club=club, level="random") for _ in range(7)]
    round_ = do_create_round(user=olga, season=season)
    names = ["ana"] + [m.user.username for m in computers]
    do_check_in(user=olga, round_=round_, players=names)
    mine, other = sorted(
        do_start_round(user=olga, round_=round_),
        key=lambda m: not Seat.objects.filter(table=m.table, player__username="ana").exists(),
    )
    path = f"/clubs/cellar/seasons/{season.pk}/rounds/{round_.number}"
    ana = text(client("ana").get(path))
    assert f'href="/tables/{mine.table.code}/play"' in ana
    assert other.table.code not in ana  # the other table is hidden while the round is on
    for name in ("ana", lg["organizer"]):
        page = text(client(name).get(path))
        assert "/watch" not in page and "watch-link" not in page, name
    assert "play-now" not in text(client(lg["organizer"]).get(path))
    assert client("ana").get(f"/tables/{other.table.code}/watch").status_code == 404


def test_the_club_page_says_when_your_table_is_ready(lg):
    match = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0])
    player = Seat.objects.filter(table=match.table, player__is_bot=False).first().player
    page = text(client(player.username).get("/clubs/riverside/"))
    assert "Your table is ready." in page
    assert f'href="/tables/{match.table.code}/play"' in page
    for name in (None, "zed", lg["organizer"]):
        assert "Your table is ready." not in text(client(name).get("/clubs/riverside/")), name


# -- casual tables ----------------------------------------------------------------------------------
def test_a_table_against_the_computer_at_a_level_lands_on_its_play_page():
    person("nora")
    c = client("nora")
    assert "New table against the computer" in text(c.get("/"))
    assert c.get("/tables/new").status_code == 200
    code = create(c, "strong")
    seats = seats_of(code)
    computer = User.objects.get(username=seats[2])
    assert seats[1] == "nora" and seats[2] == seats[3] == seats[4]
    assert computer.is_hosted and computer.hosted_level == "strong"
    # The server's host plays it (always in service), and it is no club's member.
    assert computer in league.hosted_players_in_service()
    assert not Membership.objects.filter(user=computer).exists()
    assert c.get(f"/tables/{code}/play").status_code == 200
    # Another table at that level seats the same computer; another level, another one.
    again = create(c, "strong")
    other = create(c, "random")
    assert seats_of(again)[4] == computer.username
    assert User.objects.get(username=seats_of(other)[2]).hosted_level == "random"
    assert projection.project(Table.objects.get(code=code)).match.phase == "accept"


def test_casual_computers_and_club_hosted_players_never_mix(lg):
    olga = User.objects.get(username=lg["organizer"])
    club = Club.objects.get(slug="riverside")
    person("computer-expert")  # a person took the plain name first
    hosted = do_add_hosted_player(user=olga, club=club, level="expert").user
    computer = casual_computer(level="expert")
    assert computer.username == "computer-expert-2" and computer != hosted
    assert casual_computer(level="expert") == computer
    assert list(league.casual_computers()) == [computer]
    # A removed club player leaves the host's service; a casual computer never does.
    in_service = league.hosted_players_in_service()
    assert computer in in_service and hosted in in_service


def test_a_seat_offered_by_link_is_taken_by_a_signed_in_friend():
    person("nora"), person("omar"), person("pia")
    owner = client("nora")
    code = create(owner, "medium", friends=(3,))
    play = text(owner.get(f"/tables/{code}/play"))
    link = f"http://testserver/tables/{code}/join?seat=3"
    assert link in play and "Offer a seat to a friend" in play
    # Signed out, the link asks to sign in first and comes back.
    signed_out = Client().get(f"/tables/{code}/join?seat=3")
    assert signed_out.status_code == 302 and "/signin" in signed_out["Location"]
    friend = client("omar")
    page = friend.get(f"/tables/{code}/join?seat=3")
    assert page.status_code == 200 and "Take seat 3 and play" in text(page)
    taken = friend.post(f"/tables/{code}/join?seat=3", {"seat": "3"})
    assert taken.status_code == 302 and taken["Location"] == f"/tables/{code}/play"
    assert seats_of(code)[3] == "omar"
    assert friend.get(f"/tables/{code}/play").status_code == 200
    # The seat holder's link leads straight to the table; the owner's page has no link left.
    assert friend.get(f"/tables/{code}/join")["Location"] == f"/tables/{code}/play"
    assert link not in text(owner.get(f"/tables/{code}/play"))
    # A third person finds every seat taken, and no watch link until the owner allows it.
    third = client("pia")
    full = text(third.get(f"/tables/{code}/join?seat=3"))
    assert "Every seat of this table is taken." in full and "/watch" not in full
    assert third.get(f"/tables/{code}/watch").status_code == 404
    assert owner.post(f"/tables/{code}/watchable", {"on": "yes"}).status_code == 302
    assert f'href="/tables/{code}/watch"' in text(third.get(f"/tables/{code}/join"))
    assert third.get(f"/tables/{code}/watch").status_code == 200
    owner.post(f"/tables/{code}/watchable", {"on": "no"})
    assert third.get(f"/tables/{code}/watch").status_code == 404


def test_a_friend_without_an_account_registers_from_the_link_and_lands_on_the_seat():
    person("rosa")
    code = create(client("rosa"), "medium", friends=(3,))
    visitor = Client()
    asked = visitor.get(f"/tables/{code}/join?seat=3")
    assert asked.status_code == 302
    signin = visitor.get(asked["Location"])
    page = text(signin)
    # the sign-in page says what waits behind it, and its way to register keeps the link
    assert f"A seat at table {code} waits for you" in page
    to_register = re.search(r'href="(/register\?next=[^"]+)"', page)
    assert to_register, page
    assert page.count(f'href="{to_register.group(1)}"') == 2  # the form's and the header's
    register_url = to_register.group(1).replace("&amp;", "&")
    form = text(visitor.get(register_url))
    assert f"A seat at table {code} waits for you" in form
    assert f'value="/tables/{code}/join?seat=3"' in form  # the hidden next
    assert f'href="/signin?next=/tables/{code}/join%3Fseat%3D3"' in form  # and back
    token = re.search(r'name="form_token" value="([^"]+)"', form).group(1)
    made = visitor.post(
        register_url,
        {
            "username": "sami",
            "password": PASSWORD,
            "next": f"/tables/{code}/join?seat=3",
            "form_token": token,
        },
    )
    assert made.status_code == 302 and made["Location"] == f"/tables/{code}/join?seat=3"
    assert "Take seat 3 and play" in text(visitor.get(made["Location"]))
    taken = visitor.post(f"/tables/{code}/join?seat=3", {"seat": "3"})
    assert taken["Location"] == f"/tables/{code}/play" and seats_of(code)[3] == "sami"


def test_the_forms_name_no_table_for_a_next_that_is_not_a_seat_link_nor_this_site():
    for target in ("/clubs/x/", "https://elsewhere.example/tables/ABCDEF/join", "/tables/open"):
        for form in ("/signin", "/register"):
            page = text(Client().get(form, {"next": target}))
            assert "waits for you" not in page, (form, target)
    # an outside next is dropped by the registration form, not carried on
    page = text(Client().get("/register", {"next": "https://elsewhere.example/x"}))
    assert '<input type="hidden" name="next" value="">' in page
    assert "/signin?next=" not in page


def test_join_by_code_from_the_home_page():
    person("nora"), person("omar")
    code = create(client("nora"), "random", friends=(2, 4))
    friend = client("omar")
    home = text(friend.get("/"))
    assert 'action="/tables/join"' in home
    found = friend.get("/tables/join", {"code": f"  {code.lower()} "})
    assert found.status_code == 302 and found["Location"] == f"/tables/{code}/join"
    page = text(friend.get(found["Location"]))
    assert "Take seat 2 and play" in page and "Take seat 4 and play" in page
    assert friend.post(found["Location"], {"seat": "4"})["Location"] == f"/tables/{code}/play"
    assert seats_of(code)[4] == "omar"
    # A malformed code gets the form again; an unknown one the 404 of an unknown table.
    assert friend.get("/tables/join", {"code": "no such!"}).status_code == 400
    assert friend.get("/tables/join", {"code": "ZZZZZZ"})["Location"] == "/tables/ZZZZZZ/join"
    assert friend.get("/tables/ZZZZZZ/join").status_code == 404


# -- nothing of a command or a token ---------------------------------------------------------------
def test_no_page_a_member_sees_holds_a_command_or_a_token(lg):
    match = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0])
    player = Seat.objects.filter(table=match.table, player__is_bot=False).first().player
    grant = accounts.grant_token(user=player, device="laptop")  # the member has a token
    c = client(player.username)
    code = create(c, "greedy", friends=(3,))
    paths = [
        "/",
        "/clubs/riverside/",
        f"/clubs/riverside/seasons/{lg['season']}/rounds/{lg['live_round']}",
        f"/tables/{match.table.code}/play",
        f"/tables/{code}/play",
        f"/tables/{code}/join",
        "/tables/new",
        f"/download/?table={code}",
        "/bots/",
        "/me/data",
    ]
    for path in paths:
        response = c.get(path, follow=True)
        assert response.status_code == 200, path
        body = text(response)
        for banned in ("python -m", "DEKABES_TOKEN", grant.key):
            assert banned not in body, (path, banned)
        # The strict CSP holds: no inline style, handler or script.
        assert "unsafe-inline" not in response["Content-Security-Policy"]
        assert not re.search(r"\sstyle=|\son[a-z]+=", body), path
        for script in re.findall(r"<script\b[^>]*>", body):
            assert "src=" in script or 'type="application/json"' in script, (path, script)


# -- the authorization matrix of the new forms -----------------------------------------------------
def _snapshot():
    """Everything the new forms could change."""
    return (
        list(Table.objects.order_by("id").values_list("code", "owner_id")),
        list(Seat.objects.order_by("id").values_list("table_id", "number", "player_id")),
        Event.objects.count(),
        User.objects.count(),
        AccessToken.objects.count(),
    )


def test_every_refusal_of_the_new_forms_changes_nothing(lg):
    person("nora"), person("omar")
    owner = client("nora")
    casual = create(owner, "medium", friends=(3,))
    full = create(owner, "medium")
    league_code = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0]).table.code
    cellar = Club.objects.get(slug="cellar")
    olga = User.objects.get(username=lg["organizer"])
    members_season = do_create_season(user=olga, club=cellar, name="Cellar", format="individual")
    members_round = do_create_round(user=olga, season=members_season)
    do_add = [do_add_hosted_player(user=olga, club=cellar, level="random") for _ in range(3)]
    do_check_in(
        user=olga, round_=members_round, players=["ana"] + [m.user.username for m in do_add]
    )
    (secret,) = do_start_round(user=olga, round_=members_round)
    bot_key = accounts.do_register_bot(owner=User.objects.get(username="ana"), name="ana-b").key
    forms = [
        ("/tables/new", {"level": "strong", "seat_2": "computer", "seat_3": "computer"}),
        (f"/tables/{casual}/join", {"seat": "3"}),
        (f"/tables/{casual}/watchable", {"on": "yes"}),
    ]
    bad = [
        # Who may use the forms, but with what no form may do.
        ("nora", "/tables/new", {"level": "godlike", "seat_2": "computer"}, 400),
        ("nora", "/tables/new", {"level": "strong", "seat_2": "x"}, 400),
        ("omar", f"/tables/{full}/join", {"seat": "2"}, 403),  # a computer's seat
        ("omar", f"/tables/{full}/join", {"seat": "9"}, 400),
        ("omar", f"/tables/{casual}/watchable", {"on": "yes"}, 403),  # not the owner
        ("zed", f"/tables/{league_code}/join", {"seat": "1"}, 409),  # taken
        ("zed", f"/tables/{secret.table.code}/join", {"seat": "1"}, 404),  # members only
        ("zed", f"/tables/{secret.table.code}/watchable", {"on": "yes"}, 404),
        ("zed", "/tables/NOSUCH/join", {"seat": "1"}, 404),
    ]
    callers = {
        "anonymous": Client(),
        "bot token": Client(HTTP_AUTHORIZATION=f"Token {bot_key}"),
    }
    before = _snapshot()
    for who, c in callers.items():
        for path, data in forms:
            got = c.post(path, data)
            assert got.status_code == 302 and "/signin" in got["Location"], (who, path)
            assert _snapshot() == before, (who, path)
    for name, path, data, status in bad:
        got = client(name).post(path, data)
        assert got.status_code == status, (name, path, data, got.status_code)
        assert _snapshot() == before, (name, path, data)
    # GET never writes: the join page and the forms' pages.
    for path in (f"/tables/{casual}/join?seat=3", "/tables/new", f"/tables/{casual}/watchable"):
        client("omar").get(path)
        assert _snapshot() == before, path
    # A seat already taken by someone else between the page and the click: said, unchanged.
    client("omar").post(f"/tables/{casual}/join", {"seat": "3"})
    after = _snapshot()
    late = client("zed").post(f"/tables/{casual}/join", {"seat": "3"})
    assert late.status_code == 409 and "This seat was taken" in text(late)
    assert _snapshot() == after


def test_a_substitute_is_led_to_the_seat_and_the_player_replaced_no_longer(lg):
    from server.league.actions.matches import do_substitute
    from server.league.actions.members import do_create_invite, do_join_club

    olga = User.objects.get(username=lg["organizer"])
    club = Club.objects.get(slug="riverside")
    dora = person("dora")
    do_join_club(user=dora, club=club, code=do_create_invite(user=olga, club=club).code)
    match = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0])
    seat = Seat.objects.get(table=match.table, player__username="ben")
    do_substitute(user=olga, match=match, seat=seat.number, username="dora", reason="late")
    code = match.table.code
    round_path = f"/clubs/riverside/seasons/{lg['season']}/rounds/{lg['live_round']}"
    dora_club = text(client("dora").get("/clubs/riverside/"))
    assert "Your table is ready." in dora_club and f'href="/tables/{code}/play"' in dora_club
    assert f'href="/tables/{code}/play"' in text(client("dora").get(round_path))
    assert client("dora").get(f"/tables/{code}/join")["Location"] == f"/tables/{code}/play"
    ben = client("ben")
    home = text(ben.get("/"))
    assert "Your seat was handed to someone else." in home
    assert f'href="/tables/{code}/play"' not in home
    assert "Your table is ready." not in text(ben.get("/clubs/riverside/"))
    assert f'href="/tables/{code}/watch"' in text(ben.get(round_path))
    assert ben.get(f"/tables/{code}/play").status_code == 404


def test_a_seat_of_a_table_seeking_players_is_taken_from_the_open_seats_list():
    """The open seats list links each table to its join page; the seek's own rules (who
    it wants, its level range) decide through the join, and a refusal changes nothing."""
    from server.matchmaking.seeks import SeekPlan, do_seek

    seeker, taker = person("nora"), person("omar")
    person("pia")
    plan = SeekPlan(wanted="people", join=[1], bots={}, min_level=None, max_level=None, minutes=30)
    code = do_seek(user=seeker, plan=plan).table.code
    listing = text(client("omar").get("/tables/open"))
    assert f'href="/tables/{code}/join"' in listing
    took = client("omar").post(f"/tables/{code}/join", {"seat": "2"})
    assert took["Location"] == f"/tables/{code}/play" and seats_of(code)[2] == taker.username
    # A seek with a level range nobody new reaches: refused with its sentence, unchanged.
    narrow = SeekPlan(wanted="people", join=[1], bots={}, min_level=90, max_level=99, minutes=30)
    other = do_seek(user=seeker, plan=narrow).table.code
    before = _snapshot()
    refused = client("pia").post(f"/tables/{other}/join", {"seat": "3"})
    assert refused.status_code == 403
    assert "This table is looking for players of another level." in text(refused)
    assert _snapshot() == before
