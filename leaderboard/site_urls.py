from django.urls import path

from leaderboard import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/token/", views.api_token, name="api-token"),
    path("accounts/lockouts/", views.sign_in_lockouts, name="sign-in-lockouts"),
]
