"""Pure leaderboard code: bootstrap statistics, ranking, plots. Imports no Django."""
