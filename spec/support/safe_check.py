"""Reads clua's CSV and JSON output files as other programs do, for the
specs of hostile names (spec/escape_spec.lua, spec/hostile_grade_spec.lua).

    python3 spec/support/safe_check.py FILE...

A .csv file must be UTF-8 and plain RFC 4180 as Python's csv module reads it,
and no cell may start (after any spaces) with = + - @ tab CR or LF unless it
is a plain number (-2.5): a spreadsheet would read such a cell as a formula
(OWASP, CSV injection). A .json file must be UTF-8 and JSON as Python's json
module reads it. Prints one JSON document: {"errors": [...], "csv": {FILE:
rows}}, each row a list of its cells as read.
"""
import csv
import json
import re
import sys

NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$")
FORMULA = re.compile(r"^ *[=+\-@\t\r\n]")


def main():
    errors, tables = [], {}
    for path in sys.argv[1:]:
        try:
            with open(path, encoding="utf-8", errors="strict", newline="") as f:
                if path.endswith(".json"):
                    json.load(f)
                    continue
                rows = list(csv.reader(f))
        except (UnicodeDecodeError, ValueError, csv.Error) as e:
            errors.append("%s: %s" % (path, e))
            continue
        tables[path] = rows
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                if FORMULA.match(cell) and not NUMBER.match(cell):
                    errors.append("%s: row %d, column %d starts a formula: %r" % (path, i + 1, j + 1, cell))
    print(json.dumps({"errors": errors, "csv": tables}))


main()
