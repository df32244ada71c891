from django.urls import path
from django.views.i18n import set_language

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
]
