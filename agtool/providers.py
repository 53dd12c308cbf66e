"""agtool.providers: a real model's tool calls in, through the door, the replies out.

    calls = openai_tool_calls(completion)          # or responses_tool_calls, anthropic_tool_calls
    envelopes = call_through_door(calls)           # {"ok", "value", "error"} each, in order
    messages = openai_tool_messages(calls, envelopes)  # role "tool" messages to send back

Three APIs, one shape: each call is a ToolCall(id, name, args, error).

    OpenAI chat completions   choices[0].message.tool_calls[]: id, function.name,
                              function.arguments (a JSON *string*); replies are
                              {"role": "tool", "tool_call_id", "content"} messages
    OpenAI Responses          output[] items of type "function_call": call_id, name,
                              arguments (a string); replies are
                              {"type": "function_call_output", "call_id", "output"} items
    Anthropic messages        content[] blocks of type "tool_use": id, name, input (an
                              object); the reply is one user message of
                              {"type": "tool_result", "tool_use_id", "content", "is_error"} blocks

Each function takes the SDK's own object (openai.OpenAI().chat.completions.create(...),
anthropic.Anthropic().messages.create(...)) or the same response as a JSON dict.

Reasons added here, in the door's grammar <stage>:<check>:<field>:

    args:json:arguments   the arguments string is not one JSON object's text (cut off,
                          NaN, a key given twice): the door never sees the call, and no
                          body runs. (Valid JSON that is not an object, such as "[1]",
                          goes to the door, which says args:shape:args.)
    result:json:result    the door said ok, but JSON cannot carry the value (NaN, a set)

OpenAI strict mode has no optional properties: schema.to_openai sends an optional
arg as nullable, and the model sends null for "left out". The OpenAI readers drop
those nulls with schema.drop_nulls, using the tool's args contract, for the tools
that went strict; a null anywhere else stays, for the door to report.

ModelPicker puts a real model in run()'s pick seat, for anyone with a key.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agtool import schema, student

BROKEN_ARGUMENTS = "args:json:arguments"
NOT_JSON = "result:json:result"


@dataclass(frozen=True)
class ToolCall:
    """One call a model asked for: its id (to answer it by), the tool, the args read, or why they could not be."""

    id: str
    name: str
    args: Any = None  # what the model sent, parsed; nulls strict mode forced are dropped
    error: str | None = None  # BROKEN_ARGUMENTS when the arguments string could not be read
    sent: Any = None  # the arguments as the model sent them (a string from OpenAI), for the log


# ── Reading the calls a response asks for ────────────────────────────────────


def openai_tool_calls(completion: Any, table: dict | None = None) -> list[ToolCall]:
    """The function calls of a chat completion's first choice (a completion with none gives [])."""
    choices = _plain(completion).get("choices") or [{}]
    message = choices[0].get("message") or {}
    return [
        _openai_call(call["id"], call["function"]["name"], call["function"].get("arguments"), table)
        for call in message.get("tool_calls") or []
        if call.get("type", "function") == "function"
    ]


def responses_tool_calls(response: Any, table: dict | None = None) -> list[ToolCall]:
    """The function calls in a Responses API output, answered by their call_id (not their item id)."""
    return [
        _openai_call(item["call_id"], item["name"], item.get("arguments"), table)
        for item in _plain(response).get("output") or []
        if item.get("type") == "function_call"
    ]


def anthropic_tool_calls(message: Any, table: dict | None = None) -> list[ToolCall]:
    """The tool_use blocks of a Claude message. Their input is an object already; a string is read as JSON."""
    calls = []
    for block in _plain(message).get("content") or []:
        if block.get("type") == "tool_use":
            sent = block.get("input")
            args, error = parse_arguments(sent) if isinstance(sent, str) else (sent, None)
            calls.append(ToolCall(block["id"], block["name"], args, error, sent))
    return calls


