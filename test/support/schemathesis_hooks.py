"""
The positive-data run's hooks (test/reliability/schemathesis.test.ts): the rules of the API that
JSON Schema cannot state, applied to the fuzzer's valid-by-the-document cases so that every
operation is fuzzed and any 422 left is a rule the document should state but does not.

Each rule is stated in words in the served document (the field's description) and enforced by the
server with a 422 naming the field. Two kinds:
- a value relative to the clock, another field, or a file's contents (map_case: the case is made to
  fit, keeping everything else the fuzzer drew);
- state that earlier requests of the same run change: a quota, the suppression list, a lead merged
  away (before_call / after_call: the state is set up for the case, or what it created is removed).

The seeded records and the API key come from the JSON file named by LEAD_FUZZ_FIXTURES.
"""

import datetime
import itertools
import json
import os

import requests
import schemathesis

FIXTURES = json.load(open(os.environ["LEAD_FUZZ_FIXTURES"], encoding="utf-8"))
API = FIXTURES["baseUrl"]
HEADERS = {"X-API-Key": FIXTURES["apiKey"]}
SEQUENCE = itertools.count()


def iso(delta: datetime.timedelta) -> str:
    return (datetime.datetime.now(datetime.timezone.utc) + delta).isoformat().replace("+00:00", "Z")


def api(method: str, path: str, **kwargs) -> requests.Response:
    res = requests.request(method, API + path, headers=HEADERS, timeout=30, **kwargs)
    if res.status_code >= 300:
        raise RuntimeError(f"hook's {method} {path} failed: {res.status_code} {res.text}")
    return res


# --- map_case: values that depend on the clock, on another field, or on a file ---------------


def future_expiry(body: dict) -> None:
    """expiresAt must be in the future (`x-future-only`)."""
    if "expiresAt" in body:
        body["expiresAt"] = iso(datetime.timedelta(days=1))


def recent_since(body: dict) -> None:
    """recover's `since` is at most 30 days ago."""
    body["since"] = iso(-datetime.timedelta(hours=1))


def real_private_key(body: dict) -> None:
    """privateKey must parse as an unencrypted PEM private key; a pattern cannot say that."""
    body["privateKey"] = FIXTURES["dkimPrivateKey"]


def columns_of_the_file(body: dict) -> None:
    """Every mapped column must be in the imported file's header (the pinned file's only column)."""
    mapping = body.get("mapping")
    if not isinstance(mapping, dict):
        return
    for field, column in mapping.items():
        if field == "customFields" and isinstance(column, dict):
            mapping[field] = {key: FIXTURES["importColumn"] for key in column}
        elif isinstance(column, str):
            mapping[field] = FIXTURES["importColumn"]


def entity_of_its_type(body: dict) -> None:
    """
    The document states this pair (an anyOf of entityType/entityId pairs), but the fuzzer draws a
    multipart form's parts one by one: the ID is made the seeded record of the drawn type.
    """
    if body.get("entityType") in FIXTURES["ids"]:
        body["entityId"] = FIXTURES["ids"][body["entityType"]]
    else:
        body.pop("entityType", None)
        body.pop("entityId", None)


def a_valid_graph(body: dict) -> None:
    """
    The graph rules (one trigger that nothing leads into, edges between existing nodes, two
    branches per condition, no cycle, every node reachable): the drawn nodes, each with the data
    the fuzzer drew, are chained in their order behind one trigger and in front of one end.
    """
    nodes = body.get("nodes")
    if not isinstance(nodes, list):
        body.pop("edges", None)  # a PATCH of edges alone would be checked against the stored nodes
        return
    triggers = [n for n in nodes if n.get("type") == "trigger"][:1] or [
        {"nodeId": "fuzz-trigger", "type": "trigger", "position": {"x": 0, "y": 0}, "data": {"triggerType": "manual"}}
    ]
    middle = [n for n in nodes if n.get("type") not in ("trigger", "end")]
    end = [n for n in nodes if n.get("type") == "end"][:1] or [
        {"nodeId": "fuzz-end", "type": "end", "position": {"x": 0, "y": 0}, "data": {}}
    ]
    chain = (triggers + middle)[:199] + end  # the document's 200 nodes at most
    seen: set[str] = set()
    for i, node in enumerate(chain):
        if node["nodeId"] in seen:
            node["nodeId"] = f"fuzz-{i}"
        seen.add(node["nodeId"])
    edges = []
    for i, (source, target) in enumerate(zip(chain, chain[1:])):
        branches = ["true", "false"] if source["type"] == "condition" else [None]
        for branch in branches:
            edge = {"edgeId": f"e{i}{branch or ''}", "source": source["nodeId"], "target": target["nodeId"]}
            if branch:
                edge["branch"] = branch
            edges.append(edge)
    body["nodes"] = chain
    body["edges"] = edges  # at most 2 per node: within the 400 the document allows


