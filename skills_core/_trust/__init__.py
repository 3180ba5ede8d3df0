"""Trust: what a catalog may serve and its skills may do (locks, approvals, signing)."""
