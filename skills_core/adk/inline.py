"""Binary skill files a model reads reach it as inline data, not as base64 text.

When ``load_skill_resource`` returns a file for inline delivery (images, audio, video and PDF:
:mod:`skills_core.tools.content` decides), the function response keeps only the file's
description, and the bytes follow in the next model request as an ``inline_data`` part the
model can actually see. Bytes a caller asked for explicitly stay base64 in the response
(models refuse unknown inline types).
"""

from __future__ import annotations

import base64
from collections import OrderedDict

from google.adk.models.llm_request import LlmRequest
from google.genai import types

from skills_core.tools.content import Delivery
from skills_core.tools.results import ToolResult

_KEPT = 16
"""Most files waiting for the next request; older ones are dropped."""


class InlineFiles:
    """Holds the binary files models read recently, for the requests that answer those reads.

    Files are shared by every session of the toolset and keyed by skill and path: the bytes of
    one file are the same whichever session asked.
    """

    def __init__(self) -> None:
        self._pending: OrderedDict[tuple[str, str], types.Blob] = OrderedDict()

    def take(self, result: ToolResult) -> ToolResult:
        """Keep an inline-able file's bytes; return the response without them."""
        if result.get("delivery") != Delivery.INLINE:
            return result
        data = base64.b64decode(result["content_base64"])
        key = (result["skill_name"], result["file_path"])
        self._pending[key] = types.Blob(data=data, mime_type=result["mime_type"])
        self._pending.move_to_end(key)
        while len(self._pending) > _KEPT:
            self._pending.popitem(last=False)
        kept = {name: value for name, value in result.items() if name != "content_base64"}
        kept["note"] = "The file's content follows as inline data."
        return kept

    def attach(self, llm_request: LlmRequest) -> None:
        """Append the files answered in the request's last content as one user message."""
        if not llm_request.contents:
            return
        parts: list[types.Part] = []
        for part in llm_request.contents[-1].parts or []:
            response = part.function_response.response if part.function_response else None
            if not response or response.get("delivery") != Delivery.INLINE:
                continue
            skill_name, file_path = response.get("skill_name"), response.get("file_path")
            blob = self._pending.get((str(skill_name), str(file_path)))
            if blob is not None:
                parts.append(types.Part(text=f"{file_path} of skill {skill_name}:"))
                parts.append(types.Part(inline_data=blob))
        if parts:
            llm_request.contents.append(types.Content(role="user", parts=parts))
