"""Reads the --help text of `cryptoaccel` and of each of its subcommands
into options, positionals and subcommands, so that the man page is made
from what the program itself prints and cannot drift from it.

Two layouts occur: CLI11's (the command and every subcommand but one) and
argp's (`cryptoaccel rngtest`, which copies rng-tools' rngtest, options
and help alike). A line that fits neither raises HelpFormatError rather
than being dropped: an option left out of the page without a word is the
drift this module exists to prevent.
"""
import dataclasses
import re


class HelpFormatError(ValueError):
    pass


@dataclasses.dataclass
class Entry:
    """One option or positional: its names as typed (["-o", "--output"], or
    ["algorithm"] for a positional), the placeholder of its value ("" for a
    flag), whether it takes several values, its description and what the
    help says besides (["Default: 64", ...])."""
    names: list
    argument: str = ""
    many: bool = False
    description: str = ""
    notes: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Help:
    usage: str                  # "cryptoaccel speed [OPTIONS] [algorithm...]"
    description: list           # paragraphs before the options
    positionals: list           # of Entry
    options: list               # of Entry
    subcommands: list           # of (name, description)
    epilogue: list              # paragraphs after the options (argp)
    argp: bool = False          # argp's layout: "--name=VALUE"


def parse(text):
    """The Help that `text` (a --help output) describes."""
    lines = text.rstrip("\n").split("\n")
    if lines and lines[0].startswith("Usage:") and "[OPTION...]" in lines[0]:
        return _parse_argp(lines)
    return _parse_cli11(lines)


def _paragraphs(lines):
    """Blank-separated lines as paragraphs, each joined into one string."""
    out, current = [], []
    for line in lines + [""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            out.append(" ".join(current))
            current = []
    return out


def _head_and_description(line):
    """An item's names (and placeholder) and the start of its description:
    two spaces or more part them; a long head leaves the line to itself."""
    parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


# CLI11 ----------------------------------------------------------------------

# What CLI11's formatter prints after an option's names: the type name
# (with its validator after a colon), "=DEFAULT", " ..." for a vector and
# " REQUIRED"; nothing else is expected of this program's options.
_CLI11_SPEC = re.compile(r"^(?P<type>[^\s:=]+)(?::(?P<check>.+?))?(?:=(?P<default>\S*))?"
                         r"(?P<many> \.\.\.)?(?P<required> REQUIRED)?$")
_RANGE = re.compile(r"^\w+ in \[(?P<low>\S+) - (?P<high>\S+)\]$")


def _cli11_entry(head, description):
    name, _, spec = head.partition(" ")
    entry = Entry(names=name.split(","), description=description)
    if not spec:
        return entry
    m = _CLI11_SPEC.match(spec)
    if not m:
        raise HelpFormatError(f"cannot read the option line '{head}'")
    entry.argument = m["type"]
    entry.many = m["many"] is not None
    check = m["check"]
    if check is not None:
        if check.startswith("{") and check.endswith("}"):
            entry.notes.append("One of: " + ", ".join(check[1:-1].split(",")))
        elif r := _RANGE.match(check):
            entry.notes.append(f"From {r['low']} to {r['high']}")
        else:
            entry.notes.append(f"Checked: {check}")
    if m["default"]:
        entry.notes.append(f"Default: {m['default']}")
    if m["required"]:
        entry.notes.append("Required")
    return entry


def _cli11_items(lines):
    """(head, description) of each item of a section: an item starts at two
    spaces of indentation; deeper lines continue its description."""
    items = []
    for line in lines:
        if re.match(r"^  \S", line):
            head, description = _head_and_description(line)
            items.append([head, description])
        elif re.match(r"^ {3,}\S", line) and items:
            items[-1][1] = (items[-1][1] + " " + line.strip()).strip()
        elif line.strip():
            raise HelpFormatError(f"cannot read the help line '{line}'")
    return items


def _parse_cli11(lines):
    usage_at = next((i for i, line in enumerate(lines) if line.startswith("Usage: ")), None)
    if usage_at is None:
        raise HelpFormatError("no 'Usage:' line")
    help_ = Help(usage=lines[usage_at][len("Usage: "):].strip(),
                 description=_paragraphs(lines[:usage_at]),
                 positionals=[], options=[], subcommands=[], epilogue=[])
    sections, name = {}, None
    for line in lines[usage_at + 1:]:
        if re.match(r"^\S.*:$", line):
            name = line[:-1]
            sections.setdefault(name, [])
        elif name is not None:
            sections[name].append(line)
        elif line.strip():
            raise HelpFormatError(f"text between the usage and the first section: '{line}'")
    for name, body in sections.items():
        items = _cli11_items(body)
        if name == "Subcommands":
            help_.subcommands += [(head, text) for head, text in items]
        elif name == "Positionals":
            help_.positionals += [_cli11_entry(h, t) for h, t in items]
        else:  # "Options", or an option group's own title
            help_.options += [_cli11_entry(h, t) for h, t in items]
    return help_


# argp -----------------------------------------------------------------------

# "  -b, --blockstats=n", "      --source=S", "  -?, --help": short and long
# names, the value's placeholder after "=" (long) or a space (short only).
_ARGP_NAME = re.compile(r"^(?P<name>--?[^\s,=\[]+)(?:\[?=(?P<long>[^\s\]]+)\]?| (?P<short>\S+))?$")


def _argp_entry(head, description):
    entry = Entry(names=[], description=description)
    for part in head.split(", "):
        m = _ARGP_NAME.match(part)
        if not m:
            raise HelpFormatError(f"cannot read the option '{head}'")
        entry.names.append(m["name"])
        entry.argument = m["long"] or m["short"] or entry.argument
    return entry


def _parse_argp(lines):
    help_ = Help(usage=lines[0][len("Usage: "):].strip(), description=[], positionals=[],
                 options=[], subcommands=[], epilogue=[], argp=True)
    before, after = [], []
    for line in lines[1:]:
        if re.match(r"^ {2,6}-", line):
            help_.options.append(_argp_entry(*_head_and_description(line)))
        elif re.match(r"^ {7,}\S", line) and help_.options and not after:
            last = help_.options[-1]
            last.description = (last.description + " " + line.strip()).strip()
        elif help_.options:
            after.append(line)
        else:
            before.append(line)
    help_.description = _paragraphs(before)
    help_.epilogue = _paragraphs(after)
    if not help_.options:
        raise HelpFormatError("an argp help without options")
    return help_
