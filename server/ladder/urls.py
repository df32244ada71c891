from django.urls import path

from server.ids_and_names import register_converters
from server.ladder import views

register_converters()  # <id:…>, <name:…>: server/ids_and_names.py

urlpatterns = [
    path("api/ladder", views.LadderView.as_view()),
    path("api/ladder/bots/<name:name>", views.LadderBotView.as_view()),
    path("api/ladder/matches", views.LadderMatchesView.as_view()),
    path("api/ladder/matches/<id:pair_id>", views.LadderMatchView.as_view()),
]
