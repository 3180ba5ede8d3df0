"""The order a model was first shown skills in, so text listing them only grows at its end.

Provider prompt caches (Anthropic, OpenAI, Gemini) reuse the longest unchanged prefix of a
request. A catalog listed in name order inserts a new skill in the middle and invalidates
everything after it; listed in the order skills were first shown (name order at first, then
each new skill last), the earlier text stays a prefix and only the new skills are new.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from skills_core.format.models import SkillMetadata


class ShownOrder:
    """Ranks skill names by when they were first shown; shared by every reader of one catalog.

    Names not shown at the moment (filtered out, removed) keep their rank, so a filter that
    shows a skill again puts it back where it was. The ranks of names no longer in the catalog
    are forgotten once they outnumber those present, which changes no text.
    """

    def __init__(self) -> None:
        self._rank: dict[str, int] = {}
        self._next = 0

    def arrange(
        self, skills: Sequence[SkillMetadata], present: Collection[str]
    ) -> list[SkillMetadata]:
        """``skills`` in shown order; those never shown before go last, in their given order.

        Args:
            skills: The skills to show now.
            present: Every name in the catalog now, to forget the ranks of removed skills.
        """
        rank = self._rank
        for meta in skills:
            if meta.name not in rank:
                rank[meta.name] = self._next
                self._next += 1
        if len(rank) > 2 * len(present):
            self._rank = rank = {name: r for name, r in rank.items() if name in present}
        return sorted(skills, key=lambda meta: rank[meta.name])
