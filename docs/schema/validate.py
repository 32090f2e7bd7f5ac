#!/usr/bin/python3
"""validate.py SCHEMA FILE...: checks JSON files against a schema of this
folder (draft 2020-12, with common.schema.json for the shared definitions)
using Debian's python3-jsonschema. Prints one line per file; exits 1 when
one does not validate."""
import json
import os
import sys

import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
store = {}
for name in os.listdir(here):
    if name.endswith(".schema.json"):
        with open(os.path.join(here, name)) as f:
            s = json.load(f)
        store[s["$id"]] = s
with open(sys.argv[1]) as f:
    schema = json.load(f)
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
try:  # jsonschema >= 4.18 resolves $ref (and unevaluatedProperties) through referencing
    from referencing import Registry, Resource
    registry = Registry().with_resources((k, Resource.from_contents(v)) for k, v in store.items())
    validator = cls(schema, registry=registry, format_checker=None)
except ImportError:  # Debian's 4.10
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    validator = cls(schema, resolver=resolver, format_checker=None)
bad = 0
for path in sys.argv[2:]:
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        print(f"{path}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    if errors:
        bad = 1
    else:
        print(f"{path}: valid")
sys.exit(bad)
