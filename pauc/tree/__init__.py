"""TreeRank and Ranking Forests (papers 000 and 003)."""
