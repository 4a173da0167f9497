"""The official Python client (tabstack on PyPI) against this server, for test/e2e/officialClient.test.ts.

The client reads TABSTACK_BASE_URL and TABSTACK_API_KEY itself. Arguments: the URL of a page,
and the base URL of a server that can research. Prints one JSON object: what each call gave,
as the client's types read it. The client builds its models without validating them, so each
answer is also validated against the client's types with pydantic, which raises on a mismatch.
"""

import json
import sys

import pydantic
import tabstack
from tabstack.types import ExtractMarkdownResponse, ResearchEvent


def validated(model_type, model):
    return pydantic.TypeAdapter(model_type).validate_python(model.to_dict())


def main(page_url: str, research_base_url: str) -> None:
    client = tabstack.Tabstack(max_retries=0)
    result = {}

    markdown = validated(
        ExtractMarkdownResponse, client.extract.markdown(url=page_url, effort="min", metadata=True)
    )
    result["markdown"] = {"url": markdown.url, "title": markdown.metadata.title, "content": markdown.content}

    try:
        client.extract.markdown(url="")
        result["bad_request"] = None
    except tabstack.BadRequestError as err:
        result["bad_request"] = {"status": err.status_code, "body": err.body}

    researcher = tabstack.Tabstack(base_url=research_base_url, max_retries=0)
    events = []
    report = None
    max_attempts = []
    cited = []
    for event in researcher.agent.research(query="How do the volcanoes of Iceland erupt?", mode="fast"):
        event = validated(ResearchEvent, event)
        events.append(event.event)
        if event.event == "writing:start":
            max_attempts.append(event.data.max_attempts)
        if event.event == "complete":
            report = event.data.report
            cited = [page.id for page in event.data.metadata.cited_pages or []]
    result["research"] = {"events": events, "report": report, "max_attempts": max_attempts, "cited": cited}

    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
