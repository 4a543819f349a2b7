"""Waivers of the go-live rows a twin run leaves unchecked on purpose (one unchecked row is a no-go otherwise, issue 37:
the report's pyramid_waive). A run of GPU nodes alone (no switch in its scenario) leaves the switch rows and the
incast's; the healthy pod with its fabric, the incast's alone."""

SWITCHES_ELSEWHERE = "a run of the GPU nodes alone: the switches are tests/e2e/test_validate_switches.py's"
INCAST_ELSEWHERE = "the incast is proven by its own runs (tests/e2e/test_validate_incast.py)"
HEALTHY_WAIVER = {"row": "qos_load", "reason": INCAST_ELSEWHERE}
GPU_ONLY_WAIVERS = [{"row": row, "reason": SWITCHES_ELSEWHERE} for row in ("links", "bgp_ecmp", "qos_idle", "roce_agree")] + [
    HEALTHY_WAIVER]
