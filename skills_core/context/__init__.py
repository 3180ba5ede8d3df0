"""What reaches a model's context: the ``<available_skills>`` prompt block."""
