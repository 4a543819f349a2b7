"""The incast's load in the suite's runs (docs/incast.md), shared by the healthy pod (tests/e2e/conftest.py) and the
incast's own runs (tests/e2e/test_validate_incast.py).

Four senders at 120 Gb/s offer a 400G port what the default eight at 60 do (480 Gb/s, 20% over): the same congestion,
with four nodes fewer to read before and after each window (the suite's budget, issue 33). 15 s windows, the last 60%
for the PFC bound: room for the eight leaves' tail reads (side by side, a few seconds on this twin) to end before the
senders' windows can (a later read is an ERROR: test_a_tail_read_after_the_window_is_an_error_about_the_read_never_a_pass).
"""

INCAST = {"pyramid_incast": True, "pyramid_incast_senders": 4, "pyramid_incast_rate_gbps": 120, "pyramid_incast_duration": 15,
          "pyramid_incast_tail_percent": 60}
