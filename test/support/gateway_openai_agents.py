"""The OpenAI Agents SDK runs an agent with one function tool through a Switchyard gateway; prints what it saw as JSON.

Run by test/temporal/gateway-python-agents.test.ts with GATEWAY_BASE_URL and GATEWAY_KEY set. The agent's model is
OpenAIChatCompletionsModel pointed at the gateway's Chat Completions surface (tracing off: it would call OpenAI).
The test scripts the fake provider: a tool call, then the final answer; once with run_sync, once streamed.
"""
import asyncio
import json
import os
import sys

try:
    import agents
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
    from openai import AsyncOpenAI
except ImportError as error:  # the test turns this into a clear failure
    sys.stderr.write(f"the openai-agents package is missing from the venv ({error}): run npm run python:install\n")
    sys.exit(3)

set_tracing_disabled(True)
cities = []


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    cities.append(city)
    return f"18 degrees and sunny in {city}"


def weather_agent():
    """A fresh agent and client per run: an async client's connections belong to the event loop that opened them,
    and run_sync and asyncio.run each run their own loop."""
    client = AsyncOpenAI(base_url=os.environ["GATEWAY_BASE_URL"], api_key=os.environ["GATEWAY_KEY"], max_retries=0)
    return Agent(
        name="weather",
        instructions="Answer weather questions with the get_weather tool.",
        model=OpenAIChatCompletionsModel(model="support", openai_client=client),
        tools=[get_weather],
    )


QUESTION = "What is the weather in Paris?"
seen = {"version": agents.__version__}

result = Runner.run_sync(weather_agent(), QUESTION)
seen["run_sync"] = result.final_output


async def streamed():
    run = Runner.run_streamed(weather_agent(), QUESTION)
    kinds = set()
    async for event in run.stream_events():
        kinds.add(event.type)
    return run.final_output, sorted(kinds)


seen["streamed"], seen["stream_event_types"] = asyncio.run(streamed())
seen["cities"] = cities
json.dump(seen, sys.stdout)
