"""The official Python client (tabstack on PyPI) waiting out a rate limit, for test/e2e/rateLimits.test.ts.

The client reads TABSTACK_BASE_URL and TABSTACK_API_KEY itself, and keeps its default retries.
Argument: the URL of a page. Prints one JSON object: the status of every answer the client got,
how long the call took, and the Markdown it returned.
"""

import json
import sys
import time

import httpx
import tabstack


def main(page_url: str) -> None:
    statuses = []
    http_client = httpx.Client(event_hooks={"response": [lambda response: statuses.append(response.status_code)]})
    client = tabstack.Tabstack(http_client=http_client)
    started = time.monotonic()
    markdown = client.extract.markdown(url=page_url, effort="min")
    print(json.dumps({"statuses": statuses, "seconds": time.monotonic() - started, "content": markdown.content}))


if __name__ == "__main__":
    main(sys.argv[1])
