"""The client's retries of 429 and 503 and its errors, against a scripted local server.

    python3 -m unittest discover -s sdk/python/tests
"""

import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from health_partner_sdk import ApiError, Client  # noqa: E402


class ScriptedServer:
    """Answers each request with the next (status, headers, body) of its script, and records the requests."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                owner.requests.append(self.path)
                status, headers, body = owner.script.pop(0)
                data = json.dumps(body).encode("utf-8")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


PROBLEM = {"Content-Type": "application/problem+json"}
OK = (200, {"Content-Type": "application/json"}, {"total": 0, "routes": []})


def limited(retry_after):
    return (429, {**PROBLEM, "Retry-After": retry_after}, {"code": "RATE_LIMITED", "detail": "slow down", "status": 429})


class RetryTest(unittest.TestCase):
    def serve(self, script):
        server = ScriptedServer(script)
        self.addCleanup(server.close)
        return server

    def test_retries_429_and_503_after_retry_after(self):
        server = self.serve([limited("0"), (503, {**PROBLEM, "Retry-After": "0"}, {"code": "SERVER_BUSY", "detail": "busy"}), OK])
        self.assertEqual(Client(server.url, token="t").catalog_routes(), OK[2])
        self.assertEqual(len(server.requests), 3)

    def test_gives_up_after_max_retries(self):
        server = self.serve([limited("0")] * 3)
        with self.assertRaises(ApiError) as caught:
            Client(server.url, token="t", max_retries=2).catalog_routes()
        self.assertEqual((caught.exception.status, caught.exception.code), (429, "RATE_LIMITED"))
        self.assertEqual(len(server.requests), 3)

    def test_does_not_wait_longer_than_max_retry_wait(self):
        server = self.serve([limited("3600")])
        with self.assertRaises(ApiError) as caught:
            Client(server.url, token="t", max_retry_wait=5).catalog_routes()
        self.assertEqual(caught.exception.headers.get("retry-after"), "3600")
        self.assertEqual(len(server.requests), 1)

    def test_validation_errors_name_their_fields(self):
        body = {"code": "VALIDATION_ERROR", "detail": "bad", "errors": [{"field": "product", "message": "unknown"}]}
        server = self.serve([(422, PROBLEM, body)])
        with self.assertRaises(ApiError) as caught:
            Client(server.url, token="t").catalog_routes(product="nope")
        self.assertEqual(caught.exception.fields, ["product"])
        self.assertEqual(server.requests, ["/api/partner/routes?product=nope"])


if __name__ == "__main__":
    unittest.main()
