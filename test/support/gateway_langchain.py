"""LangChain's ChatOpenAI with bind_tools runs a manual tool loop through a Switchyard gateway; prints what it saw as JSON.

Run by test/temporal/gateway-python-agents.test.ts with GATEWAY_BASE_URL and GATEWAY_KEY set. Each loop: invoke, run
the tool on each call (a ToolMessage per call), invoke again; once with invoke, once streamed (chunks added up).
"""
import json
import os
import sys

try:
    import langchain_openai
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
except ImportError as error:  # the test turns this into a clear failure
    sys.stderr.write(f"the langchain-openai package is missing from the venv ({error}): run npm run python:install\n")
    sys.exit(3)

cities = []


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    cities.append(city)
    return f"18 degrees and sunny in {city}"


llm = ChatOpenAI(
    model="support",
    base_url=os.environ["GATEWAY_BASE_URL"],
    api_key=os.environ["GATEWAY_KEY"],
    max_retries=0,
)
bound = llm.bind_tools([get_weather])


def invoke(messages):
    return bound.invoke(messages)


def stream(messages):
    total = None
    for chunk in bound.stream(messages):
        total = chunk if total is None else total + chunk
    return total


def loop(call):
    messages = [HumanMessage("What is the weather in Paris?")]
    first = call(messages)
    messages.append(first)
    for tool_call in first.tool_calls:
        messages.append(get_weather.invoke(tool_call))
    final = call(messages)
    return {
        "tool_calls": [{"name": c["name"], "args": c["args"]} for c in first.tool_calls],
        "final": final.content,
    }


seen = {"version": langchain_openai.__version__ if hasattr(langchain_openai, "__version__") else None}
seen["invoke_loop"] = loop(invoke)
seen["stream_loop"] = loop(stream)
seen["cities"] = cities
json.dump(seen, sys.stdout)
