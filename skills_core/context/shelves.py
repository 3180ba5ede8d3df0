"""Skills' body word counts on shelves, so a word's holders are found without visiting each skill.

Finding which of 10,000 skills hold a word means a lookup in each skill's counts: about 10 ms
when the counts are large, most of it memory latency. Each skill sits on one of
:data:`SHELVES` shelves (by its name's hash), and each shelf keeps the set of words its skills
ever held (words of removed skills stay: they cost a wasted look, never a wrong answer). A
word is then looked up on every shelf and only the skills of the shelves holding it are
visited, so a rare word costs a few hundred lookups. This is the store of the pure-Python
postings (:class:`~skills_core.context.body_words.PythonPostings`), used where the C extension
was not built.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

SHELVES = 32


class BodyShelves:
    """Every indexed skill's body word counts, by shelf."""

    def __init__(self) -> None:
        self._words: list[set[str]] = [set() for _ in range(SHELVES)]
        self._bodies: list[dict[str, Mapping[str, int]]] = [{} for _ in range(SHELVES)]
        self.visited = 0
        """Skills whose counts :meth:`counts` looked into, in all: the cost a shelf saves."""

    def add(self, bodies: Mapping[str, Mapping[str, int]], *, fresh: bool = False) -> set[str]:
        """Shelve skills' counts (``{skill: counts}``); with ``fresh``, return words new to a shelf.

        Skills are shelved shelf by shelf: one shelf's words stay in the CPU's cache while its
        skills' words are added, which halves the time of shelving 10,000 large skills.
        """
        new: set[str] = set()
        for name in sorted(bodies, key=_shelf):
            counts = bodies[name]
            shelf = _shelf(name)
            words = self._words[shelf]
            if fresh:
                new.update(counts.keys() - words)
            words.update(counts)
            self._bodies[shelf][name] = counts
        return new

    def remove(self, name: str) -> None:
        """Take a skill's counts off its shelf."""
        del self._bodies[_shelf(name)][name]

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


def _shelf(name: str) -> int:
    return hash(name) % SHELVES
