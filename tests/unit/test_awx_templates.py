"""The AWX objects of awx/controller.yml, checked offline: no AWX server runs here.

The arguments playbooks/awx_configure.yml passes to the awx.awx modules are validated against those
modules' documented options (ansible-doc of the installed awx.awx, doc fragments included), the
surveys against the rules AWX's API applies to a survey_spec (JobTemplateSurveySpec._validate_spec_data
in awx/api/views/__init__.py), every survey variable against the catalog's expectations (or the group names pre-flight
reads), and the switch credential type against the rules AWX's API applies to a credential type's inputs and injectors
(CredentialTypeInputField and CredentialTypeInjectorField in awx/main/fields.py).
"""

import json
import os
import re
import subprocess
import sys

import pytest
from jinja2 import StrictUndefined, sandbox
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import expectations as _expectations
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import inventory as _inventory

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
MODULES = ("awx.awx.project", "awx.awx.execution_environment", "awx.awx.credential_type", "awx.awx.job_template",
           "awx.awx.workflow_job_template")
# AWX's survey question types and the Python type a default must have (JobTemplateSurveySpec.ALLOWED_TYPES).
SURVEY_TYPES = {"text": str, "textarea": str, "password": str, "multiplechoice": str, "multiselect": str,
                "integer": int, "float": float}
CATALOG_TYPES = {"int": ("integer",), "float": ("float", "integer"), "str": ("text", "textarea", "multiplechoice"),
                 "bool": ("multiplechoice",)}
NOT_EXPECTATIONS = {"twin_scenario"}  # read by the twin's inventory plugin (twin/inventory_plugins), demos only


def _load(path):
    """The project's own files are trusted as templates, as ansible-playbook trusts a playbook's vars_files; a value
    tagged !unsafe (the credential type's injectors, AWX's own templates) stays a literal."""
    loader = DataLoader()
    return loader, loader.load_from_file(path, trusted_as_template=True)


def _templates(controller, demo=True):
    return controller["pyramid_awx_job_templates"] + (controller["pyramid_awx_demo_job_templates"] if demo else [])


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
    # the task's own arguments are trusted as loaded; an item's values are rendered already (an !unsafe one stays literal)
    return Templar(loader=DataLoader(), variables=names).template(args)


