from django.urls import include, path
from django.views.i18n import set_language

from server.ids_and_names import register_converters
from server.web.pages import (
    exports,
    league,
    member,
    operators,
    organizer,
    public,
    tables,
    your_data,
)

register_converters()  # <id:…>, <name:…>: server/ids_and_names.py

app_name = "web"

urlpatterns = [
    path("", public.home, name="home"),
    path("download/", include("server.web.download")),  # the desktop app (its own module)
    path("signin", public.SignInView.as_view(), name="signin"),
    path("signout", public.SignOutView.as_view(), name="signout"),
    path("register", public.register, name="register"),
    path("language", set_language, name="set_language"),
    path("tables/<name:code>/replay", tables.table_replay, name="table_replay"),
    path("tables/<name:code>/record", tables.table_record, name="table_record"),
    path("tables/<name:code>/watch", tables.table_watch, name="table_watch"),
    path("me/live", public.me_live, name="me_live"),
    path("me/name", member.display_name, name="display_name"),
    path("me/data", your_data.your_data, name="your_data"),
    path("me/data.json", your_data.download, name="your_data_download"),
    path("me/close", your_data.close_account, name="close_account"),
    path("status", operators.status, name="status"),
    path("join", member.join_club, name="join_club"),
    path("join/<slug:slug>/<name:code>", member.join_link, name="join_link"),
    path("clubs/new", organizer.new_club, name="new_club"),
    path("bots/", member.bots, name="bots"),
    path("bots/<name:name>/token", member.bot_token, name="bot_token"),
    path("bots/<name:name>/enter", member.enter_bot, name="enter_bot"),
    path("clubs/<slug:slug>/", league.club, name="club"),
    path("clubs/<slug:slug>/standings", league.standings, name="standings"),
    path("clubs/<slug:slug>/ratings", league.ratings, name="ratings"),
    path("clubs/<slug:slug>/live", league.club_live, name="club_live"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/crosstable",
        league.cross_table,
        name="cross_table",
    ),
    path("clubs/<slug:slug>/organize", organizer.organize, name="organize"),
    path("clubs/<slug:slug>/organize/season", organizer.create_season, name="create_season"),
    path("clubs/<slug:slug>/organize/invite", organizer.create_invite, name="create_invite"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds",
        organizer.create_round,
        name="create_round",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>",
        league.round_page,
        name="round",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/presence",
        organizer.round_presence,
        name="round_presence",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/delete",
        organizer.delete_round,
        name="delete_round",
    ),
    path("clubs/<slug:slug>/edit", organizer.edit_club, name="edit_club"),
    path("clubs/<slug:slug>/members", organizer.members_page, name="members"),
    path("clubs/<slug:slug>/members/<name:username>/role", organizer.set_role, name="set_role"),
    path(
        "clubs/<slug:slug>/members/<name:username>/remove",
        organizer.remove_member,
        name="remove_member",
    ),
    path(
        "clubs/<slug:slug>/members/<name:username>/allow-back",
        organizer.allow_back,
        name="allow_back",
    ),
    path("clubs/<slug:slug>/invites", organizer.invites_page, name="invites"),
    path("clubs/<slug:slug>/invites/new", organizer.create_invite_link, name="create_invite_link"),
    path(
        "clubs/<slug:slug>/invites/<name:code>/revoke",
        organizer.revoke_invite,
        name="revoke_invite",
    ),
    path(
        "clubs/<slug:slug>/organize/hosted", organizer.add_hosted_player, name="add_hosted_player"
    ),
    path(
        "clubs/<slug:slug>/organize/announcements",
        organizer.post_announcement,
        name="post_announcement",
    ),
    path(
        "clubs/<slug:slug>/organize/announcements/<id:announcement_id>/remove",
        organizer.remove_announcement,
        name="remove_announcement",
    ),
    path("clubs/<slug:slug>/log", organizer.action_log, name="action_log"),
    path("clubs/<slug:slug>/standings.csv", exports.standings_csv, name="standings_csv"),
    path("clubs/<slug:slug>/ratings.csv", exports.ratings_csv, name="ratings_csv"),
    path("clubs/<slug:slug>/seasons/<id:season_id>/", organizer.edit_season, name="edit_season"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/pairs",
        organizer.register_pair,
        name="register_pair",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/close",
        organizer.close_season,
        name="close_season",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/availability",
        member.set_availability,
        name="set_availability",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/records.ndjson",
        exports.season_records,
        name="season_records",
    ),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/checkin-available",
        organizer.check_in_available,
        name="check_in_available",
    ),
    path("players/<name:username>", league.player, name="player"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/deals",
        league.round_deals,
        name="round_deals",
    ),
    path("matches/", league.matches, name="matches"),
    path("matches/<id:match_id>", league.match, name="match"),
    path("matches/<id:match_id>/record", league.match_record, name="match_record"),
    path("matches/<id:match_id>/annul", organizer.annul_page, name="annul"),
    path(
        "clubs/<slug:slug>/seasons/<id:season_id>/rounds/<id:number>/deadline",
        organizer.round_deadline,
        name="round_deadline",
    ),
    path("matches/<id:match_id>/substitute", organizer.match_substitute, name="match_substitute"),
    path("matches/<id:match_id>/forfeit", organizer.match_forfeit, name="match_forfeit"),
]
