"""The AWX objects of awx/controller.yml, checked offline: no AWX server runs here.

The arguments playbooks/awx_configure.yml passes to the awx.awx modules are validated against those
modules' documented options (ansible-doc of the installed awx.awx, doc fragments included), the
surveys against the rules AWX's API applies to a survey_spec (JobTemplateSurveySpec._validate_spec_data
in awx/api/views/__init__.py), and every survey variable against the catalog's expectations.
"""

import json
import os
import subprocess
import sys

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
MODULES = ("awx.awx.project", "awx.awx.execution_environment", "awx.awx.job_template", "awx.awx.workflow_job_template")
# AWX's survey question types and the Python type a default must have (JobTemplateSurveySpec.ALLOWED_TYPES).
SURVEY_TYPES = {"text": str, "textarea": str, "password": str, "multiplechoice": str, "multiselect": str,
                "integer": int, "float": float}
CATALOG_TYPES = {"int": ("integer",), "float": ("float", "integer"), "str": ("text", "textarea", "multiplechoice")}
NOT_EXPECTATIONS = {"twin_scenario"}  # read by the twin's inventory plugin (twin/inventory_plugins), demos only


def _trusted(value):
    """The project's own files are trusted as templates, as ansible-playbook trusts a playbook's vars_files."""
    if isinstance(value, dict):
        return {key: _trusted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trusted(item) for item in value]
    return trust_as_template(value) if isinstance(value, str) else value


def _load(path):
    loader = DataLoader()
    return loader, _trusted(loader.load_from_file(path))


@pytest.fixture(scope="module")
def controller():
    loader, data = _load(os.path.join(ROOT, "awx", "controller.yml"))
    return Templar(loader=loader, variables=data).template(data)


@pytest.fixture(scope="module")
def playbook_tasks():
    plays = _load(os.path.join(ROOT, "playbooks", "awx_configure.yml"))[1]
    return {next(k for k in task if k.startswith("awx.awx.")): task for task in plays[0]["tasks"]
            if any(k.startswith("awx.awx.") for k in task)}


