"""Everything under /accounts/ (config/urls.py mounts it there): the site's own account pages, then Django's sign-in,
sign-out, password change and password reset."""
from django.urls import include, path

from accounts import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("token/", views.api_token, name="api-token"),
    path("lockouts/", views.sign_in_lockouts, name="sign-in-lockouts"),
    path("", include("django.contrib.auth.urls")),
]
