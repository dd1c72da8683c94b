"""The tests' HTTP server stays quiet only about clients that hang up."""

from __future__ import annotations

import pytest
from local_http import QuietHTTPServer


@pytest.mark.parametrize("error", [ConnectionResetError(104, "reset"), BrokenPipeError(32, "pipe"), ValueError("bug")])
def test_only_a_client_hanging_up_is_not_printed(error: Exception, capsys: pytest.CaptureFixture[str]) -> None:
    server = QuietHTTPServer(("127.0.0.1", 0), bind_and_activate=False, RequestHandlerClass=None)  # type: ignore[arg-type]
    try:
        raise error
    except (ConnectionError, ValueError):
        server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    printed = capsys.readouterr().err
    assert (type(error).__name__ in printed) is isinstance(error, ValueError)
