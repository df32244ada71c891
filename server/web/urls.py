from django.urls import path
from django.views.i18n import set_language

from server.parsing import register_converters
from server.web import league_views as league
from server.web import views

register_converters()  # <id:…>, <name:…>: server/parsing.py

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("signin", views.SignInView.as_view(), name="signin"),
    path("signout", views.SignOutView.as_view(), name="signout"),
    path("register", views.register, name="register"),
    path("language", set_language, name="set_language"),
    path("tables/<name:code>/replay", views.table_replay, name="table_replay"),
    path("tables/<name:code>/record", views.table_record, name="table_record"),
    path("join", league.join_club, name="join_club"),
    path("clubs/<slug:slug>/", league.club, name="club"),
    path("clubs/<slug:slug>/standings", league.standings, name="standings"),
    path("clubs/<slug:slug>/organize", league.organize, name="organize"),
    path("clubs/<slug:slug>/organize/season", league.create_season, name="create_season"),
    path("clubs/<slug:slug>/organize/invite", league.create_invite, name="create_invite"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds", league.create_round, name="create_round"
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>",
        league.round_page,
        name="round",
    ),
    path("players/<name:username>", league.player, name="player"),
    path("matches/", league.matches, name="matches"),
    path("matches/<id:match_id>", league.match, name="match"),
    path("matches/<id:match_id>/record", league.match_record, name="match_record"),
    path("matches/<id:match_id>/annul", league.annul, name="annul"),
]
