"""Writing evidence: `sdeval claim` computes a claim from the runs' counts (claims)."""
