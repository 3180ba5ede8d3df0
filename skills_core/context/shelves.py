"""Skills' body word counts on shelves, so a word's holders are found without visiting each skill.

Finding which of 10,000 skills hold a word means a lookup in each skill's counts: about 10 ms
when the counts are large, most of it memory latency. Each skill sits on one of
:data:`SHELVES` shelves (by its name's hash), and each shelf keeps the set of words its skills
ever held (words of removed skills stay: they cost a wasted look, never a wrong answer). A
word is then looked up on every shelf and only the skills of the shelves holding it are
visited, so a rare word costs a few hundred lookups.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Set

SHELVES = 32


class BodyShelves:
    """Every indexed skill's body word counts, by shelf."""

    def __init__(self) -> None:
        self._words: list[set[str]] = [set() for _ in range(SHELVES)]
        self._bodies: list[dict[str, Mapping[str, int]]] = [{} for _ in range(SHELVES)]
        self.visited = 0
        """Skills whose counts :meth:`counts` looked into, in all: the cost a shelf saves."""

    def add(self, name: str, counts: Mapping[str, int], *, fresh: bool = False) -> Set[str]:
        """Shelve a skill's counts; with ``fresh``, return its words new to its shelf."""
        shelf = hash(name) % SHELVES
        words = self._words[shelf]
        new = counts.keys() - words if fresh else frozenset()
        words.update(counts)
        self._bodies[shelf][name] = counts
        return new

    def remove(self, name: str) -> None:
        """Take a skill's counts off its shelf."""
        del self._bodies[hash(name) % SHELVES][name]

    def held(self, words: Collection[str]) -> set[str]:
        """Those of ``words`` some shelved skill holds (or held), one set operation a shelf."""
        return set().union(*(shelf.intersection(words) for shelf in self._words))

    def counts(self, word: str) -> dict[str, int]:
        """``{skill: count}`` of ``word`` in every shelved skill that holds it."""
        found: dict[str, int] = {}
        for words, bodies in zip(self._words, self._bodies, strict=True):
            if word in words:
                self.visited += len(bodies)
                for name, counts in bodies.items():
                    if word in counts:
                        found[name] = counts[word]
        return found
