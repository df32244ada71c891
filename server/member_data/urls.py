from django.urls import path

from server.member_data import views

urlpatterns = [
    path("api/me/data", views.MyDataView.as_view()),
    path("api/me/close", views.CloseAccountView.as_view()),
]
