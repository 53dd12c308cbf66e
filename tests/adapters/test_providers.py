"""agtool.providers: real openai and anthropic clients, recorded responses, the door in between.

The official SDKs run as they do against the real APIs, with an httpx2.MockTransport (the HTTP client both SDKs use)
in place of the network: it answers each request with the next body in
tests/adapters/recordings/ and keeps what the client sent, so both directions are checked
as the SDK parses and serializes them. Tool bodies are spies that count their runs.

The SDKs type their parameters as TypedDicts; agtool.schema and agtool.providers build plain
JSON dicts, which is all the SDKs take at run time. Where one of ours goes into an SDK's call,
mypy cannot see that the dict has the TypedDict's keys: the recorded request, compared here,
is the proof instead (hence the `type: ignore[arg-type]`s, "our JSON dict").
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
import pytest

from agtool import providers, schema, tools
from agtool.providers import ToolCall

if TYPE_CHECKING:  # imported where a client is made: the SDKs take 5 s of CPU to import, and every
    import anthropic  # pytest-xdist worker collects this file, but one runs it (see conftest.py)
    import openai
    from anthropic.types import MessageParam
    from openai.types.chat import ChatCompletionMessageParam

RECORDINGS = Path(__file__).parent / "recordings"
QUESTION = "How many A-100 kettles are left near Seoul, how long to Jeju, and when is the next restock?"
RESTOCK = {
    "description": "The next restock date of a SKU, at one warehouse or any.",
    "args": {"sku": {"type": "str"}, "warehouse": {"type": "str", "required": False}},
    "returns": {"date": {"type": "str"}},
}


class Recorded:
    """An httpx transport handler: each request gets the next recorded body; what was sent is kept."""

    def __init__(self, *names: str, status: int = 200):
        self.bodies = [json.loads((RECORDINGS / f"{name}.json").read_text()) for name in names]
        self.status = status
        self.sent: list[tuple[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append((request.url.path, json.loads(request.content)))
        return httpx2.Response(self.status, json=self.bodies.pop(0), headers={"x-request-id": "req_recorded"})


def openai_client(recorded: Recorded) -> "openai.OpenAI":
    import openai

    return openai.OpenAI(
        api_key="sk-test-not-a-key", max_retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(recorded))
    )


def anthropic_client(recorded: Recorded) -> "anthropic.Anthropic":
    import anthropic

    return anthropic.Anthropic(
        api_key="sk-ant-test-not-a-key",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(recorded)),
    )


@pytest.fixture
def bodies(table, spy):
    """The lab's tools with counting bodies, and restock_date (an optional arg): tool name -> its spy."""
    spies = {name: spy(wraps=entry["fn"]) for name, entry in table.items()}
    for name, body in spies.items():
        table[name] = {**table[name], "fn": body}
    spies["restock_date"] = spy(value={"date": "2025-06-09"})
    table["restock_date"] = {**RESTOCK, "fn": spies["restock_date"]}
    tools.check_table(table)
    return spies


def seen(calls):
    return [(call.id, call.name, call.args, call.error) for call in calls]


def chat_completion(*calls: tuple[str, str, str]) -> dict:
    """An OpenAI chat completion whose message asks for these (id, tool name, arguments) calls."""
    return {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                        for call_id, name, arguments in calls
                    ]
                }
            }
        ]
    }


# ── OpenAI chat completions ──────────────────────────────────────────────────


def test_openai_chat_several_calls_through_the_door_and_back(bodies):
    """Three parallel calls: read, the strict null dropped, each through the door, answered by tool_call_id."""
    recorded = Recorded("openai_chat_three_calls", "openai_chat_final_answer")
    client = openai_client(recorded)
    question: list[ChatCompletionMessageParam] = [{"role": "user", "content": QUESTION}]
    described = schema.to_openai(tools.TOOLS)
    completion = client.chat.completions.create(
        model="gpt-4.1-mini",
        messages=question,
        tools=described,  # type: ignore[arg-type]  # our JSON dict
    )
    assert recorded.sent[0] == (
        "/v1/chat/completions",
        {"model": "gpt-4.1-mini", "messages": question, "tools": described},
    )

    calls = providers.openai_tool_calls(completion)
    assert seen(calls) == [
        ("call_Z8aq3LdPj1EoYrq3hCmVo2TS", "stock_lookup", {"sku": "A-100", "region": "seoul", "limit": 2}, None),
        ("call_Kd9pWq0vXe7mN2bR4tYu6iOp", "delivery_eta", {"sku": "A-100", "region": "jeju"}, None),
        ("call_f3GhJ8kLmN1bV5cX7zQ2wE4r", "restock_date", {"sku": "A-100"}, None),
    ]  # "warehouse": null dropped
    assert calls[2].sent == '{"sku":"A-100","warehouse":null}'

    envelopes = providers.call_through_door(calls)
    assert [envelope["error"] for envelope in envelopes] == [None, "result:range:days", None]
    assert bodies["restock_date"].calls == [{"sku": "A-100"}]  # the body never saw the null

    replies = providers.openai_tool_messages(calls, envelopes)
    final = client.chat.completions.create(
        model="gpt-4.1-mini",
        tools=described,  # type: ignore[arg-type]  # our JSON dict
        messages=[*question, completion.choices[0].message.to_dict(), *replies],  # type: ignore[list-item]  # our JSON dicts
    )
    _, sent = recorded.sent[1]
    assistant, *answers = sent["messages"][1:]
    assert [call["id"] for call in assistant["tool_calls"]] == [call.id for call in calls]
    assert [(a["role"], a["tool_call_id"]) for a in answers] == [("tool", call.id) for call in calls]
    assert [json.loads(a["content"]) for a in answers] == envelopes  # the model reads ok, value and the reason
    answer = final.choices[0].message.content
    assert answer is not None and answer.startswith("Seoul-1 has 5")


