#!/usr/bin/python3
"""Validate every result record the integration suite saw against the schema.

Usage: validate_records.py SCHEMA RECORDS.jsonl
The harness appends each record sbx printed to RECORDS.jsonl; a record that
drifts from contrib/result.schema.json fails the suite here.
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
bad = 0
count = 0
try:
    lines = open(sys.argv[2]).read().splitlines()
except FileNotFoundError:
    print("validate_records: no records were produced", file=sys.stderr)
    sys.exit(1)
for n, line in enumerate(lines, 1):
    count += 1
    for e in validator.iter_errors(json.loads(line)):
        bad += 1
        print(f"record {n}: {e.json_path}: {e.message}", file=sys.stderr)
        print(f"  {line[:300]}", file=sys.stderr)
print(f"validate_records: {count} records, {bad} schema errors")
sys.exit(1 if bad else 0)
