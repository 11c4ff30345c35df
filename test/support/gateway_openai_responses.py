"""The official openai Python client runs function-tool loops on a Switchyard gateway's Responses surface; prints JSON.

Run by test/temporal/gateway-responses-python.test.ts with GATEWAY_BASE_URL, GATEWAY_KEY and GATEWAY_ROUTE set; the
test scripts the fake provider's answers in the order these calls make them. Each loop is stateless, as the
Responses docs show it: every turn sends the whole input so far, the previous turn's output items appended as the
client returned them (`input += response.output`), then each function call's output; store is off and the
reasoning's encrypted content is included, so reasoning goes back too.
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
OPTIONS = {
    "model": ROUTE,
    "tools": TOOLS,
    "max_output_tokens": 4096,
    "store": False,
    "include": ["reasoning.encrypted_content"],
    "reasoning": {"effort": "low"},
}
seen = {"version": openai.__version__}


def get_weather(arguments):
    """The tool: it needs the whole arguments JSON, so a cut or mangled stream fails here."""
    return WEATHER[json.loads(arguments)["city"]]


def create(items):
    """One JSON turn."""
    return client.responses.create(input=items, **OPTIONS), None


def stream(items):
    """One streamed turn through the SDK's stream helper: the events' types and numbers, and the final response."""
    events = []
    with client.responses.stream(input=items, **OPTIONS) as events_stream:
        for event in events_stream:
            events.append({"type": event.type, "sequence_number": event.sequence_number})
        return events_stream.get_final_response(), events


def summary_of(response):
    """What a turn answered, in plain JSON."""
    items = []
    for item in response.output:
        if item.type == "function_call":
            items.append({"type": item.type, "id": item.id, "call_id": item.call_id, "name": item.name, "arguments": item.arguments})
        elif item.type == "message":
            items.append({"type": item.type, "id": item.id, "text": "".join(part.text for part in item.content if part.type == "output_text")})
        elif item.type == "reasoning":
            encrypted = item.encrypted_content or ""
            items.append({
                "type": item.type,
                "id": item.id,
                "summary": "\n\n".join(part.text for part in item.summary),
                "encrypted": encrypted.split(":")[1] if encrypted.startswith("switchyard:") else ("opaque" if encrypted else None),
            })
        else:
            items.append({"type": item.type})
    return {"id": response.id, "status": response.status, "output": items, "usage": response.usage.model_dump()}


def loop(call):
    """The model calls the tool over several turns; the client answers each call and sends everything back."""
    items = [{"role": "user", "content": "What is the weather in Paris, Lyon and Nice?"}]
    turns = []
    for _ in range(5):
        response, events = call(items)
        turn = summary_of(response)
        if events is not None:
            turn["events"] = events
        turns.append(turn)
        calls = [item for item in response.output if item.type == "function_call"]
        items += response.output
        if not calls:
            break
        items += [{"type": "function_call_output", "call_id": tool_call.call_id, "output": get_weather(tool_call.arguments)} for tool_call in calls]
    return turns


seen["create"] = loop(create)
seen["stream"] = loop(stream)
json.dump(seen, sys.stdout)
