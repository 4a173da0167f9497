"""The official Python client (tabstack on PyPI) at a real model's pace, for test/e2e/clientPace.test.ts.

The client reads TABSTACK_BASE_URL and TABSTACK_API_KEY itself, and keeps its default retries.
Commands, each printing one JSON object:
  research QUERY                  the event names of a research stream, to its end
  automate URL WAIT_SECONDS       an interactive automate task whose input request is answered
                                  (card number and CVC) through the client after WAIT_SECONDS
  refusals PAGE_URL               a fetch of a page that is not there, and a research on a
                                  server without a search engine: status and body of each
A stream the client cannot read raises here, and the test sees the traceback.
"""

import json
import sys
import time

import tabstack


def research(client: tabstack.Tabstack, query: str) -> dict:
    events = [event.event for event in client.agent.research(query=query, mode="fast")]
    return {"events": events}


def automate(client: tabstack.Tabstack, url: str, wait_seconds: float) -> dict:
    events = []
    answered = None
    stream = client.agent.automate(
        task="Buy the Aurora headphones", url=url, interactive=True, max_iterations=4
    )
    for event in stream:
        events.append(event.event)
        if event.event == "interactive:form_data:request":
            fields = {field.label: field.ref for field in event.data.fields}
            time.sleep(wait_seconds)
            answered = client.agent.automate_input(
                event.data.request_id,
                fields=[
                    {"ref": fields["Card number"], "value": "4111 1111 1111 1111"},
                    {"ref": fields["CVC"], "value": "123"},
                ],
            ).status
        if event.event == "complete":
            complete = event.data.to_dict()
    return {"events": events, "answered": answered, "complete": complete}


def refusals(client: tabstack.Tabstack, page_url: str) -> dict:
    result = {}
    try:
        client.extract.markdown(url=page_url, effort="min")
    except tabstack.APIStatusError as err:
        result["missing_page"] = {"status": err.status_code, "body": err.body}
    try:
        for _ in client.agent.research(query="q"):
            pass
    except tabstack.APIStatusError as err:
        result["no_search_engine"] = {"status": err.status_code, "body": err.body}
    return result


def main(command: str, *args: str) -> None:
    client = tabstack.Tabstack()
    if command == "research":
        result = research(client, args[0])
    elif command == "automate":
        result = automate(client, args[0], float(args[1]))
    else:
        result = refusals(client, args[0])
    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])
