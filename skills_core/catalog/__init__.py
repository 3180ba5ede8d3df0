"""The catalog: an incremental cache of one backend's skills.

``catalog`` holds :class:`SkillCatalog`, which delegates to ``refresher`` (one refresh)
and ``skill_reads`` (reads of a skill's files); ``entries`` judges one SKILL.md into an entry;
``snapshot`` freezes the entries readers see; ``report`` describes what a refresh changed;
``watch`` refreshes on change; ``prompt`` renders the ``<available_skills>`` block;
``verdicts`` files every problem under its skill (``skillfs validate``). Nothing is imported
here, so reading a report type does not load the catalog and its backends.
"""
