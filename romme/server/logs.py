"""Structured logs: one JSON object per line on standard error.

``log.info("table_created", extra={"table": 5})`` writes
``{"ts": "...", "level": "info", "logger": "romme.server", "event": "table_created", "table": 5}``.
uvicorn's own loggers are routed through the same formatter.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

__all__ = ["ClientFaultFilter", "JsonFormatter", "configure_logging", "uvicorn_log_config"]

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    """Formats a record as one line of JSON with its ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, ensure_ascii=False)


class ClientFaultFilter(logging.Filter):
    """A client's broken frame is the client's fault, not the server's: uvicorn logs
    a text frame that is not UTF-8 as an error with a traceback (and closes the
    connection with 1007, as RFC 6455 requires); this makes it one warning line,
    ``invalid_utf8``, so a hostile client cannot fill the log with tracebacks."""

    FAULTS = {"Invalid UTF-8 sequence received from client.": "invalid_utf8"}

    def filter(self, record: logging.LogRecord) -> bool:
        event = self.FAULTS.get(record.msg) if isinstance(record.msg, str) else None
        if event is not None:
            record.msg, record.args, record.exc_info, record.exc_text = event, (), None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def configure_logging(level: str = "info") -> None:
    """Send every log record of the process to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def uvicorn_log_config(level: str = "info") -> dict[str, Any]:
    """A ``logging.config`` dict that makes uvicorn log JSON lines too."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "filters": {"client_faults": {"()": ClientFaultFilter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
                "filters": ["client_faults"],
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
        },
        "root": {"handlers": ["stderr"], "level": level.upper()},
    }
