"""``hooks`` parsed, validated and exposed (never run); the ``shell`` field."""

from __future__ import annotations

from typing import Any

import yaml

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._format.matching import HookAction, HookRule, Hooks, parse_hooks
from skills_core._format.validation import analyze, validate_skill

HOOKS_YAML = """\
hooks:
  PreToolUse:
    - matcher: "Bash|Write"
      hooks:
        - type: command
          command: "${SKILL_DIR}/scripts/check.sh"
          timeout: 5
    - matcher: "mcp__github__*"
      hooks:
        - type: prompt
          prompt: "Check the branch before pushing."
  Stop:
    - hooks:
        - type: permission
          decision: deny
          reason: "finish the checklist first"
"""


def skill_md(frontmatter: str) -> str:
    return f"---\nname: guarded\ndescription: d\n{frontmatter}---\nBody.\n"


async def test_hooks_reach_the_metadata_as_typed_rules() -> None:
    catalog = SkillCatalog(MemoryBackend({"guarded": {"SKILL.md": skill_md(HOOKS_YAML)}}))
    await catalog.refresh()
    assert catalog.warnings == ()
    hooks = catalog.metadata("guarded").hooks
    assert isinstance(hooks, Hooks)
    assert sorted(hooks) == ["PreToolUse", "Stop"]
    assert [rule.matcher for rule in hooks["PreToolUse"]] == ["Bash|Write", "mcp__github__*"]
    check = hooks["PreToolUse"][0].actions[0]
    assert check.type == "command"
    assert check.settings["command"] == "${SKILL_DIR}/scripts/check.sh"
    assert check.settings["timeout"] == 5


def test_actions_for_an_event_follow_the_matchers() -> None:
    hooks, problems = parse_hooks(yaml.safe_load(HOOKS_YAML)["hooks"])
    assert problems == []
    assert [action.type for action in hooks.actions_for("PreToolUse", "Bash")] == ["command"]
    assert [action.type for action in hooks.actions_for("PreToolUse", "Write")] == ["command"]
    assert [a.type for a in hooks.actions_for("PreToolUse", "mcp__github__push")] == ["prompt"]
    assert hooks.actions_for("PreToolUse", "Read") == ()
    assert [action.type for action in hooks.actions_for("Stop")] == ["permission"]
    assert hooks.actions_for("SessionStart") == ()


def test_every_problem_is_reported_and_the_usable_rules_kept() -> None:
    raw: dict[str, Any] = {
        "pre": [],
        "PreToolUse": [
            {"matcher": "Bash"},
            {"matcher": "Read", "hooks": [{"type": "command", "command": "ok.sh"}]},
            {"hooks": [{"type": "shell", "command": "x"}, {"type": "prompt", "prompt": ""}]},
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 3600}]}],
        "SessionStart": "not a list",
        "Notification": [{"hooks": [{"type": "permission", "decision": "maybe"}]}],
    }
    hooks, problems = parse_hooks(raw)
    assert problems == [
        "unknown hook event 'pre'",
        "PreToolUse[0].hooks must be a non-empty list of actions",
        "PreToolUse[2].hooks[0].type must be one of command, prompt, http, mcp_tool, agent, "
        "permission, not 'shell'",
        "PreToolUse[2].hooks[1] (prompt) needs a non-empty string 'prompt'",
        "Stop[0].hooks[0] (command) has timeout 3600; it must be over 0 and at most 300 seconds",
        "SessionStart must be a list of rules",
        "Notification[0].hooks[0] (permission) has decision 'maybe'; it must be allow, deny or ask",
    ]
    assert dict(hooks) == {
        "PreToolUse": (
            HookRule("Read", (HookAction("command", {"type": "command", "command": "ok.sh"}),)),
        )
    }


def test_invalid_hooks_are_an_error_to_validate_and_a_warning_to_a_catalog() -> None:
    frontmatter = {"name": "x", "description": "d", "hooks": {"pre": [{"hooks": []}]}}
    report = validate_skill(frontmatter)
    assert [(issue.code, issue.message) for issue in report.errors] == [
        (codes.INVALID_VALUE, "'hooks' is invalid: unknown hook event 'pre'")
    ]
    metadata, _ = analyze(frontmatter)
    assert metadata is not None
    assert metadata.hooks == {}


def test_hooks_round_trip_through_to_frontmatter() -> None:
    raw = yaml.safe_load(HOOKS_YAML)
    metadata, _ = analyze({"name": "x", "description": "d", **raw})
    assert metadata is not None
    assert metadata.to_frontmatter()["hooks"] == raw["hooks"]
    assert yaml.safe_load(yaml.safe_dump(metadata.to_frontmatter()))["hooks"] == raw["hooks"]


def test_shell_is_exposed_and_checked() -> None:
    metadata, report = analyze({"name": "x", "description": "d", "shell": "powershell"})
    assert report.valid
    assert metadata is not None
    assert metadata.shell == "powershell"
    assert [
        issue.message
        for issue in validate_skill({**dict(metadata.to_frontmatter()), "shell": "zsh"}).errors
    ] == ["'shell' must be 'bash' or 'powershell', not 'zsh'"]
