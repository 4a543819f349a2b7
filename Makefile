# Two entry points for a fresh machine: `make demo` and `make test` (see README).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
APT_PACKAGES := openssh-server openssh-client kmod iproute2 util-linux rsync prometheus frr iputils-ping fping slurmctld slurmd munge
# without their recommends: Chromium's would bring a desktop (systemd, udev, avahi) into the machine
APT_PACKAGES_ALONE := chromium
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg

.PHONY: setup apt ibstack venv link twin demo test check unit e2e sanity lint docs clean lab lab-down

setup: apt ibstack venv link

apt:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "== apt-get install $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@missing=$$(for p in $(APT_PACKAGES_ALONE); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "== apt-get install --no-install-recommends $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# The real InfiniBand management stack for the twin's ibsim pods, unpacked into .twin/ibstack (never installed)
ibstack:
	@scripts/ibstack

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements.txt
	touch $@

venv: $(VENV)/.installed

# ansible-playbook finds this checkout as the collection gpufabric.pyramid through ansible.cfg.
link:
	@mkdir -p .collections/ansible_collections/gpufabric
	@ln -sfn ../../.. .collections/ansible_collections/gpufabric/pyramid

twin: setup
	@twin/up

# A real FRR leaf-spine fabric in network namespaces (docs/lab.md); root. lab-down removes all of it, and only it.
lab: setup
	@lab/up

lab-down:
	@lab/down

demo: twin
	@bash scripts/demo

test: twin
	@bash scripts/test

# The inner loop: unit, property and static tests (no twin), on both cores, in a few minutes.
check: setup
	@bash scripts/test tests/unit tests/property tests/static

unit: setup
	$(PY) -m pytest -q tests/unit

docs: setup
	$(PY) scripts/gen_docs.py

clean:
	-twin/down
	rm -rf .collections reports tests/output
