"""Schemathesis hooks for `npm run test:conformance`.

A few list parameters depend on each other, which an OpenAPI parameter schema cannot say; the
parameter descriptions in docs/openapi.json state each rule, and the service answers 400 naming
the field when one is broken. Generated requests that break one of these rules are skipped, so
every other request the document allows must be accepted, and every one it forbids refused.
"""
import schemathesis


def _true(value):
    return str(value).strip().lower() in ("true", "1")


def _blank(value):
    return value is None or str(value).strip() == ""


@schemathesis.hook
def filter_case(ctx, case):
    # filter_case, not filter_query: the coverage phase applies only the case-level hooks.
    query = case.query
    if not isinstance(query, dict) or not query:
        return True
    searched = not _blank(query.get("search"))
    if str(query.get("sort_by", "")).strip().lower() == "relevance" and not searched:
        return False  # sort_by: "relevance is accepted only with search"
    if str(query.get("search_mode", "")).strip().lower() in ("semantic", "hybrid") and not searched:
        return False  # search_mode: semantic and hybrid "need a search term"
    after, before = query.get("deadline_after"), query.get("deadline_before")
    if isinstance(after, str) and isinstance(before, str) and after.strip() >= before.strip():
        return False  # deadline_before: "must be later than deadline_after"
    if not _blank(query.get("cursor")):
        return False  # cursor: only a next_cursor the service sent is one; any other string is refused
    if str(query.get("format", "")).strip().lower() == "csv" and (_true(query.get("count_only", "")) or not _blank(query.get("facets"))):
        return False  # format: "Not with count_only or facets"
    return True
