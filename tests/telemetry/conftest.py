"""An OpenTelemetry SDK provider with an in-memory exporter, installed once per session.

OpenTelemetry allows one global provider per process; every test here clears the exporter
and looks only at the spans it caused.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="session")
def _provider() -> InMemorySpanExporter:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    trace.set_tracer_provider(provider)
    return _EXPORTER


@pytest.fixture
def spans(_provider: InMemorySpanExporter) -> Iterator[InMemorySpanExporter]:
    """The exporter, empty at the start of the test."""
    _provider.clear()
    yield _provider
    _provider.clear()
