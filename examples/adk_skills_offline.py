"""An ADK agent using skills from a bucket, fully offline.

The bucket is a MemoryBackend and the model is scripted, so this runs anywhere with no
credentials. Swap in ``open_backend("s3://my-bucket/skills")`` and a real model name and
nothing else changes. From the repository root: ``python -m examples.adk_skills_offline``
(or run the file directly once skillfs is installed).
"""

from __future__ import annotations

import asyncio

from google.adk.agents import LlmAgent
from google.adk.models import LlmRequest
from google.adk.runners import InMemoryRunner
from google.genai import types

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.adk import SkillsToolset
from skills_core.adk.testing import ScriptedLlm, call, last_response, say
from skills_core.tools import ScriptPolicy

TOTAL_PY = """\
import sys
net = sum(float(amount) for amount in sys.argv[1:])
print(f"{net * 1.2:.2f}")
"""

SKILLS = {
    "invoice": {
        "SKILL.md": (
            "---\nname: invoice\ndescription: Total an invoice, with tax.\n---\n"
            "# Invoice\n\nRead references/tax.md, then run scripts/total.py with the amounts.\n"
        ),
        "references/tax.md": "Tax is 20%, rounded to cents.\n",
        "scripts/total.py": TOTAL_PY,
    }
}


def answer(request: LlmRequest) -> types.Part:
    """The model's last step: quote the script's output."""
    total = last_response(request, "run_skill_script")["stdout"].strip()
    return say(f"The invoice total, with tax, is {total}.")


async def main() -> str:
    """Run one turn and return the agent's answer."""
    catalog = SkillCatalog(MemoryBackend(SKILLS))  # or open_backend("s3://bucket/skills")
    model = ScriptedLlm(
        steps=[
            call("list_skills"),
            call("load_skill", skill_name="invoice"),
            call("load_skill_resource", skill_name="invoice", file_path="references/tax.md"),
            call(
                "run_skill_script",
                skill_name="invoice",
                file_path="scripts/total.py",
                args=["10", "32.50"],
            ),
            answer,
        ]
    )
    skills = SkillsToolset(catalog, scripts=ScriptPolicy(timeout=10))
    agent = LlmAgent(name="assistant", model=model, instruction="Be exact.", tools=[skills])
    runner = InMemoryRunner(agent=agent, app_name="invoices")
    session = await runner.session_service.create_session(app_name="invoices", user_id="me")
    message = types.Content(role="user", parts=[types.Part(text="Total 10 and 32.50, please.")])
    reply = ""
    try:
        async for event in runner.run_async(
            user_id="me", session_id=session.id, new_message=message
        ):
            for function_call in event.get_function_calls():
                print(f"-> {function_call.name}({function_call.args})")
            if event.is_final_response() and event.content and event.content.parts:
                reply = "".join(part.text or "" for part in event.content.parts)
    finally:
        await runner.close()
        await skills.close()
    return reply


if __name__ == "__main__":
    print(asyncio.run(main()))
