"""pytest plugin: bind torch to leafgrad with our stand-ins and record one CSV row per test."""

from __future__ import annotations

import csv
import os

import torch_testing_standin

torch_testing_standin.install(os.environ.get("LG_SUITE_BACKEND", "leafgrad"))

_ROWS = []


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        kind, message = "", ""
        if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
            kind, message = "Skip", str(report.longrepr[2])
        elif report.outcome == "failed":
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash else str(report.longrepr)[-300:]
            kind = message.split(":", 1)[0]
        if hasattr(report, "wasxfail"):
            kind, message = "xfail", str(report.wasxfail)
        _ROWS.append((report.nodeid, report.outcome, kind, " ".join(message.split())[:300]))


def pytest_sessionfinish(session):
    path = os.environ.get("LG_SUITE_CSV")
    if path:
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["test", "outcome", "kind", "message"])
            writer.writerows(_ROWS)