def test_every_item_field_reaches_its_module(controller, playbook_tasks):
    for module, items in (("awx.awx.job_template", _templates(controller)),
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
    for module, items in (("awx.awx.job_template", _templates(controller)),
                          ("awx.awx.workflow_job_template", controller["pyramid_awx_workflows"])):
        for item in items:
            _validate(specs[module], _effective_args(playbook_tasks[module], module, item, names))
            seen.append(item["name"])
    for module in ("awx.awx.project", "awx.awx.execution_environment", "awx.awx.credential_type"):
        _validate(specs[module], _effective_args(playbook_tasks[module], module, {}, names))
    assert seen == ["Validate pod", "Plan pod", "Remediate reimaged nodes", "Validate twin pod (demo)",
                    "Plan, then remediate reimaged nodes"]
    with_switches = _effective_args(playbook_tasks["awx.awx.job_template"], "awx.awx.job_template", {},
                                    dict(names, pyramid_awx_switch_credential="GPU pod switches"))
    assert with_switches["credentials"] == ["GPU pod SSH", "GPU pod switches"]


def test_the_workflow_runs_the_job_templates_it_names(controller):
    templates = {item["name"] for item in controller["pyramid_awx_job_templates"]}
    (workflow,) = controller["pyramid_awx_workflows"]
    nodes = {node["identifier"]: node for node in workflow["workflow_nodes"]}
    # the reimaged nodes alone: planned, then remediated and validated; the rest of the pod (it may run jobs) not loaded
    assert {node["unified_job_template"]["name"] for node in nodes.values()} == {"Plan pod", "Remediate reimaged nodes"}
    assert {node["unified_job_template"]["name"] for node in nodes.values()} <= templates
    for node in nodes.values():
        for kind in ("success_nodes", "failure_nodes", "always_nodes"):
            assert {n["identifier"] for n in node.get("related", {}).get(kind, [])} <= set(nodes)
    assert nodes["plan"]["related"]["success_nodes"] == [{"identifier": "remediate"}]
    assert nodes["plan"]["limit"] == nodes["remediate"]["limit"] == controller["pyramid_awx_reimaged_group"]
    for name in ("Plan pod", "Remediate reimaged nodes"):
        template = {item["name"]: item for item in controller["pyramid_awx_job_templates"]}[name]
        assert template["ask_limit_on_launch"]  # a node's limit reaches the job only when its template prompts for it


def _surveys(controller, demo=True):
    for item in _templates(controller, demo) + controller["pyramid_awx_workflows"]:
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
            if variable in _inventory.GROUP_VARIABLES.values():
                # an extra variable only, never an inventory's: its default is the standard group, which changes nothing
                group = next(group for group, name in _inventory.GROUP_VARIABLES.items() if name == variable)
                assert question["type"] == "text" and question["default"] == group and question["required"], (name, question)
                continue
            assert variable in expectations, (name, variable)
            assert question["type"] in CATALOG_TYPES[expectations[variable]["type"]], (name, variable, question["type"])
            # answers are extra vars: a default would replace every host's inventory value
            assert question.get("default", "") == "" and not question["required"], (name, variable)
            if expectations[variable]["type"] == "bool":
                # a multiple choice answers text: each choice must read as the true/false pre-flight expects
                resolved = {choice: _expectations.resolve(_catalog.load_catalog(), {variable: choice})[0][variable]
                            for choice in question["choices"]}
                assert resolved == {"true": True, "false": False}, (name, variable, resolved)
    assert {"pyramid_nccl_tolerance", "pyramid_soak_seconds", "pyramid_incast", "pyramid_group_gpu_nodes",
            "twin_scenario"} <= asked


def test_production_surveys_ask_no_twin_question(controller):
    # The twin's scenario is a demo's: only the demo template (created with pyramid_awx_demo) asks for it.
    for name, survey in _surveys(controller, demo=False):
        assert "twin_scenario" not in [question["variable"] for question in survey["spec"]], name
    (demo,) = controller["pyramid_awx_demo_job_templates"]
    assert "twin_scenario" in [question["variable"] for question in demo["survey_spec"]["spec"]]
    assert controller["pyramid_awx_demo"] is False


def test_validate_plans_checks_and_prompts_for_extra_vars(controller):
    templates = {item["name"]: item for item in _templates(controller)}
    assert templates["Plan pod"]["playbook"] == "playbooks/plan.yml"
    assert templates["Validate pod"]["ask_job_type_on_launch"]  # job type check: validate.yml --check
    for item in list(templates.values()) + controller["pyramid_awx_workflows"]:
        assert item["ask_variables_on_launch"], item["name"]
        assert "playbook" not in item or os.path.isfile(os.path.join(ROOT, item["playbook"])), item["name"]


def test_twin_scenarios_offered_exist(controller):
    for choice in controller["pyramid_awx_twin_question"]["choices"]:
        assert os.path.isfile(os.path.join(ROOT, choice)), choice


def test_the_check_refuses_what_awx_would_refuse(specs):
    # The validation above means something only if it refuses a wrong name, type or choice.
    for params in ({"name": "x", "job_type": "deploy"}, {"name": "x", "forks": "many"}, {"name": "x", "ask_limits_please": True}):
        assert ArgumentSpecValidator(specs["awx.awx.job_template"]).validate(params).error_messages, params
    node = {"name": "x", "workflow_nodes": [{"identifier": "a", "related": {"success_nodes": [{"identifier": "b", "bogus": 1}]}}]}
    assert ArgumentSpecValidator(specs["awx.awx.workflow_job_template"]).validate(node).error_messages


# AWX's rules for a credential type (awx/main/fields.py: CredentialTypeInputField.schema and validate,
# CredentialTypeInjectorField.schema, validate and validate_env_var_allowed).
INPUT_KEYS = {"type", "format", "choices", "id", "label", "help_text", "multiline", "secret", "ask_at_runtime", "default"}
NAME = re.compile(r"^[a-zA-Z_]+[a-zA-Z0-9_]*$")
FILE_KEY = re.compile(r"^template(\.[a-zA-Z_]+[a-zA-Z0-9_]*)?$")


class _Files:
    """AWX's `tower.filename` namespace: one attribute per named file (template.<name>)."""


def _awx_credential_type_errors(inputs, injectors):
    errors = []
    if set(inputs) - {"fields", "required"}:
        errors.append("inputs: %s" % sorted(set(inputs) - {"fields", "required"}))
    ids = []
    for field in inputs.get("fields", []):
        unknown = set(field) - INPUT_KEYS
        kind = field.get("type", "string")
        if unknown or not {"id", "label"} <= set(field) or kind not in ("string", "boolean"):
            errors.append("field %s: keys %s, type %s" % (field.get("id"), sorted(unknown), kind))
        if not NAME.match(field.get("id", "")) or field.get("id") == "tower" or field.get("id") in ids:
            errors.append("field id %r" % field.get("id"))
        if field.get("format") not in (None, "ssh_private_key", "url"):
            errors.append("field %s: format %s" % (field["id"], field["format"]))
        if kind != "string" and set(field) & {"choices", "multiline", "format", "secret"}:
            errors.append("field %s: string keys on a %s" % (field["id"], kind))
        ids.append(field.get("id"))
    errors += ["required %s is no field" % name for name in inputs.get("required", []) if name not in ids]
    if set(injectors) - {"file", "env", "extra_vars"}:
        errors.append("injectors: %s" % sorted(set(injectors) - {"file", "env", "extra_vars"}))
    errors += ["file %s" % key for key in injectors.get("file", {}) if not FILE_KEY.match(key)]
    errors += ["env %s" % key for key in injectors.get("env", {}) if not NAME.match(key) or key.startswith("ANSIBLE_")]
    errors += ["extra_vars %s" % key for key in injectors.get("extra_vars", {}) if not NAME.match(key)]
    files = _Files()
    for key in injectors.get("file", {}):
        if "." in key:
            setattr(files, key.split(".")[1], "EXAMPLE_FILENAME")
    namespace = dict({name: "EXAMPLE" for name in ids}, tower={"filename": files})
    for kind, templates in injectors.items():
        for key, template in templates.items():
            try:
                sandbox.ImmutableSandboxedEnvironment(undefined=StrictUndefined).from_string(template).render(namespace)
            except Exception as error:  # pylint: disable=broad-exception-caught  # AWX refuses any failure alike
                errors.append("%s %s: %s" % (kind, key, error))
    return errors


def _inject(credential_type, given):
    """What AWX's CredentialType.inject_credential puts in a job's extra vars for a credential with these inputs:
    absent inputs render empty (no StrictUndefined at run time), each file is written and named in tower.filename."""
    files = _Files()
    for key in credential_type["injectors"].get("file", {}):
        setattr(files, key.split(".")[1], "/runner/env/tmp_" + key.split(".")[1])
    namespace = dict(given, tower={"filename": files})
    environment = sandbox.ImmutableSandboxedEnvironment()
    return {name: environment.from_string(template).render(**namespace)
            for name, template in credential_type["injectors"].get("extra_vars", {}).items()}


def test_switch_credential_type_follows_awx_rules(controller):
    credential_type = controller["pyramid_awx_switch_credential_type"]
    assert not _awx_credential_type_errors(credential_type["inputs"], credential_type["injectors"])
    # the rules refuse what AWX refuses: an ANSIBLE_ variable, a field the injector does not define, a bad type
    assert _awx_credential_type_errors(credential_type["inputs"], {"env": {"ANSIBLE_NET_USERNAME": "{{ username }}"}})
    assert _awx_credential_type_errors(credential_type["inputs"], {"extra_vars": {"x": "{{ no_such_field }}"}})
    assert _awx_credential_type_errors({"fields": [{"id": "x", "label": "X", "type": "int"}]}, {})


def test_switch_credential_reaches_the_switch_login_of_the_example_inventory(controller):
    credential_type = controller["pyramid_awx_switch_credential_type"]
    with_key = _inject(credential_type, {"username": "netops", "ssh_key_data": "KEY\n", "enable_password": "s3cret"})
    password_only = _inject(credential_type, {"username": "netops", "password": "pw"})
    assert with_key["vault_switch_ssh_key_file"] == "/runner/env/tmp_ssh_key" and with_key["vault_switch_password"] == ""
    assert password_only["vault_switch_ssh_key_file"] == ""  # no key given: no key file (network_cli skips an empty one)
    # Every variable it injects is one the example's switch groups log in with, and none is a connection variable
    # itself: extra vars reach every host, and the GPU nodes log in with the Machine credential.
    login = {}
    for group in ("rail_leaves", "spines"):
        path = os.path.join(ROOT, "inventories", "example", "group_vars", group, "main.yml")
        login[group] = DataLoader().load_from_file(path)
    for group, variables in login.items():
        for variable in ("ansible_user", "ansible_password", "ansible_private_key_file", "ansible_become_password"):
            assert any(name in str(variables[variable]) for name in with_key), (group, variable)
        assert variables["ansible_become_method"] == "enable" and variables["ansible_become"] is True, group
    assert not [name for name in with_key if name.startswith("ansible_")]
