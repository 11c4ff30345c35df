"""The official openai Python client against a Switchyard gateway: prints what it saw as one JSON object.

Run by test/temporal/gateway-python.test.ts with GATEWAY_BASE_URL and GATEWAY_KEY set.
"""
import json
import os
import sys

import openai
from openai import OpenAI

client = OpenAI(base_url=os.environ["GATEWAY_BASE_URL"], api_key=os.environ["GATEWAY_KEY"], max_retries=0)
hello = [{"role": "user", "content": "Say hello"}]
seen = {"version": openai.__version__}

raw = client.chat.completions.with_raw_response.create(model="support", messages=hello, max_tokens=32)
completion = raw.parse()
seen["answer"] = completion.choices[0].message.content
seen["served_by"] = raw.headers.get("x-switchyard-served-by")

text = ""
usage = None
for chunk in client.chat.completions.create(
    model="support", messages=hello, stream=True, stream_options={"include_usage": True}
):
    if chunk.choices:
        text += chunk.choices[0].delta.content or ""
    if chunk.usage:
        usage = chunk.usage.total_tokens
seen["streamed"] = text
seen["stream_usage"] = usage

try:
    client.chat.completions.create(model="no-such-route", messages=hello)
except openai.NotFoundError as error:
    seen["unknown_route"] = {"status": error.status_code, "code": error.code}

streamed_before_error = ""
try:
    for chunk in client.chat.completions.create(
        model="support", messages=[{"role": "user", "content": "alpha beta gamma delta epsilon zeta"}], stream=True
    ):
        if chunk.choices:
            streamed_before_error += chunk.choices[0].delta.content or ""
except openai.APIError as error:
    seen["mid_stream_error"] = {"code": error.code, "text": streamed_before_error}

json.dump(seen, sys.stdout)
