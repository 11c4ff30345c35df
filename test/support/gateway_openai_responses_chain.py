"""The official openai Python client chains responses by previous_response_id on a Switchyard gateway; prints JSON.

Run by test/temporal/gateway-responses-chain-python.test.ts with GATEWAY_BASE_URL, GATEWAY_KEY and GATEWAY_ROUTE
set; the test scripts the fake provider's answers in the order these calls make them. Each loop is stateful, as the
Responses docs show it: the first turn sends the question, every later turn only the outputs of the previous turn's
function calls and that turn's id as previous_response_id; the gateway reads the conversation back from the routed
calls it keeps. Every response is then read back with responses.retrieve.
"""
import json
import os
import sys

try:
    import openai
    from openai import OpenAI
except ImportError as error:  # the test turns this into a clear failure
    sys.stderr.write(f"the openai package is missing from the venv ({error}): run npm run python:install\n")
    sys.exit(3)

client = OpenAI(base_url=os.environ["GATEWAY_BASE_URL"], api_key=os.environ["GATEWAY_KEY"], max_retries=0)
ROUTE = os.environ["GATEWAY_ROUTE"]
TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "strict": True,
    }
]
WEATHER = {"Paris": "18 degrees and sunny", "Lyon": "12 degrees and raining", "Nice": "22 degrees and clear"}
OPTIONS = {"model": ROUTE, "tools": TOOLS, "max_output_tokens": 4096, "instructions": "Answer about the weather."}
seen = {"version": openai.__version__}


def get_weather(arguments):
    """The tool: it needs the whole arguments JSON, so a cut or mangled stream fails here."""
    return WEATHER[json.loads(arguments)["city"]]


def create(items, previous):
    """One JSON turn."""
    return client.responses.create(input=items, previous_response_id=previous, **OPTIONS), None


def stream(items, previous):
    """One streamed turn through the SDK's stream helper: the events' types, and the final response."""
    events = []
    with client.responses.stream(input=items, previous_response_id=previous, **OPTIONS) as events_stream:
        for event in events_stream:
            events.append(event.type)
        return events_stream.get_final_response(), events


def without_parsed(value):
    """A dumped response without what the stream helper adds on the client (`parsed_arguments`, `parsed`)."""
    if isinstance(value, dict):
        return {key: without_parsed(inner) for key, inner in value.items() if key not in ("parsed_arguments", "parsed")}
    if isinstance(value, list):
        return [without_parsed(inner) for inner in value]
    return value


def summary_of(response):
    """What a turn answered, in plain JSON."""
    items = []
    for item in response.output:
        if item.type == "function_call":
            items.append({"type": item.type, "call_id": item.call_id, "name": item.name, "arguments": item.arguments})
        elif item.type == "message":
            items.append({"type": item.type, "text": "".join(part.text for part in item.content if part.type == "output_text")})
        else:
            items.append({"type": item.type})
    return {
        "id": response.id,
        "status": response.status,
        "previous_response_id": response.previous_response_id,
        "output": items,
    }


def loop(call):
    """The model calls the tool over several turns; each turn sends only the tool's outputs after the last one."""
    items = [{"role": "user", "content": "What is the weather in Paris, Lyon and Nice?"}]
    previous = None
    turns = []
    for _ in range(5):
        response, events = call(items, previous)
        turn = summary_of(response)
        if events is not None:
            turn["events"] = events
        # Read back: the fields in which the response as the gateway keeps it differs from the one answered.
        retrieved = without_parsed(client.responses.retrieve(response.id).model_dump())
        answered = without_parsed(response.model_dump())
        turn["retrieved_differs_in"] = sorted(key for key in set(retrieved) | set(answered) if retrieved.get(key) != answered.get(key))
        turns.append(turn)
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            break
        previous = response.id
        items = [{"type": "function_call_output", "call_id": tool_call.call_id, "output": get_weather(tool_call.arguments)} for tool_call in calls]
    return turns


seen["create"] = loop(create)
seen["stream"] = loop(stream)
json.dump(seen, sys.stdout)
