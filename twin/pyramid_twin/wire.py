"""What the twin's ib_write_bw server and client say to each other over loopback, and the rail plan's addresses.

Every tool run pays for what it imports: `socket` imports `enum` and `selectors`, `json` and `re` import `re`'s
compiler, and together they were about half of an ib_write_bw run's CPU (the suite's budget, issue 33). So the
exchange is one line of `key=value` words on CPython's own `_socket`, and an address is split by hand.
"""

import _socket


def rail_address(address):
    """(rail, node index) of a rail plan address 10.5<rail>.<hi>.<lo> (tests/unit/test_twin_formats*), else None."""
    parts = (address or "").split(".")
    if len(parts) != 4 or parts[0] != "10" or len(parts[1]) != 2 or parts[1][0] != "5":
        return None
    if not all(part.isdecimal() for part in parts[1:]):
        return None
    return int(parts[1][1]), int(parts[2]) * 256 + int(parts[3])


def listen(address, port, timeout):
    """A listening TCP socket on (address, port); OSError where the port is held."""
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    try:
        listener.bind((address, port))
    except OSError:
        listener.close()
        raise
    listener.listen(1)
    listener.settimeout(timeout)
    return listener


class Connection:
    """One TCP connection, closed at the end of a `with` (CPython's `_socket.socket` has no `with` of its own)."""

    def __init__(self, sock):
        self.sock = sock

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.sock.close()

    def sendall(self, data):
        self.sock.sendall(data)

    def recv(self, size):
        return self.sock.recv(size)


def accept(listener):
    """The next connection on a listener (OSError at its timeout)."""
    # _socket's own accept: a file descriptor, wrapped below (socket.socket.accept is the Python layer not imported)
    fd, _peer = listener._accept()  # pylint: disable=protected-access
    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM, 0, fd)
    sock.settimeout(listener.gettimeout())
    return Connection(sock)


def connect(address, port, timeout):
    """A TCP connection to (address, port); OSError where nobody listens."""
    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect((address, port))
    except OSError:
        sock.close()
        raise
    return Connection(sock)


def send(connection, fields):
    """One line of key=value words: keys and values without spaces; True/False as 1/0, floats as repr."""
    words = ["%s=%s" % (key, int(value) if isinstance(value, bool) else value) for key, value in fields.items()]
    connection.sendall((" ".join(words) + "\n").encode())


def receive(connection):
    """The other end's line as {key: text}; {} where it closed without one."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = connection.recv(4096)
        if not chunk:
            break
        data += chunk
    return dict(word.split("=", 1) for word in data.decode().split() if "=" in word)
