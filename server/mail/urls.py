from django.urls import path

from server.mail import views

urlpatterns = [
    path("api/me/mail", views.MyMailView.as_view()),
]