def _openai_call(call_id: str, name: str, arguments: Any, table: dict | None) -> ToolCall:
    args, error = parse_arguments(arguments)
    table = student.module().TOOLS if table is None else table
    entry = table.get(name)
    if error is None and entry is not None and schema.strict_blocker(entry["args"]) is None:
        args = schema.drop_nulls(entry["args"], args)  # only a strict tool was sent with nullable optionals
    return ToolCall(call_id, name, args, error, arguments)


def parse_arguments(arguments: Any) -> tuple[Any, str | None]:
    """A model's arguments string -> (args, None), or (None, BROKEN_ARGUMENTS) when it is not JSON.

    Stricter than json.loads: NaN and Infinity are not JSON, and a key given
    twice is ambiguous (json.loads would keep the last one silently). A string
    of only whitespace is no arguments, as some OpenAI-compatible servers send
    for a tool without parameters.
    """
    if not isinstance(arguments, str):
        return None, BROKEN_ARGUMENTS
    if not arguments.strip():
        return {}, None
    try:
        return json.loads(arguments, parse_constant=_refuse, object_pairs_hook=_unique_keys), None
    except ValueError:  # json.JSONDecodeError is one
        return None, BROKEN_ARGUMENTS


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key is given twice")
    return dict(pairs)


def _plain(response: Any) -> dict:
    """An SDK response object as the JSON dict it was parsed from (dicts pass through)."""
    return response.to_dict() if hasattr(response, "to_dict") else response


# ── The door ─────────────────────────────────────────────────────────────────


def call_through_door(calls: list[ToolCall], door: Callable[[str, Any], dict] | None = None) -> list[dict]:
    """Each call's envelope from the door (tools.call_tool, or a module's own); a broken one never reaches it."""
    tools = student.module()
    door = door or tools.call_tool
    return [sendable(tools.failure(call.error) if call.error else door(call.name, call.args)) for call in calls]


def sendable(envelope: dict) -> dict:
    """The envelope, or result:json:result when JSON cannot carry its value (a model is sent JSON)."""
    try:
        json.dumps(envelope, allow_nan=False)
    except (TypeError, ValueError):
        return student.module().failure(NOT_JSON)
    return envelope


# ── The replies ──────────────────────────────────────────────────────────────
# OpenAI's tool messages have no error flag, so their content is the whole envelope
# ({"ok": false, ..., "error": "args:range:limit"}): the model reads the reason.
# Anthropic's tool_result has is_error, so its content is the value, or the reason.


def openai_tool_messages(calls: list[ToolCall], envelopes: list[dict]) -> list[dict]:
    """One role "tool" message per call, by tool_call_id, to append after the assistant's message."""
    return [
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps(envelope)}
        for call, envelope in _paired(calls, envelopes)
    ]


def responses_tool_outputs(calls: list[ToolCall], envelopes: list[dict]) -> list[dict]:
    """One function_call_output item per call, by call_id, for the next responses.create input."""
    return [
        {"type": "function_call_output", "call_id": call.id, "output": json.dumps(envelope)}
        for call, envelope in _paired(calls, envelopes)
    ]


def anthropic_tool_results(calls: list[ToolCall], envelopes: list[dict]) -> dict:
    """The user message that answers every tool_use block of Claude's turn (all in one, as Claude requires)."""
    return {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": call.id,
                "is_error": not envelope["ok"],
                "content": json.dumps(envelope["value"]) if envelope["ok"] else envelope["error"],
            }
            for call, envelope in _paired(calls, envelopes)
        ],
    }


def _paired(calls: list[ToolCall], envelopes: list[dict]) -> zip:
    if len(calls) != len(envelopes):
        raise ValueError(f"{len(calls)} calls but {len(envelopes)} envelopes: pass call_through_door(calls)")
    return zip(calls, envelopes, strict=True)


# ── One API, its three parts ─────────────────────────────────────────────────


