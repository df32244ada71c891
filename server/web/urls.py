from django.urls import include, path
from django.views.i18n import set_language

from server.ids_and_names import register_converters
from server.web import data_views, duplicate_views, status_views, views
from server.web import league_views as league
from server.web import organizer_views as org
from server.web import substitution_views as substitution

register_converters()  # <id:…>, <name:…>: server/ids_and_names.py

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("download/", include("server.web.download")),  # the desktop app (its own module)
    path("signin", views.SignInView.as_view(), name="signin"),
    path("signout", views.SignOutView.as_view(), name="signout"),
    path("register", views.register, name="register"),
    path("language", set_language, name="set_language"),
    path("tables/<name:code>/replay", views.table_replay, name="table_replay"),
    path("tables/<name:code>/record", views.table_record, name="table_record"),
    path("tables/<name:code>/watch", views.table_watch, name="table_watch"),
    path("me/live", views.me_live, name="me_live"),
    path("me/data", data_views.your_data, name="your_data"),
    path("me/data.json", data_views.download, name="your_data_download"),
    path("me/close", data_views.close_account, name="close_account"),
    path("status", status_views.status, name="status"),
    path("join", league.join_club, name="join_club"),
    path("join/<slug:slug>/<name:code>", org.join_link, name="join_link"),
    path("clubs/new", org.new_club, name="new_club"),
    path("bots/", org.bots, name="bots"),
    path("bots/<name:name>/token", org.bot_token, name="bot_token"),
    path("bots/<name:name>/enter", org.enter_bot, name="enter_bot"),
    path("clubs/<slug:slug>/", league.club, name="club"),
    path("clubs/<slug:slug>/standings", league.standings, name="standings"),
    path("clubs/<slug:slug>/ratings", league.ratings, name="ratings"),
    path("clubs/<slug:slug>/live", league.club_live, name="club_live"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/crosstable",
        league.cross_table,
        name="cross_table",
    ),
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
    path("clubs/<slug:slug>/edit", org.edit_club, name="edit_club"),
    path("clubs/<slug:slug>/members", org.members, name="members"),
    path("clubs/<slug:slug>/members/<name:username>/role", org.set_role, name="set_role"),
    path(
        "clubs/<slug:slug>/members/<name:username>/remove", org.remove_member, name="remove_member"
    ),
    path("clubs/<slug:slug>/invites", org.invites, name="invites"),
    path("clubs/<slug:slug>/invites/new", org.create_invite, name="create_invite_link"),
    path("clubs/<slug:slug>/invites/<name:code>/revoke", org.revoke_invite, name="revoke_invite"),
    path("clubs/<slug:slug>/organize/hosted", org.add_hosted_player, name="add_hosted_player"),
    path(
        "clubs/<slug:slug>/organize/announcements",
        org.post_announcement,
        name="post_announcement",
    ),
    path(
        "clubs/<slug:slug>/organize/announcements/<id:announcement_id>/remove",
        org.remove_announcement,
        name="remove_announcement",
    ),
    path("clubs/<slug:slug>/log", org.action_log, name="action_log"),
    path("clubs/<slug:slug>/standings.csv", org.standings_csv, name="standings_csv"),
    path("clubs/<slug:slug>/ratings.csv", org.ratings_csv, name="ratings_csv"),
    path("clubs/<slug:slug>/seasons/<id:season_id>/", org.edit_season, name="edit_season"),
    path("clubs/<slug:slug>/seasons/<id:season_id>/pairs", org.register_pair, name="register_pair"),
    path("clubs/<slug:slug>/seasons/<id:season_id>/close", org.close_season, name="close_season"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/availability",
        org.set_availability,
        name="set_availability",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/records.ndjson",
        org.season_records,
        name="season_records",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/checkin-available",
        org.check_in_available,
        name="check_in_available",
    ),
    path("players/<name:username>", league.player, name="player"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/deals",
        duplicate_views.round_deals,
        name="round_deals",
    ),
    path("matches/", league.matches, name="matches"),
    path("matches/<id:match_id>", league.match, name="match"),
    path("matches/<id:match_id>/record", league.match_record, name="match_record"),
    path("matches/<id:match_id>/annul", org.annul_page, name="annul"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/deadline",
        substitution.round_deadline,
        name="round_deadline",
    ),
    path(
        "matches/<id:match_id>/substitute", substitution.match_substitute, name="match_substitute"
    ),
    path("matches/<id:match_id>/forfeit", substitution.match_forfeit, name="match_forfeit"),
]
