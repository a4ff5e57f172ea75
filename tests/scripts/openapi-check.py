#!/usr/bin/env python3
"""Checks the local server's OpenAPI document (the output of `waymark openapi`).

1. The document is valid OpenAPI 3.1 (openapi-spec-validator).
2. Every parity golden answer (tests/golden/parity/*.json: real answers of the engine, which the
   `parity` test proves equal to the local server's) validates against the success schema of
   its operation, and stops validating once a required field is removed: the schemas describe
   what the server really writes, and they are not vacuous.

Usage: openapi-check.py OPENAPI_JSON GOLDEN_DIR
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate


def template_of(doc, path):
    """The document's path for a concrete path (`/indoor/venues/v1` -> `/indoor/venues/{venue_id}`)."""
    if path in doc["paths"]:
        return path
    parts = path.strip("/").split("/")
    for template in doc["paths"]:
        t = template.strip("/").split("/")
        if len(t) == len(parts) and all(a == b or (a.startswith("{") and a.endswith("}")) for a, b in zip(t, parts)):
            return template
    raise SystemExit(f"{path}: no such path in the document")


def success_schema(doc, endpoint):
    method, path = endpoint.split(" ", 1)
    op = doc["paths"][template_of(doc, path)][method.lower()]
    for status in ("200", "202"):
        if status in op["responses"]:
            schema = op["responses"][status]["content"]["application/json"]["schema"]
            # References are `#/components/schemas/...`: resolve them in the document.
            return {**schema, "components": doc["components"]}
    raise SystemExit(f"{endpoint}: no success response in the document")


def required_field(doc, schema, answer):
    """The first required field of the answer's schema; for a choice of forms (`anyOf`, e.g.
    convert-to-3wa's JSON or GeoJSON answer), of the form the answer validates against."""
    ref = schema.get("$ref", "")
    target = doc["components"]["schemas"].get(ref.rsplit("/", 1)[-1], {})
    for branch in target.get("anyOf", []) + target.get("oneOf", []):
        candidate = {**branch, "components": doc["components"]}
        if Draft202012Validator(candidate).is_valid(answer):
            return required_field(doc, candidate, answer)
    required = target.get("required", [])
    return required[0] if required else None


def main():
    doc = json.loads(pathlib.Path(sys.argv[1]).read_text())
    validate(doc)
    print(f"valid OpenAPI {doc['openapi']}: {sum(len(m) for m in doc['paths'].values())} operations, "
          f"{len(doc['components']['schemas'])} schemas")
    goldens = sorted(p for p in pathlib.Path(sys.argv[2]).glob("*.json") if p.name != "cases.json")
    if not goldens:
        raise SystemExit("no golden answers found")
    failures = 0
    for path in goldens:
        golden = json.loads(path.read_text())
        schema = success_schema(doc, golden["endpoint"])
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(golden["response"]), key=lambda e: list(e.path))
        for e in errors[:5]:
            print(f"FAIL {path.name}: {list(e.absolute_path)}: {e.message[:200]}")
        failures += len(errors) > 0
        field = required_field(doc, schema, golden["response"])
        if field is None or not isinstance(golden["response"], dict) or field not in golden["response"]:
            print(f"FAIL {path.name}: its schema names no required field present in the answer")
            failures += 1
            continue
        broken = {k: v for k, v in golden["response"].items() if k != field}
        if validator.is_valid(broken):
            print(f"FAIL {path.name}: the answer without `{field}` still validates")
            failures += 1
        elif not errors:
            print(f"ok   {path.name} ({golden['endpoint']}); refused without `{field}`")
    if failures:
        raise SystemExit(f"{failures} golden answer(s) do not match the OpenAPI document")


if __name__ == "__main__":
    main()