def the_user_stays_active(body: dict) -> None:
    """
    No new lead, task or deal goes to a deactivated user (a 422 on assignedTo / ownerId), and every
    other operation's user is the pinned one: the run may change that user, but not deactivate it.
    """
    if body.get("status") == "deactivated":
        body["status"] = "active"


def the_forms_fields_stay(body: dict) -> None:
    """
    The shards run side by side on one pinned form: a PATCH of its fields in one shard, between the
    other shard's reading of them and its submission, made a valid-looking submission miss a field
    just made required (a 422 the check counts as valid input refused). Its other fields are fuzzed.
    """
    body.pop("fields", None)


MAP_CASE = {
    "POST /v1/api-keys": future_expiry,
    "POST /v1/integrations/webhooks/{id}/recover": recent_since,
    "POST /v1/communications/dkim-keys": real_private_key,
    "POST /v1/leads/imports": columns_of_the_file,
    "POST /v1/files/upload": entity_of_its_type,
    "POST /v1/workflows": a_valid_graph,
    "PATCH /v1/workflows/{id}": a_valid_graph,
    "PATCH /v1/users/{id}": the_user_stays_active,
    "PATCH /v1/forms/{id}": the_forms_fields_stay,
}


@schemathesis.hook
def map_case(context, case):
    rule = MAP_CASE.get(context.operation.label)
    if rule and isinstance(case.body, dict):
        rule(case.body)
    return case


# --- before_call / after_call: state the run itself changes -----------------------------------


def a_lead_to_merge(case) -> None:
    """A lead cannot be merged into itself, and a merged lead is gone: each merge gets a fresh one."""
    lead = api("POST", "/v1/leads", json={"email": f"merge-{next(SEQUENCE)}@example.com", "firstName": "M", "lastName": "D"})
    case.body["duplicateId"] = lead.json()["data"]["id"]


def a_subscribed_address(case) -> None:
    """
    Marketing mail to a suppressed address, or for a lead that unsubscribed, is refused; other
    operations of the run (a bounce, an unsubscribe) suppress addresses the fuzzer draws again. The
    address, and the lead's own, are re-subscribed first, as the 422 tells a user to.
    """
    addresses = [case.body.get("to")]
    if isinstance(case.body.get("leadId"), str):
        addresses.append(api("GET", f"/v1/leads/{case.body['leadId']}").json()["data"]["email"])
    for email in filter(lambda a: isinstance(a, str), addresses):
        for entry in api("GET", "/v1/suppressions", params={"email": email}).json()["data"]:
            api("DELETE", f"/v1/suppressions/{entry['id']}")


def the_forms_own_fields(case) -> None:
    """
    A public submission is checked against the form's own fields (required ones present, each
    valid for its type); the run itself edits the form, so its fields are read before each call.
    """
    form = api("GET", f"/v1/forms/{case.path_parameters['id']}").json()["data"]
    for field in form["fields"]:
        kind = field.get("type")
        if kind == "checkbox":
            value = True
        elif kind == "select":
            value = field["options"][0]
        elif kind == "email" or field.get("mapsTo") == "email":
            value = f"form-{next(SEQUENCE)}@example.com"
        elif kind == "tel" or field.get("mapsTo") == "phone":
            value = "+1 415 555 0100"
        else:
            value = "Fuzz"
        case.body[field["name"]] = value


def a_new_partner_address(case) -> None:
    """One partner per address: a generated address the run already registered is rightly a 409."""
    case.body["email"] = f"partner-{next(SEQUENCE)}@example.com"


BEFORE_CALL = {
    "POST /v1/partners": a_new_partner_address,
    "POST /v1/public/forms/{id}/submissions": the_forms_own_fields,
    "POST /v1/leads/{id}/merge": a_lead_to_merge,
    "POST /v1/communications/send/email": a_subscribed_address,
}


@schemathesis.hook
def before_call(context, case, kwargs):
    rule = BEFORE_CALL.get(context.operation.label)
    if rule and isinstance(case.body, dict):
        rule(case)


@schemathesis.hook
def after_call(context, case, response):
    # Webhook endpoints are a quota (per environment): each created one is deleted again, so the
    # next creation is judged on its input, not on how many came before it.
    if context.operation.label == "POST /v1/integrations/webhooks" and response.status_code == 201:
        api("DELETE", f"/v1/integrations/webhooks/{response.json()['data']['id']}")