@pytest.fixture(scope="module")
def specs():
    result = subprocess.run([os.path.join(BIN, "ansible-doc"), "--json", *MODULES], capture_output=True, text=True, check=True,
                            env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg")))
    docs = json.loads(result.stdout)
    return {name: _argument_spec(docs[name]["doc"]["options"]) for name in MODULES}


def _argument_spec(options):
    """An argument_spec from documented options (what the module's own argument_spec mirrors)."""
    spec = {}
    for name, doc in options.items():
        entry = {key: doc[key] for key in ("type", "elements", "choices", "required", "aliases") if key in doc}
        if "suboptions" in doc:
            entry["options"] = _argument_spec(doc["suboptions"])
        spec[name] = entry
    return spec


def _validate(spec, params):
    result = ArgumentSpecValidator(spec).validate(params)
    assert not result.error_messages, result.error_messages
    return result


def _effective_args(task, module, item, names):
    """The task's arguments with item.* and the controller names filled in; omitted where the item has no value."""
    args = {}
    for key, value in task[module].items():
        if key.startswith("controller_") or key == "validate_certs":
            continue
        if isinstance(value, str) and "item." in value:
            field = value.split("item.")[1].split()[0].rstrip("}")
            if field in item:
                args[key] = item[field]
            continue
        args[key] = value
    return Templar(loader=DataLoader(), variables=names).template(_trusted(args))


def test_every_item_field_reaches_its_module(controller, playbook_tasks):
    for module, items in (("awx.awx.job_template", controller["pyramid_awx_job_templates"]),
                          ("awx.awx.workflow_job_template", controller["pyramid_awx_workflows"])):
        passed = {key for key, value in playbook_tasks[module][module].items() if isinstance(value, str) and "item." in value}
        for item in items:
            assert set(item) <= passed, (module, item["name"], sorted(set(item) - passed))


def test_the_playbook_arguments_are_module_options(playbook_tasks, specs):
    for module, task in playbook_tasks.items():
        unknown = set(task[module]) - set(specs[module])
        assert not unknown, (module, sorted(unknown))


def test_templates_and_workflow_validate_against_the_module_argument_specs(controller, playbook_tasks, specs):
    names = dict(controller, pyramid_awx_scm_url="https://git.invalid/pyramid.git")
    seen = []
    for module, items in (("awx.awx.job_template", controller["pyramid_awx_job_templates"]),
                          ("awx.awx.workflow_job_template", controller["pyramid_awx_workflows"])):
        for item in items:
            _validate(specs[module], _effective_args(playbook_tasks[module], module, item, names))
            seen.append(item["name"])
    for module in ("awx.awx.project", "awx.awx.execution_environment"):
        _validate(specs[module], _effective_args(playbook_tasks[module], module, {}, names))
    assert seen == ["Validate pod", "Remediate reimaged nodes", "Remediate, then validate"]


def test_the_workflow_runs_the_job_templates_it_names(controller):
    templates = {item["name"] for item in controller["pyramid_awx_job_templates"]}
    (workflow,) = controller["pyramid_awx_workflows"]
    nodes = {node["identifier"]: node for node in workflow["workflow_nodes"]}
    assert {node["unified_job_template"]["name"] for node in nodes.values()} == templates
    for node in nodes.values():
        for kind in ("success_nodes", "failure_nodes", "always_nodes"):
            assert {n["identifier"] for n in node.get("related", {}).get(kind, [])} <= set(nodes)
    assert nodes["remediate"]["related"]["success_nodes"] == [{"identifier": "validate"}]
    assert nodes["remediate"]["limit"] == controller["pyramid_awx_reimaged_group"]
    template = {item["name"]: item for item in controller["pyramid_awx_job_templates"]}["Remediate reimaged nodes"]
    assert template["ask_limit_on_launch"]  # a node's limit reaches the job only when its template prompts for it


def _surveys(controller):
    for item in controller["pyramid_awx_job_templates"] + controller["pyramid_awx_workflows"]:
        yield item["name"], item["survey_spec"]


def test_surveys_follow_awx_survey_spec_rules(controller):
    for name, survey in _surveys(controller):
        assert isinstance(survey["name"], str) and isinstance(survey["description"], str), name
        assert isinstance(survey["spec"], list) and survey["spec"], name
        variables = [question["variable"] for question in survey["spec"]]
        assert len(variables) == len(set(variables)), (name, variables)
        for question in survey["spec"]:
            for key in ("type", "question_name", "variable"):
                assert isinstance(question.get(key), str), (name, question)
            assert isinstance(question["required"], bool), (name, question)
            assert question["type"] in SURVEY_TYPES, (name, question)
            if question.get("default", "") != "":
                assert isinstance(question["default"], SURVEY_TYPES[question["type"]]), (name, question)
            for key in ("min", "max"):
                assert question.get(key) is None or isinstance(question[key], int), (name, question)  # AWX: integers only
            if question["type"] in ("multiplechoice", "multiselect"):
                assert question.get("choices"), (name, question)
                assert question.get("default", "") in ("", *question["choices"]), (name, question)


def test_survey_variables_are_catalog_expectations_and_never_override_the_inventory(controller):
    expectations = _catalog.load_catalog()["expectations"]
    asked = set()
    for name, survey in _surveys(controller):
        for question in survey["spec"]:
            variable = question["variable"]
            asked.add(variable)
            if variable in NOT_EXPECTATIONS:
                continue
            assert variable in expectations, (name, variable)
            assert question["type"] in CATALOG_TYPES[expectations[variable]["type"]], (name, variable, question["type"])
            # answers are extra vars: a default would replace every host's inventory value
            assert question.get("default", "") == "" and not question["required"], (name, variable)
    assert {"pyramid_nccl_tolerance", "pyramid_soak_seconds", "twin_scenario"} <= asked


def test_twin_scenarios_offered_exist(controller):
    for choice in controller["pyramid_awx_twin_question"]["choices"]:
        assert os.path.isfile(os.path.join(ROOT, choice)), choice


def test_the_check_refuses_what_awx_would_refuse(specs):
    # The validation above means something only if it refuses a wrong name, type or choice.
    for params in ({"name": "x", "job_type": "deploy"}, {"name": "x", "forks": "many"}, {"name": "x", "ask_limits_please": True}):
        assert ArgumentSpecValidator(specs["awx.awx.job_template"]).validate(params).error_messages, params
    node = {"name": "x", "workflow_nodes": [{"identifier": "a", "related": {"success_nodes": [{"identifier": "b", "bogus": 1}]}}]}
    assert ArgumentSpecValidator(specs["awx.awx.workflow_job_template"]).validate(node).error_messages
