"""The official anthropic Python client runs tool loops through a Switchyard gateway; prints what it saw as JSON.

Run by test/temporal/gateway-anthropic-tools.test.ts with GATEWAY_URL, GATEWAY_KEY and PAIR_ROUTE set; the test
scripts the fake provider's answers in the order these calls make them. Each loop sends the assistant's content
back exactly as the client returned it, as agents built on this client do.
"""
import json
import os
import sys

try:
    import anthropic
    from anthropic import Anthropic
except ImportError as error:  # the test turns this into a clear failure
    sys.stderr.write(f"the anthropic package is missing from the venv ({error}): run npm run python:install\n")
    sys.exit(3)

client = Anthropic(base_url=os.environ["GATEWAY_URL"], api_key=os.environ["GATEWAY_KEY"], max_retries=0)
TOOLS = [
    {
        "name": "get_weather",
        "description": "The weather in a city",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
]
THINKING = {"type": "enabled", "budget_tokens": 1024}
seen = {"version": anthropic.__version__}


def blocks(message):
    """The content as plain dicts, for the report."""
    return [block.model_dump(exclude_none=True) for block in message.content]


def results_for(message, text):
    """A user turn answering every tool_use of `message` with `text`."""
    return {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": block.id, "content": text}
            for block in message.content
            if block.type == "tool_use"
        ],
    }


def create(**kwargs):
    return client.messages.create(max_tokens=2048, tools=TOOLS, **kwargs)


def stream(**kwargs):
    with client.messages.stream(max_tokens=2048, tools=TOOLS, **kwargs) as events:
        return events.get_final_message()


def loop(call, route, **kwargs):
    """Two turns: the model calls the tool, the client answers, the model answers. Returns both turns' content."""
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = call(model=route, messages=messages, **kwargs)
    messages += [{"role": "assistant", "content": first.content}, results_for(first, "18 degrees and sunny")]
    second = call(model=route, messages=messages, **kwargs)
    return {
        "first": blocks(first),
        "first_stop": first.stop_reason,
        "second": blocks(second),
        "second_stop": second.stop_reason,
    }


seen["json_loop"] = loop(create, "reverse")
seen["stream_loop"] = loop(stream, "reverse")
seen["thinking_loop"] = loop(stream, "reverse", thinking=THINKING)
raw = client.messages.with_raw_response.create(
    model=os.environ["PAIR_ROUTE"],
    max_tokens=2048,
    tools=TOOLS,
    thinking=THINKING,
    messages=[{"role": "user", "content": "What is the weather in Paris?"}],
)
first = raw.parse()
failover = {"first": blocks(first), "first_served_by": raw.headers.get("x-switchyard-served-by")}
raw = client.messages.with_raw_response.create(
    model=os.environ["PAIR_ROUTE"],
    max_tokens=2048,
    tools=TOOLS,
    thinking=THINKING,
    messages=[
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": first.content},
        results_for(first, "18 degrees and sunny"),
    ],
)
failover["second"] = blocks(raw.parse())
failover["second_served_by"] = raw.headers.get("x-switchyard-served-by")
seen["failover_loop"] = failover

json.dump(seen, sys.stdout)
