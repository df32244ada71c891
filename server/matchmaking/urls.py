from django.urls import path

from server.ids_and_names import register_converters
from server.matchmaking import views

register_converters()  # <id:…>, <name:…>: server/ids_and_names.py

SEEK = "api/tables/open/<id:seek_id>"
CHALLENGE = "api/challenges/<id:challenge_id>"

urlpatterns = [
    path("api/tables/open", views.OpenSeatsView.as_view()),
    path(SEEK, views.SeekView.as_view()),
    path(SEEK + "/cancel", views.CancelSeekView.as_view()),
    path("api/bots/terms", views.PublishedTermsView.as_view()),
    path("api/bots/<name:name>/terms", views.TermsView.as_view()),
    path("api/challenges", views.ChallengesView.as_view()),
    path(CHALLENGE, views.ChallengeView.as_view()),
    path(CHALLENGE + "/accept", views.AcceptView.as_view()),
    path(CHALLENGE + "/decline", views.DeclineView.as_view()),
    path(CHALLENGE + "/cancel", views.CancelChallengeView.as_view()),
]
