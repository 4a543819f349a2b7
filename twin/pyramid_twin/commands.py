"""A switch's command table: exact command texts, plus per-port forms matched by pattern.

formats_<os>.py build one with the per-port forms as (pattern, handler maker): the maker gets the
pattern's match and returns a handler bound to that port. Standard library only.
"""


class Commands(dict):
    """get(), `in` and [] see the exact commands first, then each per-port pattern in turn."""

    def __init__(self, exact, per_port=()):
        super().__init__(exact)
        self.per_port = list(per_port)

    def get(self, command, default=None):
        if dict.__contains__(self, command):
            return dict.__getitem__(self, command)
        for pattern, bind in self.per_port:
            match = pattern.match(command)
            if match:
                return bind(match)
        return default

    def __contains__(self, command):
        return self.get(command) is not None

    def __getitem__(self, command):
        handler = self.get(command)
        if handler is None:
            raise KeyError(command)
        return handler


class PortView:
    """The per-port form "PREFIX <port> <view>" (a port name without spaces, a view from ``views``) without `re`, whose
    import is most of a short tool run's cost: match() answers like re.match(r"^PREFIX (\\S+) (view|...)$")."""

    def __init__(self, prefix, views):
        self.prefix = prefix + " "
        self.views = frozenset(views)

    def match(self, command):
        if not command.startswith(self.prefix):
            return None
        port, _space, view = command[len(self.prefix):].partition(" ")
        if not port or view not in self.views or not port.isprintable():
            return None
        return _Match((port, view))


class _Match(tuple):
    def groups(self):
        return tuple(self)


def bound(render, name, missing):
    """A handler rendering one port (`render(switch, port)`), or `missing` for a port the switch lacks."""
    def handler(switch):
        port = next((p for p in switch["ports"] if p["name"] == name), None)
        return missing if port is None else render(switch, port)
    return handler
