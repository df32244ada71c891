from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny

from server.accounts import views as accounts
from server.ids_and_names import register_converters
from server.league import spectate_views
from server.tables import views as tables

register_converters()  # <id:…>, <name:…>: server/ids_and_names.py

PUBLIC = {"permission_classes": [AllowAny], "authentication_classes": []}
SEAT = "api/tables/<name:code>/seats/<name:seat>"

# Django tries the patterns in order: the game's two hot routes (every action reads the
# seat and posts) come first instead of after seventeen others (~1% of an action's CPU).
urlpatterns = [
    path(SEAT, tables.SeatView.as_view()),
    path(SEAT + "/actions", tables.ActionView.as_view()),
    path("", include("server.matchmaking.urls")),  # before api/tables/<code>: /open
    path("api/auth/register", accounts.RegisterView.as_view()),
    path("api/auth/token", accounts.TokenView.as_view()),
    path("api/auth/logout", accounts.LogoutView.as_view()),
    path("api/auth/rotate", accounts.RotateView.as_view()),
    path("api/auth/tokens", accounts.TokensView.as_view()),
    path("api/auth/tokens/<id:token_id>", accounts.TokenDetailView.as_view()),
    path("api/auth/password", accounts.PasswordView.as_view()),
    path("api/me", accounts.MeView.as_view()),
    path("", include("server.member_data.urls")),
    path("", include("server.mail.urls")),
    path("api/bots", accounts.BotsView.as_view()),
    path("api/bots/<name:name>/token", accounts.BotTokenView.as_view()),
    path("api/tables", tables.TablesView.as_view()),
    path("api/tables/<name:code>", tables.TableView.as_view()),
    path("api/tables/<name:code>/join", tables.JoinView.as_view()),
    path("api/tables/<name:code>/record", tables.RecordView.as_view()),
    path("api/tables/<name:code>/watchable", tables.WatchableView.as_view()),
    path("api/tables/<name:code>/spectate", spectate_views.SpectateView.as_view()),
    path(SEAT + "/hint", tables.HintView.as_view()),
    path(SEAT + "/events", tables.EventsView.as_view()),
    path(SEAT + "/leave", tables.LeaveView.as_view()),
    path(SEAT + "/replace", tables.ReplaceView.as_view()),
    path("", include("server.league.urls")),
    path("", include("server.ops.urls")),
    path("", include("server.ladder.urls")),
    path("api/schema/", SpectacularAPIView.as_view(**PUBLIC), name="schema"),
    path(
        "api/docs/", SpectacularSwaggerView.as_view(url_name="schema", **PUBLIC), name="swagger-ui"
    ),
    path("", include("server.web.urls")),
]


# /api/ paths keep their JSON error bodies; the web pages get pages (server/web/errors.py).
handler400 = "server.web.errors.bad_request"
handler403 = "server.web.errors.forbidden"
handler404 = "server.web.errors.not_found"
handler500 = "server.web.errors.server_error"
