"""One command-line shape (issue 23): every tool is a corpora.common.cli.Tool of command modules."""

import importlib

import pytest
from cli_runner import run_tool

from anonymizer.cli import TOOL as ANONYMIZER
from attacks.__main__ import TOOL as ATTACKS
from corpora.cli import TOOL as CORPORA
from corpora.common.cli import Tool, version
from experiments.__main__ import TOOL as EXPERIMENTS

TOOLS = {"anonymizer": ANONYMIZER, "attacks": ATTACKS, "corpora": CORPORA, "experiments": EXPERIMENTS}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_command_is_a_module_with_the_four_names(name):
    tool = TOOLS[name]
    assert isinstance(tool, Tool) and tool.commands
    for command, (module_name, text) in tool.commands.items():
        module = importlib.import_module(module_name)
        assert module.HELP == text, command  # the listing shows the module's own line
        assert module.DESCRIPTION and callable(module.add_arguments) and callable(module.run)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_version_on_the_tool_and_on_each_command(name):
    done = run_tool(name, ["--version"])
    assert done.returncode == 0 and done.stdout.strip() == f"python -m {name} {version()}"
    for command in TOOLS[name].commands:
        done = run_tool(name, [command, "--version"])
        assert done.returncode == 0 and done.stdout.strip().endswith(f"{command} {version()}"), command


def test_the_sweep_entry_point_has_a_version_too():
    done = run_tool("experiments.run", ["--version"])
    assert done.returncode == 0 and done.stdout.strip() == f"python -m experiments.run {version()}"


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_an_unknown_command_is_one_line_and_status_2(name):
    tool = TOOLS[name]
    done = run_tool(name, ["no-such-command"] if tool.default is None else ["no-such-command", "--no-such-option"])
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stderr.startswith("error:")
