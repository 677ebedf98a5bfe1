from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from leaderboard import services
        from scoring.events import score_landed

        # Boards only read scores: they hear that one landed and precompute its paired comparisons.
        score_landed.connect(services.board_comparisons_on_score_landed, dispatch_uid="board-comparisons")
