#!/usr/bin/env python3
"""Checks `clsfile export --xapi` output with independent xAPI libraries from PyPI.

Not part of `swift test` (which has its own validator and needs no network). Run it by hand:

    python3 -m venv /tmp/xapi-venv && /tmp/xapi-venv/bin/pip install ralph-malph tincan
    clsfile export --xapi > statements.json
    /tmp/xapi-venv/bin/python Scripts/validate-xapi.py statements.json

ralph-malph's pydantic models check xAPI 1.0.3 statements (RFC 3987 IRIs, RFC 5646 tags, UUIDs,
one identifier per agent, no empty values); tincan's model checks that every statement reads back.
"""
import json
import sys

from ralph.models.xapi.base.statements import BaseXapiStatement
import tincan


def main(path):
    with open(path, encoding="utf-8") as file:
        statements = json.load(file)
    failed = 0
    for index, statement in enumerate(statements):
        try:
            BaseXapiStatement.model_validate(statement)
            parsed = tincan.Statement(statement)
            if str(parsed.id) != statement["id"] or parsed.verb.id != statement["verb"]["id"]:
                raise ValueError("tincan reads back another id or verb")
        except Exception as error:  # report every statement, then fail
            failed += 1
            print(f"statement {index} ({statement.get('verb', {}).get('id')}): {error}")
    print(f"{len(statements) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