def test_openai_arguments_cut_off_get_their_own_reason_and_never_reach_a_body(bodies):
    """finish_reason "length" cut the second call's JSON: args:json:arguments; the first call still runs."""
    client = openai_client(Recorded("openai_chat_malformed_arguments"))
    completion = client.chat.completions.create(
        model="gpt-4.1-mini",
        messages=[{"role": "user", "content": QUESTION}],
        tools=schema.to_openai(tools.TOOLS),  # type: ignore[arg-type]  # our JSON dict
    )
    assert completion.choices[0].finish_reason == "length"
    first, broken = providers.openai_tool_calls(completion)
    assert (broken.name, broken.args, broken.error) == ("stock_lookup", None, "args:json:arguments")
    assert broken.sent == '{"sku":"A-100","region":"seo'
    envelopes = providers.call_through_door([first, broken])
    assert envelopes[0]["ok"] and envelopes[1] == tools.failure("args:json:arguments")
    assert bodies["stock_lookup"].calls == [] and bodies["delivery_eta"].runs == 1
    reply = providers.openai_tool_messages([first, broken], envelopes)[1]
    assert reply["tool_call_id"] == broken.id and json.loads(reply["content"])["error"] == "args:json:arguments"


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ('{"sku": "A-100", "limit": 2', (None, "args:json:arguments")),  # cut off
        ("{'sku': 'A-100'}", (None, "args:json:arguments")),  # Python, not JSON
        ('{"limit": NaN}', (None, "args:json:arguments")),  # json.loads would take it
        ('{"limit": 1, "limit": 5}', (None, "args:json:arguments")),  # json.loads would keep 5
        (None, (None, "args:json:arguments")),  # not a string at all
        ('{"sku": "A-100"}', ({"sku": "A-100"}, None)),
        ("  ", ({}, None)),  # no parameters, as some servers say
        ("[1, 2]", ([1, 2], None)),  # JSON: the door's to refuse
    ],
)
def test_parse_arguments(arguments, expected):
    assert providers.parse_arguments(arguments) == expected


def test_valid_json_that_is_not_an_object_is_the_doors_to_refuse():
    """ "[1, 2]" parses; the door says args:shape:args, as for any args that are not a dict."""
    completion = chat_completion(("call_1", "stock_lookup", "[1, 2]"))
    assert providers.call_through_door(providers.openai_tool_calls(completion)) == [tools.failure("args:shape:args")]


def test_only_a_strict_tool_has_its_nulls_dropped():
    """A tool strict mode cannot say (a free-form dict) went with strict: false and no nullable args: a null stays."""
    table = {
        "search": {
            "fn": dict,
            "description": "Search.",
            "returns": {},
            "args": {"q": {"type": "str"}, "filters": {"type": "dict"}, "limit": {"type": "int", "required": False}},
        },
        "restock_date": {**RESTOCK, "fn": dict},
    }
    assert [d["function"]["strict"] for d in schema.to_openai(table)] == [False, True]
    completion = chat_completion(
        ("call_search", "search", '{"q": "kettle", "filters": {}, "limit": null}'),
        ("call_restock_date", "restock_date", '{"sku": "A-100", "warehouse": null}'),
        ("call_restock_date", "restock_date", '{"sku": null, "warehouse": null}'),
    )
    calls = providers.openai_tool_calls(completion, table)
    assert [call.args for call in calls] == [
        {"q": "kettle", "filters": {}, "limit": None},  # kept: the door's
        {"sku": "A-100"},
        {"sku": None},
    ]  # a required arg's null stays: the door says type:sku


