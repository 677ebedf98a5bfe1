"""leaderboard app."""
