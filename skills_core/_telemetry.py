"""Optional OpenTelemetry spans, one per skill tool call and catalog refresh (docs/telemetry.md).

skillfs never imports OpenTelemetry: without it in ``sys.modules`` every function here does
nothing. Tool spans carry google-adk's skill span attributes (``gen_ai.skill.name``, ...).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.trace import Span

TRACER = "skillfs"
SKILL_NAME = "gen_ai.skill.name"
SKILL_DESCRIPTION = "gen_ai.skill.description"
SKILL_SOURCE_URI = "gen_ai.skill.source.uri"
SKILL_RESOURCE_NAME = "gen_ai.skill.resource.name"
TOOL_NAME = "gen_ai.tool.name"
EXIT_CODE = "process.exit_code"
ERROR_TYPE = "error.type"
SOURCE = "skillfs.source"


@contextmanager
def span(name: str, attributes: Mapping[str, Any]) -> Iterator[Span | None]:
    """A current span named ``name``, or ``None`` when OpenTelemetry is not in use."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        yield None
        return
    with trace.get_tracer(TRACER).start_as_current_span(name, attributes=attributes) as current:
        yield current


def mark_error(current: Span, error_type: str, message: str) -> None:
    """Flag ``current`` as failed, the way google-adk flags a failed tool call."""
    trace = sys.modules["opentelemetry.trace"]
    current.set_status(trace.Status(trace.StatusCode.ERROR, message))
    current.set_attribute(ERROR_TYPE, error_type)
