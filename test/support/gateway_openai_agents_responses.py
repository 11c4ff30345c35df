"""The OpenAI Agents SDK, with its default model, runs an agent with one function tool through a Switchyard gateway's
Responses surface; prints what it saw as JSON.

Run by test/temporal/gateway-responses-agents.test.ts with GATEWAY_BASE_URL, GATEWAY_KEY and GATEWAY_ROUTE set. The
agent names a model by its string (the route) and nothing else, so the SDK's default provider resolves it to its
default model class, OpenAIResponsesModel, talking to POST /v1/responses (tracing off: it would call OpenAI). The
tool's output carries a reading made up here, per call, so an answer that contains it can only have come after the
tool ran. Modes (the first argument):
  loop   run_sync, then streamed: each a whole input sent every turn, as the SDK does by default;
  chain  one run with auto_previous_response_id (each turn sends only its new items and the previous response's id),
         then a second run continuing the first by its last_response_id.
"""
import asyncio
import json
import os
import secrets
import sys

try:
    import agents
    import httpx
    from agents import Agent, Runner, function_tool, set_default_openai_client, set_tracing_disabled
    from agents.models.openai_provider import OpenAIProvider
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient
except ImportError as error:  # the test turns this into a clear failure
    sys.stderr.write(f"the openai-agents package is missing from the venv ({error}): run npm run python:install\n")
    sys.exit(3)

set_tracing_disabled(True)
ROUTE = os.environ.get("GATEWAY_ROUTE", "support")
calls = []
sent = []


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    reading = f"reading-{secrets.token_hex(4)}"
    calls.append({"city": city, "reading": reading})
    return f"18 degrees and sunny in {city} ({reading})"


async def record_request(request: httpx.Request) -> None:
    """What the SDK sent: the path, whether it named a previous response, and its input items' types."""
    body = json.loads(request.content or b"{}")
    items = body.get("input", [])
    items = [items] if isinstance(items, str) else items
    sent.append(
        {
            "path": f"{request.method} {request.url.path}",
            "previous_response_id": body.get("previous_response_id"),
            "input": ["message" if isinstance(item, str) else item.get("type", "message") for item in items],
        }
    )


def use_fresh_client():
    """A fresh default client per run: an async client's connections belong to the event loop that opened them, and
    run_sync and asyncio.run each run their own loop. Its requests are recorded, to show which surface the default
    model called and what each turn sent."""
    http_client = DefaultAsyncHttpxClient(event_hooks={"request": [record_request]})
    client = AsyncOpenAI(
        base_url=os.environ["GATEWAY_BASE_URL"],
        api_key=os.environ["GATEWAY_KEY"],
        max_retries=0,
        http_client=http_client,
    )
    set_default_openai_client(client, use_for_tracing=False)


def weather_agent():
    return Agent(
        name="weather",
        instructions="Answer weather questions with the get_weather tool.",
        model=ROUTE,
        tools=[get_weather],
    )


def summary(result):
    return {"final": result.final_output, "last_response_id": result.last_response_id}


async def streamed(question):
    run = Runner.run_streamed(weather_agent(), question)
    kinds = set()
    async for event in run.stream_events():
        kinds.add(event.type)
    return {**summary(run), "event_types": sorted(kinds)}


async def chained():
    first = await Runner.run(weather_agent(), "What is the weather in Paris?", auto_previous_response_id=True)
    second = await Runner.run(
        weather_agent(), "And in Lyon?", previous_response_id=first.last_response_id, auto_previous_response_id=True
    )
    return summary(first), summary(second)


use_fresh_client()
seen = {
    "version": agents.__version__,
    # What a model named only by a string becomes under the default provider.
    "model_class": type(OpenAIProvider().get_model(ROUTE)).__name__,
}
mode = sys.argv[1] if len(sys.argv) > 1 else "loop"
if mode == "loop":
    seen["run_sync"] = summary(Runner.run_sync(weather_agent(), "What is the weather in Paris?"))
    use_fresh_client()
    seen["streamed"] = asyncio.run(streamed("What is the weather in Paris?"))
elif mode == "chain":
    seen["first"], seen["second"] = asyncio.run(chained())
else:
    sys.stderr.write(f"unknown mode {mode!r}: loop or chain\n")
    sys.exit(2)
seen["calls"] = calls
seen["sent"] = sent
json.dump(seen, sys.stdout)