@dataclass(frozen=True)
class Api:
    """How one provider API sends tools, asks a model, reads its calls and is answered."""

    describe: Callable[[dict], list[dict]]
    ask: Callable[[Any, str, str, list[dict], str | None], Any]  # (client, model, prompt, tools, system)
    read: Callable[[Any, dict | None], list[ToolCall]]
    reply: Callable[[list[ToolCall], list[dict]], Any]


def _ask_chat(client, model, prompt, described, system):
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
    return client.chat.completions.create(model=model, messages=messages, tools=described, tool_choice="required")


def _ask_responses(client, model, prompt, described, system):
    return client.responses.create(
        model=model,
        input=prompt,
        tools=described,
        tool_choice="required",
        **({"instructions": system} if system else {}),
    )


def _ask_messages(client, model, prompt, described, system):
    return client.messages.create(
        model=model,
        max_tokens=1024,
        messages=[{"role": "user", "content": prompt}],
        tools=described,
        tool_choice={"type": "any"},
        **({"system": system} if system else {}),
    )


APIS = {
    "chat": Api(schema.to_openai, _ask_chat, openai_tool_calls, openai_tool_messages),
    "responses": Api(schema.to_openai_responses, _ask_responses, responses_tool_calls, responses_tool_outputs),
    "messages": Api(schema.to_anthropic, _ask_messages, anthropic_tool_calls, anthropic_tool_results),
}


def api_of(client: Any) -> str:
    """ "messages" for an Anthropic client, "chat" for an OpenAI one (pass api="responses" for that API)."""
    return "messages" if type(client).__module__.startswith("anthropic") else "chat"


class ModelPicker:
    """A picker for tools.run() that asks a real model which tool to call, and with what.

        picker = ModelPicker(openai.OpenAI(), model="gpt-4.1-mini")      # reads OPENAI_API_KEY
        picker = ModelPicker(anthropic.Anthropic(), model="claude-sonnet-4-5")
        tools.run("How many A-100 kettles are left near Seoul?", picker=picker)

    A request is a question (a str), {"prompt": str}, or the lab's {"tool", "args"},
    which is put to the model as JSON to carry out. The model is sent the
    contract (tools.TOOLS when it is asked, or table) and must call a tool. run()
    calls one tool per request, so the first call is picked; every call of the
    last answer is kept in `last`. When the model calls none, or the API call
    fails, the pick is (None, {}) (the door says tool:unknown:None) and the
    failure is kept in `errors`. Broken arguments are passed on as the string the
    model sent, which the door refuses as args:shape:args; `last` holds the
    call with its args:json:arguments.
    """

    def __init__(
        self, client: Any, model: str, api: str | None = None, table: dict | None = None, system: str | None = None
    ):
        api = api or api_of(client)
        if api not in APIS:
            raise ValueError(f"api is {api!r}; use one of {', '.join(APIS)}")
        self.client, self.model, self.api, self.table, self.system = client, model, api, table, system
        self.last: list[ToolCall] = []
        self.errors: list[str] = []

    def __call__(self, request: Any) -> tuple:
        api, table = APIS[self.api], student.module().TOOLS if self.table is None else self.table
        try:
            response = api.ask(self.client, self.model, prompt_of(request), api.describe(table), self.system)
        except Exception as error:  # the network, a key, a rate limit: run() must not raise for them
            self.errors.append(f"{type(error).__name__}: {error}")
            return None, {}
        self.last = api.read(response, table)
        if not self.last:
            self.errors.append("the model called no tool")
            return None, {}
        first = self.last[0]
        return first.name, first.args if first.error is None else first.sent

    def __repr__(self) -> str:
        return f"ModelPicker(model={self.model!r}, api={self.api!r})"


def prompt_of(request: Any) -> str:
    """What the model is asked for a request: a question as it is, a lab request as JSON to carry out."""
    if isinstance(request, str):
        return request
    if isinstance(request, dict) and isinstance(request.get("prompt"), str):
        return request["prompt"]
    return "Make this tool call: " + json.dumps(request, default=repr)
