"""What a sweep reports: figures, the papers' claims beside ours, the attack-minus-random tables."""
