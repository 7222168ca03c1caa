"""Reads a man(7) page back for the checks of tests/man: its sections and
subsections, the tags of its tagged paragraphs (.TP) and its bold words.
Written apart from man/roff.py on purpose: a check that shared the
generator's reading of the markup would share its mistakes.
"""
import re
import shlex

_FONT = re.compile(r"\\f(?:[BIRP]|\[[A-Z]*\])")
_BOLD = re.compile(r"\\fB(.*?)(?=\\f[RIP]|$)")


def plain(text):
    """Roff text without its markup: what a reader sees."""
    text = _FONT.sub("", text)
    return text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\").replace("\\(aq", "'")


class Page:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.lines = [line for line in f.read().split("\n") if not line.startswith('.\\"')]

    def section(self, name, subsection=None):
        """The lines of `.SH NAME` (and of its `.SS SUBSECTION`), or None."""
        inside, in_section, found, out = False, False, False, []
        for line in self.lines:
            request, _, argument = line.partition(" ")
            argument = argument.strip().strip('"')
            if request == ".SH":
                inside = argument == name and subsection is None
                found = found or inside
                in_section = argument == name
                continue
            if request == ".SS" and subsection is not None:
                inside = in_section and argument == subsection
                found = found or inside
                continue
            if inside:
                out.append(line)
        return out if found else None

    def subsections(self, name):
        """The names of the .SS subsections of `.SH NAME`."""
        names, inside = [], False
        for line in self.lines:
            request, _, argument = line.partition(" ")
            if request == ".SH":
                inside = argument.strip().strip('"') == name
            elif request == ".SS" and inside:
                names.append(argument.strip().strip('"'))
        return names


def tags(lines):
    """The tag (the line after .TP) of each tagged paragraph, as plain text."""
    return [plain(lines[i + 1]) for i, line in enumerate(lines[:-1]) if line.strip() == ".TP"]


def bold_words(lines):
    """Every word set in bold: by \\fB...\\fR, .B, or the bold arguments of
    .BR, .BI, .RB and .IB."""
    words = set()

    def add(text):
        words.update(w for w in re.split(r"[\s,|=\[\]()]+", plain(text)) if w)

    for line in lines:
        request, _, rest = line.partition(" ")
        if request in (".B", ".BR", ".BI", ".RB", ".IB"):
            arguments = shlex.split(rest.replace("\\", "\\\\"))
            first_bold = 1 if request in (".RB", ".IB") else 0
            step = 1 if request == ".B" else 2
            for argument in arguments[first_bold::step]:
                add(argument)
        for m in _BOLD.finditer(line):
            add(m.group(1))
    return words
