from django.urls import path

from server.ids_and_names import register_converters
from server.league import views

register_converters()  # <id:…>, <name:…>: server/ids_and_names.py

CLUB = "api/clubs/<slug:slug>"
SEASON = CLUB + "/seasons/<id:season_id>"
ROUND = SEASON + "/rounds/<id:number>"

urlpatterns = [
    path("api/clubs", views.ClubsView.as_view()),
    path(CLUB, views.ClubView.as_view()),
    path(CLUB + "/members", views.MembersView.as_view()),
    path(CLUB + "/members/<name:username>", views.MemberView.as_view()),
    path(CLUB + "/removed", views.RemovedMembersView.as_view()),
    path(CLUB + "/removed/<name:username>", views.RemovedMemberView.as_view()),
    path(CLUB + "/invites", views.InvitesView.as_view()),
    path(CLUB + "/invites/<name:code>", views.InviteView.as_view()),
    path(CLUB + "/join", views.JoinClubView.as_view()),
    path(CLUB + "/hosted-players", views.HostedPlayersView.as_view()),
    path(CLUB + "/log", views.ClubLogView.as_view()),
    path(CLUB + "/ratings", views.RatingsView.as_view()),
    path(CLUB + "/seasons", views.SeasonsView.as_view()),
    path(SEASON, views.SeasonView.as_view()),
    path(SEASON + "/close", views.SeasonCloseView.as_view()),
    path(SEASON + "/pairs", views.PairsView.as_view()),
    path(SEASON + "/standings", views.StandingsView.as_view()),
    path(SEASON + "/rounds", views.RoundsView.as_view()),
    path(ROUND, views.RoundView.as_view()),
    path(ROUND + "/checkin", views.CheckInView.as_view()),
    path(ROUND + "/start", views.StartRoundView.as_view()),
    path(ROUND + "/tables", views.RoundTablesView.as_view()),
    path("api/matches", views.MatchesView.as_view()),
    path("api/matches/<id:match_id>", views.MatchView.as_view()),
    path("api/matches/<id:match_id>/record", views.MatchRecordView.as_view()),
    path("api/matches/<id:match_id>/analysis", views.MatchAnalysisView.as_view()),
    path("api/matches/<id:match_id>/hands", views.MatchHandsView.as_view()),
    path("api/matches/<id:match_id>/annul", views.AnnulView.as_view()),
    path("api/matches/<id:match_id>/substitute", views.SubstituteView.as_view()),
    path("api/matches/<id:match_id>/forfeit", views.ForfeitView.as_view()),
    path("api/players/<name:username>", views.PlayerView.as_view()),
    path("api/players/<name:username>/stats", views.PlayerStatsView.as_view()),
    path("api/host/players", views.HostPlayersView.as_view()),
    path("api/host/players/<name:name>/token", views.HostPlayerTokenView.as_view()),
    path("api/me/league-tables", views.MyLeagueTablesView.as_view()),
]
