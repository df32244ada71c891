from django.http import JsonResponse
from django.urls import include, path
from rest_framework.permissions import AllowAny
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from server.accounts import views as accounts
from server.tables import views as tables

PUBLIC = {"permission_classes": [AllowAny], "authentication_classes": []}
SEAT = "api/tables/<str:code>/seats/<str:seat>"

urlpatterns = [
    path("api/auth/register", accounts.RegisterView.as_view()),
    path("api/auth/token", accounts.TokenView.as_view()),
    path("api/auth/logout", accounts.LogoutView.as_view()),
    path("api/auth/rotate", accounts.RotateView.as_view()),
    path("api/auth/tokens", accounts.TokensView.as_view()),
    path("api/auth/tokens/<int:token_id>", accounts.TokenDetailView.as_view()),
    path("api/auth/password", accounts.PasswordView.as_view()),
    path("api/me", accounts.MeView.as_view()),
    path("api/bots", accounts.BotsView.as_view()),
    path("api/bots/<str:name>/token", accounts.BotTokenView.as_view()),
    path("api/tables", tables.TablesView.as_view()),
    path("api/tables/<str:code>", tables.TableView.as_view()),
    path("api/tables/<str:code>/join", tables.JoinView.as_view()),
    path("api/tables/<str:code>/record", tables.RecordView.as_view()),
    path(SEAT, tables.SeatView.as_view()),
    path(SEAT + "/actions", tables.ActionView.as_view()),
    path(SEAT + "/hint", tables.HintView.as_view()),
    path(SEAT + "/events", tables.EventsView.as_view()),
    path("", include("server.league.urls")),
    path("api/schema/", SpectacularAPIView.as_view(**PUBLIC), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema", **PUBLIC), name="swagger-ui"),
]


def json_bad_request(request, exception=None):
    # Django's own refusals (an unknown Host header, a body past the size limit) as JSON.
    return JsonResponse({"code": "bad_request", "message": "the request was refused"}, status=400)


def json_forbidden(request, exception=None):
    return JsonResponse({"code": "permission_denied", "message": "forbidden"}, status=403)


def json_not_found(request, exception=None):
    return JsonResponse({"code": "not_found", "message": "no such resource"}, status=404)


def json_server_error(request):
    return JsonResponse({"code": "server_error", "message": "the server failed; try again"}, status=500)


handler400 = json_bad_request
handler403 = json_forbidden
handler404 = json_not_found
handler500 = json_server_error
