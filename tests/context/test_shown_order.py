"""ShownOrder: new skills go last; a skill shown again returns to its place; removed ones fade."""

from __future__ import annotations

from skills_core import SkillMetadata
from skills_core.context._budget import ShownOrder


def metas(*names: str) -> list[SkillMetadata]:
    return [SkillMetadata(name=name, description=f"{name}.") for name in names]


def names(skills: list[SkillMetadata]) -> list[str]:
    return [meta.name for meta in skills]


def test_new_skills_go_last_and_a_filtered_one_comes_back_in_its_place() -> None:
    order = ShownOrder()
    assert names(order.arrange(metas("b", "d"), {"b", "d"})) == ["b", "d"]
    assert names(order.arrange(metas("a", "b", "d"), {"a", "b", "d"})) == ["b", "d", "a"]
    assert names(order.arrange(metas("a", "d"), {"a", "b", "d"})) == ["d", "a"]  # b filtered
    assert names(order.arrange(metas("a", "b", "c", "d"), "abcd")) == ["b", "d", "a", "c"]


def test_the_ranks_of_removed_skills_are_forgotten_without_changing_the_order() -> None:
    order = ShownOrder()
    for name in "abcdefg":
        order.arrange(metas(name), "abcdefg")
    assert names(order.arrange(metas("g", "c"), {"c", "g"})) == ["c", "g"]
    assert names(order.arrange(metas("z", "g", "c"), {"c", "g", "z"})) == ["c", "g", "z"]
    assert len(order._rank) == 3
