from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save
        from rest_framework.authtoken.models import Token

        from accounts import auth

        # A cached API token is forgotten as soon as it is deleted or its user changes.
        post_delete.connect(auth.token_cache_forget_token, sender=Token, dispatch_uid="token-cache-token-deleted")
        post_save.connect(auth.token_cache_forget_token, sender=Token, dispatch_uid="token-cache-token-saved")
        post_save.connect(auth.token_cache_forget_user, sender=get_user_model(), dispatch_uid="token-cache-user")
