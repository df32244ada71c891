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
    path("api/me", accounts.MeView.as_view()),
    path("api/bots", accounts.BotsView.as_view()),
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


def json_not_found(request, exception=None):
    return JsonResponse({"code": "not_found", "message": "no such resource"}, status=404)


def json_server_error(request):
    return JsonResponse({"code": "server_error", "message": "the server failed; try again"}, status=500)


handler404 = json_not_found
handler500 = json_server_error
