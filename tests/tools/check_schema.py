#!/usr/bin/env python3
"""check_schema.py — validates a JSON document against a JSON Schema file.

usage: check_schema.py SCHEMA.json DOC.json

Uses python3-jsonschema when it is installed; otherwise a small checker of
the subset docs/validate.schema.json uses (type, const, enum, required,
properties, additionalProperties: false, items, maxItems, minimum,
minLength, pattern, local $ref). Exit 0 valid, 1 invalid (the first error
on stderr, with its path), 2 usage. CHECK_SCHEMA_OWN=1 forces the own
checker. Standard library only otherwise.
"""
import json
import os
import re
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(v, t):
    if t in ("number", "integer"):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        return t == "number" or float(v).is_integer()
    return isinstance(v, TYPES[t])


def resolve(root, s):
    while "$ref" in s:
        s = {**{k: v for k, v in s.items() if k != "$ref"},
             **_walk(root, s["$ref"])}
    return s


def _walk(root, ref):
    node = root
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def check(root, s, v, path):
    s = resolve(root, s)
    t = s.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(is_type(v, x) for x in ts):
            raise ValueError(f"{path}: {v!r} is not of type {t}")
    if "const" in s and v != s["const"]:
        raise ValueError(f"{path}: {v!r} != {s['const']!r}")
    if "enum" in s and v not in s["enum"]:
        raise ValueError(f"{path}: {v!r} not in {s['enum']}")
    if isinstance(v, str):
        if len(v) < s.get("minLength", 0):
            raise ValueError(f"{path}: shorter than {s['minLength']}")
        if "pattern" in s and not re.search(s["pattern"], v):
            raise ValueError(f"{path}: {v!r} does not match {s['pattern']}")
    if is_type(v, "number") and "minimum" in s and v < s["minimum"]:
        raise ValueError(f"{path}: {v} < {s['minimum']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                raise ValueError(f"{path}: '{k}' is required")
        props = s.get("properties", {})
        for k, x in v.items():
            if k in props:
                check(root, props[k], x, f"{path}.{k}")
            elif s.get("additionalProperties") is False:
                raise ValueError(f"{path}: unexpected property '{k}'")
    if isinstance(v, list):
        if len(v) > s.get("maxItems", len(v)):
            raise ValueError(f"{path}: more than {s['maxItems']} items")
        if "items" in s:
            for i, x in enumerate(v):
                check(root, s["items"], x, f"{path}[{i}]")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    schema = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    try:
        if os.environ.get("CHECK_SCHEMA_OWN"):
            raise ImportError("the own checker was asked for")
        import jsonschema  # python3-jsonschema, when installed
        try:
            jsonschema.validate(doc, schema)
        except jsonschema.ValidationError as e:
            print(f"invalid (jsonschema): {'/'.join(map(str, e.absolute_path))}: {e.message}",
                  file=sys.stderr)
            return 1
        print("valid (jsonschema)")
        return 0
    except ImportError:
        pass
    try:
        check(schema, schema, doc, "$")
    except ValueError as e:
        print(f"invalid: {e}", file=sys.stderr)
        return 1
    print("valid (own checker)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
