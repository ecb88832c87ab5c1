"""Refuse and record every network connection except to this machine, for the offline tests.

`install(record, patch)` guards the running process (pass `monkeypatch.setattr` as `patch` so a test
undoes it); `sitecustomize_env(folder, log)` guards every Python process started with the
environment it returns, appending one line per attempt to `log`.

Python reaches the network through `socket.getaddrinfo` (name look-ups, `socket.create_connection`,
urllib, http.client) and a socket's `connect`/`connect_ex`/`sendto`; those are what the guard wraps.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Callable
from pathlib import Path

_INTERNET = (socket.AF_INET, socket.AF_INET6)


def _ip(host: object) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return None


def _this_machine(host: object) -> bool:
    ip = _ip(host.decode() if isinstance(host, bytes) else host)
    return host in (None, "localhost", b"localhost") or (ip is not None and ip.is_loopback)


def install(record: Callable[[str], object], patch: Callable = setattr) -> None:
    """Wrap the socket functions so that anything but this machine is recorded by `record` and refused."""
    real_getaddrinfo = socket.getaddrinfo
    real_connect, real_connect_ex, real_sendto = socket.socket.connect, socket.socket.connect_ex, socket.socket.sendto

    def refused(attempt: str) -> OSError:
        record(attempt)
        return ConnectionRefusedError(f"the test blocks the network: {attempt}")

    def getaddrinfo(host, *args, **kwargs):
        # An address literal needs no look-up; connecting to it is checked below.
        if not _this_machine(host) and _ip(host) is None:
            record(f"look up {host}")
            raise socket.gaierror(socket.EAI_NONAME, f"the test blocks the network: look up {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    def checked(sock: socket.socket, address) -> None:
        if sock.family in _INTERNET and not _this_machine(address[0]):
            timeout = sock.gettimeout()
            raise refused(
                f"connect to {address[0]}:{address[1]} ({'no timeout' if timeout is None else f'timeout {timeout:g} s'})"
            )

    def connect(sock, address):
        checked(sock, address)
        return real_connect(sock, address)

    def connect_ex(sock, address):
        checked(sock, address)
        return real_connect_ex(sock, address)

    def sendto(sock, data, *flags_and_address):
        checked(sock, flags_and_address[-1])
        return real_sendto(sock, data, *flags_and_address)

    patch(socket, "getaddrinfo", getaddrinfo)
    patch(socket.socket, "connect", connect)
    patch(socket.socket, "connect_ex", connect_ex)
    patch(socket.socket, "sendto", sendto)


def append_to(log: Path) -> Callable[[str], None]:
    """A `record` that appends each attempt to `log`, one a line (several processes may share it)."""

    def record(attempt: str) -> None:
        with open(log, "a", encoding="utf-8") as file:
            file.write(attempt + "\n")

    return record


def sitecustomize_env(folder: Path, log: Path) -> dict[str, str]:
    """`os.environ` with a sitecustomize.py in `folder` that guards each Python process started with it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        f"import network_guard\nnetwork_guard.install(network_guard.append_to({str(log)!r}))\n",
        encoding="utf-8",
    )
    here = str(Path(__file__).resolve().parent)
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(folder), here, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }
