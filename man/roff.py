"""The program's help text as man(7) markup: escaping, and one tagged
paragraph per option.

Every "-" becomes "\\-": roff would print a plain one as a hyphen, and an
option or algorithm name copied from the page must still work when pasted.
"""
import re


def escape(text):
    """Plain text, safe anywhere on a text line: no backslash, hyphen or
    leading control character is taken as markup. Runs of white space
    become one space, as the help's line breaks and sentence gaps mean
    nothing on the page."""
    return _guard(_raw(" ".join(text.split())))


def bold(text):
    return f"\\fB{_raw(' '.join(text.split()))}\\fR"


def italic(text):
    return f"\\fI{_raw(' '.join(text.split()))}\\fR"


def prose(text):
    """A sentence of the help: `commands` in backquotes become bold."""
    parts = re.split(r"`([^`]+)`", " ".join(text.split()))
    return _guard("".join(bold(p) if i % 2 else _raw(p) for i, p in enumerate(parts)))


def _raw(text):
    return text.replace("\\", "\\e").replace("-", "\\-")


def _guard(line):
    """A line that starts with "." or "'" would be read as a request."""
    return "\\&" + line if line[:1] in (".", "'") else line


def usage(line, words):
    """A usage line ("cryptoaccel speed [OPTIONS] [algorithm...]"): its first
    `words` words (the program and the subcommand) bold, the placeholders
    after them italic."""
    parts = line.split(" ", words)
    rest = parts[words] if len(parts) > words else ""
    pieces = re.split(r"([A-Za-z][\w-]*)", rest)
    rest = "".join(italic(p) if i % 2 else _raw(p) for i, p in enumerate(pieces))
    return f"{bold(' '.join(parts[:words]))} {rest}".rstrip()


def entry(item, argp=False):
    """An option or positional (help_text.Entry) as a tagged paragraph."""
    if item.names[0].startswith("-"):
        tag = ", ".join(bold(n) for n in item.names)
    else:
        tag = italic(item.names[0])
    if item.argument and item.names[0].startswith("-"):
        tag += ("=" if argp else " ") + italic(item.argument)
    if item.many:
        tag += " ..."
    lines = [".TP", tag]
    if item.description:
        lines.append(prose(item.description))
    if item.notes:
        # On a line of their own: the help's descriptions end without a stop.
        lines += [".br", escape(". ".join(item.notes) + ".")]
    return lines
