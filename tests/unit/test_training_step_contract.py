# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every training log has a step contract: Megatron-LM's printed total, or the count declared for your own command."""

from __future__ import annotations

import pytest

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog, expectations as _expectations

LINE = (" iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): 5123.4 | learning rate: 1.500000E-04 | "
        "global batch size:    64 | lm loss: 9.876543E+00 | loss scale: 1.0 | number of skipped iterations:   0 | "
        "number of nan iterations:   0 |")


def _log(iterations, total, tail=""):
    return "\n".join(LINE % (i, total, 64 * i) for i in iterations) + "\n" + tail


def test_a_megatron_log_carries_its_total_and_its_own_exit_line():
    facts = parsing.parse("training_log", _log(range(1, 21), 100, "[exiting program at iteration 20] datetime: 2026-11-22 20:40:00 \n"))
    assert facts["train_iters"] == 100 and facts["exit_line"] == "exiting program at iteration 20" and facts["exit_iteration"] == 20
    facts = parsing.parse("training_log", _log(range(1, 11), 10, "[after training is done] datetime: 2026-11-22 20:40:00 \n"))
    assert facts["train_iters"] == 10 and facts["exit_line"] is None and facts["exit_iteration"] is None  # the normal end is no early stop


def test_iteration_lines_that_disagree_on_the_total_are_refused():
    with pytest.raises(parsing.ParseError, match="different totals"):
        parsing.parse("training_log", _log(range(1, 6), 100) + _log(range(6, 11), 1000))


def test_a_count_for_a_command_that_is_not_set_is_refused_at_preflight():
    catalog = _catalog.load_catalog()
    errors = _expectations.resolve(catalog, {"pyramid_train_command_steps": 20})[1]
    assert errors == ["pyramid_train_command_steps (20) is set but pyramid_train_command is empty: the built-in run's steps are "
                      "pyramid_train_steps"]
    assert _expectations.resolve(catalog, {"pyramid_train_command_steps": 20, "pyramid_train_command": ["python3", "train.py"]})[1] == []
    assert _expectations.resolve(catalog, {"pyramid_train_command": ["python3", "train.py"]})[1] == []
    assert _expectations.resolve(catalog, {"pyramid_train_command_steps": -1, "pyramid_train_command": ["x"]})[1]
