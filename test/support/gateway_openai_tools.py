"""The official openai Python client runs tool loops through a Switchyard gateway; prints what it saw as JSON.

Run by test/temporal/gateway-openai-tools.test.ts with GATEWAY_BASE_URL and GATEWAY_KEY set; the test scripts the
fake provider's answers in the order these calls make them. Each loop runs the tool on the arguments the client
received and sends the assistant turn back as agents built on this client do (the message dumped unchanged, its
reasoning_content included, as DeepSeek-style clients keep it).
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
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
WEATHER = {"Paris": "18 degrees and sunny", "Lyon": "12 degrees and raining"}
seen = {"version": openai.__version__}


def get_weather(arguments):
    """The tool: it needs the whole arguments JSON, so a cut or mangled stream fails here."""
    return WEATHER[json.loads(arguments)["city"]]


def create(messages):
    """One JSON call; returns the assistant message as a dict, its finish reason and reasoning."""
    completion = client.chat.completions.create(model="support", messages=messages, tools=TOOLS, max_tokens=256)
    choice = completion.choices[0]
    message = choice.message.model_dump(exclude_none=True)
    # An assistant turn sent back carries none of the answer-only fields.
    message.pop("annotations", None)
    return message, choice.finish_reason


def stream(messages):
    """One streamed call, accumulated the way clients do: content and reasoning joined, tool calls by index."""
    content = ""
    reasoning = ""
    calls = {}
    finish_reason = None
    chunks = 0
    for chunk in client.chat.completions.create(
        model="support",
        messages=messages,
        tools=TOOLS,
        max_tokens=256,
        stream=True,
        stream_options={"include_usage": True},
    ):
        chunks += 1
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        content += delta.content or ""
        reasoning += (delta.model_extra or {}).get("reasoning_content") or ""
        for piece in delta.tool_calls or []:
            call = calls.setdefault(piece.index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
            if piece.id:
                call["id"] = piece.id
            if piece.function and piece.function.name:
                call["function"]["name"] += piece.function.name
            if piece.function and piece.function.arguments:
                call["function"]["arguments"] += piece.function.arguments
        if choice.finish_reason:
            finish_reason = choice.finish_reason
    message = {"role": "assistant", "content": content or None}
    if reasoning:
        message["reasoning_content"] = reasoning
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message, finish_reason


def loop(call):
    """The model calls the tool (maybe several times), the client answers each call, the model answers."""
    messages = [{"role": "user", "content": "What is the weather in Paris and in Lyon?"}]
    first, first_finish = call(messages)
    results = [
        {"role": "tool", "tool_call_id": tool_call["id"], "content": get_weather(tool_call["function"]["arguments"])}
        for tool_call in first.get("tool_calls", [])
    ]
    messages += [first, *results]
    second, second_finish = call(messages)
    return {
        "first": first,
        "first_finish": first_finish,
        "second": second,
        "second_finish": second_finish,
    }


seen["json_loop"] = loop(create)
seen["stream_loop"] = loop(stream)
json.dump(seen, sys.stdout)