def test_a_tool_the_table_does_not_have_is_the_doors_to_name():
    completion = chat_completion(("call_1", "stock_search", '{"q": null}'))
    (call,) = providers.openai_tool_calls(completion)
    assert call.args == {"q": None}
    assert providers.call_through_door([call]) == [tools.failure("tool:unknown:stock_search")]


def test_a_completion_without_tool_calls_asks_for_none():
    completion = json.loads((RECORDINGS / "openai_chat_final_answer.json").read_text())
    assert providers.openai_tool_calls(completion) == []


# ── OpenAI Responses ─────────────────────────────────────────────────────────


def test_openai_responses_calls_are_answered_by_call_id(bodies):
    """function_call items: the call_id (not the item id) answers them; 5 rows is refused before the body."""
    recorded = Recorded("openai_responses_two_calls", "openai_responses_final_answer")
    client = openai_client(recorded)
    described = schema.to_openai_responses(tools.TOOLS)
    assert described[0] == {"type": "function", **schema.to_openai(tools.TOOLS)[0]["function"]}
    response = client.responses.create(model="gpt-4.1", input=QUESTION, tools=described)  # type: ignore[arg-type]  # our JSON dict
    assert recorded.sent[0][0] == "/v1/responses" and recorded.sent[0][1]["tools"] == described

    calls = providers.responses_tool_calls(response)
    assert seen(calls) == [
        ("call_Rt5yU7iO9pA1sD3fG5hJ7kL9", "stock_lookup", {"sku": "A-100", "region": "busan", "limit": 5}, None),
        ("call_Mn2bV4cX6zQ8wE0rT2yU4iO6", "delivery_eta", {"sku": "A-100", "region": "busan"}, None),
    ]
    envelopes = providers.call_through_door(calls)
    assert [envelope["error"] for envelope in envelopes] == ["args:range:limit", None]
    assert bodies["stock_lookup"].calls == []

    outputs = providers.responses_tool_outputs(calls, envelopes)
    final = client.responses.create(
        model="gpt-4.1",
        previous_response_id=response.id,
        input=outputs,  # type: ignore[arg-type]  # our JSON dict
    )
    _, sent = recorded.sent[1]
    assert sent["previous_response_id"] == response.id
    assert [(item["type"], item["call_id"]) for item in sent["input"]] == [
        ("function_call_output", call.id) for call in calls
    ]
    assert [json.loads(item["output"]) for item in sent["input"]] == envelopes
    assert "2 days" in final.output_text


# ── Anthropic messages ───────────────────────────────────────────────────────


def test_anthropic_tool_uses_through_the_door_and_back_as_tool_results(bodies):
    """Three tool_use blocks: input is an object; "2" for 2 and an unasked-for null are the door's to refuse."""
    recorded = Recorded("anthropic_three_tool_uses", "anthropic_final_answer")
    client = anthropic_client(recorded)
    question: list[MessageParam] = [{"role": "user", "content": QUESTION}]
    described = schema.to_anthropic(tools.TOOLS)
    message = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        messages=question,
        tools=described,  # type: ignore[arg-type]  # our JSON dict
    )
    assert recorded.sent[0][0] == "/v1/messages" and recorded.sent[0][1]["tools"] == described

    calls = providers.anthropic_tool_calls(message)
    assert seen(calls) == [
        ("toolu_01A09q90qw90lq917835lq9", "stock_lookup", {"sku": "A-100", "region": "busan", "limit": 2}, None),
        ("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "stock_lookup", {"sku": "A-100", "region": "busan", "limit": "2"}, None),
        ("toolu_01D7FLrfh4GYq7yT1ULFeyMV", "restock_date", {"sku": "A-100", "warehouse": None}, None),
    ]
    envelopes = providers.call_through_door(calls)
    assert [envelope["error"] for envelope in envelopes] == [None, "args:type:limit", "args:type:warehouse"]
    assert bodies["stock_lookup"].runs == 1 and bodies["restock_date"].calls == []

    reply = providers.anthropic_tool_results(calls, envelopes)
    assert reply == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": calls[0].id,
                "is_error": False,
                "content": json.dumps(envelopes[0]["value"]),
            },
            {"type": "tool_result", "tool_use_id": calls[1].id, "is_error": True, "content": "args:type:limit"},
            {"type": "tool_result", "tool_use_id": calls[2].id, "is_error": True, "content": "args:type:warehouse"},
        ],
    }
    asked = {"role": "assistant", "content": [block.to_dict() for block in message.content]}
    final = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        tools=described,  # type: ignore[arg-type]  # our JSON dict
        messages=[*question, asked, reply],  # type: ignore[list-item]  # our JSON dicts
    )
    _, sent = recorded.sent[1]
    assert sent["messages"][-1] == reply
    assert [block.get("id") for block in sent["messages"][1]["content"]][1:] == [call.id for call in calls]
    first = final.content[0]
    from anthropic.types import TextBlock

    assert isinstance(first, TextBlock) and first.text.startswith("Busan-1 has 3")


