"""Smoke test of the Python SDK against a running server.

    HEALTH_PARTNER_BASE_URL=http://localhost:4000 HEALTH_PARTNER_TOKEN=... python3 sdk/python/examples/smoke.py

Prints one JSON line per step and exits 1 if the API answers anything unexpected. With
HEALTH_PARTNER_CLIENT_ID and HEALTH_PARTNER_CLIENT_SECRET set, it also signs in as that OAuth client.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from health_partner_sdk import ApiError, Client, __version__  # noqa: E402


def report(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def expect_error(call, status):
    try:
        call()
    except ApiError as error:
        if error.status != status:
            raise SystemExit(f"expected {status}, got {error.status} {error.code}: {error.detail}")
        return error
    raise SystemExit(f"expected an ApiError {status}, got a success")


def main():
    base_url = os.environ["HEALTH_PARTNER_BASE_URL"]
    client = Client(base_url, token=os.environ["HEALTH_PARTNER_TOKEN"])
    report("version", version=__version__)

    routes = client.catalog_routes(product="identity")
    report("list", total=routes["total"], paths=sorted({route["path"] for route in routes["routes"]}))

    missing = expect_error(lambda: client.identity_get("SVC-00000000"), 404)
    report("not_found", status=missing.status, code=missing.code, detail=missing.detail)

    invalid = expect_error(lambda: client.catalog_routes(product="nope"), 422)
    report("validation", status=invalid.status, code=invalid.code, fields=invalid.fields)

    client_id = os.environ.get("HEALTH_PARTNER_CLIENT_ID")
    if client_id:
        machine = Client(base_url, client_id=client_id, client_secret=os.environ["HEALTH_PARTNER_CLIENT_SECRET"])
        health = machine.pipeline_health()
        report("oauth", keys=sorted(health) if isinstance(health, dict) else [])


if __name__ == "__main__":
    main()
