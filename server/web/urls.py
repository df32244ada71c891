from django.urls import path
from django.views.i18n import set_language

from server.web import league_views as league
from server.web import substitution_views as substitution
from server.web import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("signin", views.SignInView.as_view(), name="signin"),
    path("signout", views.SignOutView.as_view(), name="signout"),
    path("register", views.register, name="register"),
    path("language", set_language, name="set_language"),
    path("tables/<str:code>/replay", views.table_replay, name="table_replay"),
    path("tables/<str:code>/record", views.table_record, name="table_record"),
    path("tables/<str:code>/watch", views.table_watch, name="table_watch"),
    path("join", league.join_club, name="join_club"),
    path("clubs/<slug:slug>/", league.club, name="club"),
    path("clubs/<slug:slug>/standings", league.standings, name="standings"),
    path("clubs/<slug:slug>/organize", league.organize, name="organize"),
    path("clubs/<slug:slug>/organize/season", league.create_season, name="create_season"),
    path("clubs/<slug:slug>/organize/invite", league.create_invite, name="create_invite"),
    path(
        "clubs/<slug:slug>/seasons/<int:season_id>/rounds", league.create_round, name="create_round"
    ),
    path(
        "clubs/<slug:slug>/seasons/<int:season_id>/rounds/<int:number>",
        league.round_page,
        name="round",
    ),
    path("players/<str:username>", league.player, name="player"),
    path("matches/", league.matches, name="matches"),
    path("matches/<int:match_id>", league.match, name="match"),
    path("matches/<int:match_id>/record", league.match_record, name="match_record"),
    path("matches/<int:match_id>/annul", league.annul, name="annul"),
    path(
        "clubs/<slug:slug>/seasons/<int:season_id>/rounds/<int:number>/deadline",
        substitution.round_deadline,
        name="round_deadline",
    ),
    path(
        "matches/<int:match_id>/substitute", substitution.match_substitute, name="match_substitute"
    ),
    path("matches/<int:match_id>/forfeit", substitution.match_forfeit, name="match_forfeit"),
]
