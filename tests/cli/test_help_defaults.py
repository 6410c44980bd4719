"""Every option of every sub-command says its default (or that it is required) in its help."""

import argparse

from tropattn.cli import build_parser

FLAGS = (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._CountAction)


def _options(parser, path):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, path + (name,))
        elif action.option_strings and action.help not in (None, argparse.SUPPRESS) \
                and action.dest not in ("help", "version"):
            yield path, parser, action


def test_every_option_help_states_its_default():
    missing = []
    seen = 0
    for path, parser, action in _options(build_parser(), ("tropattn",)):
        seen += 1
        text = parser._get_formatter()._expand_help(action).lower()
        if action.required or isinstance(action, FLAGS):
            continue
        if "default" not in text:
            missing.append(" ".join(path) + " " + action.option_strings[0])
    assert seen > 100                 # the walk reached the sub-commands' options
    assert not missing, "options whose help shows no default: " + ", ".join(missing)