def test_an_anthropic_input_sent_as_a_string_is_read_as_json():
    message = {
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "delivery_eta", "input": '{"sku": "A'},
            {
                "type": "tool_use",
                "id": "toolu_2",
                "name": "delivery_eta",
                "input": '{"sku": "A-100", "region": "busan"}',
            },
        ]
    }
    assert [(call.args, call.error) for call in providers.anthropic_tool_calls(message)] == [
        (None, "args:json:arguments"),
        ({"sku": "A-100", "region": "busan"}, None),
    ]


# ── what goes back ───────────────────────────────────────────────────────────


def test_a_value_json_cannot_carry_is_not_sent():
    nan_door = lambda name, args: {"ok": True, "value": {"v": float("nan")}, "error": None}  # noqa: E731
    assert providers.call_through_door([ToolCall("c1", "t", {})], door=nan_door) == [
        tools.failure("result:json:result")
    ]


def test_replies_refuse_calls_and_envelopes_that_do_not_pair():
    with pytest.raises(ValueError, match="2 calls but 1 envelopes"):
        providers.openai_tool_messages([ToolCall("a", "t"), ToolCall("b", "t")], [tools.failure("x:y:z")])


# ── a real model in run()'s pick seat ────────────────────────────────────────


def test_a_model_picker_over_openai_chat_answers_a_question_through_run():
    recorded = Recorded("openai_chat_three_calls")
    picker = providers.ModelPicker(openai_client(recorded), model="gpt-4.1-mini")
    state = tools.run(QUESTION, picker=picker)
    assert state["status"] == "answered" and state["tool"] == "stock_lookup"
    assert (
        state["result"]["value"]
        == tools.call_tool("stock_lookup", {"sku": "A-100", "region": "seoul", "limit": 2})["value"]
    )
    _, sent = recorded.sent[0]
    assert sent["tools"] == schema.to_openai(tools.TOOLS) and sent["tool_choice"] == "required"
    assert sent["messages"] == [{"role": "user", "content": QUESTION}]
    assert len(picker.last) == 3  # run() calls one tool a request: the first; every call is kept


def test_a_model_picker_over_responses_has_its_mistake_fixed_by_the_graph():
    """The model asks for 5 rows; the door refuses (args:range:limit) and the graph's fix clamps to 2."""
    picker = providers.ModelPicker(
        openai_client(Recorded("openai_responses_two_calls")), model="gpt-4.1", api="responses"
    )
    state = tools.run({"prompt": QUESTION}, picker=picker)
    assert state["reasons"] == ["args:range:limit"] and state["status"] == "answered"
    assert state["args"]["limit"] == 2 and state["attempts"] == 2


def test_a_model_picker_over_anthropic_knows_the_client():
    recorded = Recorded("anthropic_three_tool_uses")
    picker = providers.ModelPicker(anthropic_client(recorded), model="claude-sonnet-4-5", system="Be brief.")
    assert picker.api == "messages"
    state = tools.run({"tool": "stock_lookup", "args": {"sku": "A-100", "region": "busan", "limit": 2}}, picker=picker)
    assert state["status"] == "answered"
    _, sent = recorded.sent[0]
    assert sent["tool_choice"] == {"type": "any"} and sent["system"] == "Be brief."
    assert sent["tools"] == schema.to_anthropic(tools.TOOLS)
    assert json.loads(sent["messages"][0]["content"].removeprefix("Make this tool call: "))["tool"] == "stock_lookup"


def test_a_model_picker_passes_broken_arguments_on_for_the_door_to_refuse():
    picker = providers.ModelPicker(openai_client(Recorded("openai_chat_single_quoted_arguments")), model="gpt-4.1-nano")
    state = tools.run(QUESTION, picker=picker)
    assert state["reasons"] == ["args:shape:args"] and state["status"] == "gave_up"
    assert picker.last[0].error == "args:json:arguments"


def test_a_model_picker_whose_api_call_fails_gives_up_without_raising():
    picker = providers.ModelPicker(openai_client(Recorded("openai_error_invalid_api_key", status=401)), model="gpt-4.1")
    state = tools.run(QUESTION, picker=picker)
    assert state["status"] == "gave_up" and state["reasons"] == ["tool:unknown:None"]
    assert picker.errors[0].startswith("AuthenticationError") and "Incorrect API key" in picker.errors[0]


def test_a_model_picker_refuses_an_unknown_api():
    with pytest.raises(ValueError, match=r"'completions'.*chat, responses, messages"):
        providers.ModelPicker(object(), model="m", api="completions")
