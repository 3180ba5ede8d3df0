"""The catalog: an incremental cache of one backend's skills.

``catalog`` holds :class:`SkillCatalog` and its reads; ``loading`` runs one refresh, and
refreshes on change (the watch); ``entries`` judges one SKILL.md (or a listing's frontmatter)
into an entry; ``snapshot`` freezes the entries readers see and reports what a refresh changed;
``cache`` keeps entries across processes. What a catalog trusts is :mod:`skills_core._trust`'s.
Nothing is imported here, so reading a report type does not load the catalog and its backends.
"""
