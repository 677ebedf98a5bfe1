from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from leaderboard import services, services_analysis, tasks
        from scoring.events import score_landed, score_rescored, score_updated

        # Boards only read scores: they hear that one landed and precompute its paired comparisons.
        score_landed.connect(services.board_comparisons_on_score_landed, dispatch_uid="board-comparisons")
        # The Analysis tab: each scored submission's summary, so its figures never read per-sample rows.
        score_landed.connect(tasks.analysis_summary_on_score, dispatch_uid="analysis-summaries")
        score_rescored.connect(tasks.analysis_summary_on_score, dispatch_uid="analysis-summaries-rescored")
        score_updated.connect(services_analysis.analysis_summary_on_verdicts, dispatch_uid="analysis-summaries-updated")
