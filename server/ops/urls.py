from django.urls import path

from server.ops import views

urlpatterns = [path("healthz", views.healthz, name="healthz")]
